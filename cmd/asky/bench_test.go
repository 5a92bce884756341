package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

// BenchmarkLeanVsCurl compares a one-shot `asky -L` against curl sending an
// equivalent streamed request to the same local fake server. Goal: ≤ 2×.
func BenchmarkLeanVsCurl(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("curl not installed")
	}
	dir := b.TempDir()
	bin := buildAsky(b, dir)
	srv := llmtest.New()
	defer srv.Close()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	cfg := "[general]\ndefault_model = \"fake\"\n[api.fake]\nbase_url = \"" + srv.URL() + "\"\n[models.fake]\napi = \"fake\"\nid = \"fake-model\"\n"
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
	env := append(os.Environ(), "ASKY_HOME="+home, "ASKY_NO_DETECT=1")
	body := `{"model":"fake-model","stream":true,"messages":[{"role":"system","content":"You are concise."},{"role":"user","content":"what is 2+2"}]}`

	run := func(cmd *exec.Cmd) time.Duration {
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return time.Since(t0)
	}
	const n = 15
	var askyT, curlT []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		askyT, curlT = askyT[:0], curlT[:0]
		for j := 0; j < n; j++ {
			c := exec.Command(bin, "-L", "what is 2+2")
			c.Env = env
			askyT = append(askyT, run(c))
			curlT = append(curlT, run(exec.Command(curl, "-sS", "-N", "-X", "POST", srv.URL()+"/chat/completions",
				"-H", "Content-Type: application/json", "-d", body)))
		}
	}
	a, c := median(askyT), median(curlT)
	b.ReportMetric(float64(a.Microseconds())/1000, "asky-ms")
	b.ReportMetric(float64(c.Microseconds())/1000, "curl-ms")
	b.ReportMetric(float64(a)/float64(c), "ratio")
}

// buildAsky builds the binary into dir (CGO off, as shipped).
func buildAsky(b *testing.B, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "asky")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkCorpusQueryCold100k runs `asky corpus query` as new processes
// against 100k synthetic chunks carrying vectors of the default embedder
// (the builtin static one, so the dense scan runs as it does for a
// user): open the database, map
// the vector snapshot, run the hybrid query, print. Goal: ≤ 50 ms.
// BenchmarkCorpusQueryCold1M does the same at a million chunks (goal
// ≤ 120 ms); it runs only with ASKY_BENCH_1M=1, since building the corpus
// takes minutes (set ASKY_BENCH_CACHE to a directory to build it once).
// Both report what rebuilding the snapshot from SQLite costs (what an
// ingest that replaced documents does at its end; one that only adds
// documents appends to it as it writes), the first query after it, a
// query without any snapshot (which writes it first), peak RSS, and the
// vector bytes in the database against their raw size, and each figure
// beside the floor: two threads reading the snapshot's coded blocks
// through a fresh mapping (page faults included, as a new process pays).
func BenchmarkCorpusQueryCold100k(b *testing.B) { benchCorpusCold(b, 100, 1000) }

// BenchmarkCorpusQueryCold10k is the same at 10k chunks: what is left
// there is the process's fixed cost.
func BenchmarkCorpusQueryCold10k(b *testing.B) { benchCorpusCold(b, 10, 1000) }

func BenchmarkCorpusQueryCold1M(b *testing.B) {
	if os.Getenv("ASKY_BENCH_1M") == "" {
		b.Skip("set ASKY_BENCH_1M=1 (and ASKY_BENCH_CACHE=dir to keep the corpus)")
	}
	benchCorpusCold(b, 1000, 1000)
}

// benchVocab is a Zipf-distributed vocabulary of pseudo-words: text
// shaped like text.
func benchVocab() (*rand.Zipf, []string) {
	r := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(r, 1.1, 2, 49999)
	vocab := make([]string, 50000)
	for i := range vocab {
		w := make([]byte, 3+r.Intn(8))
		for j := range w {
			w[j] = byte('a' + r.Intn(26))
		}
		vocab[i] = string(w)
	}
	return zipf, vocab
}

// benchCorpusHome returns an ASKY_HOME holding docs×per chunks of ~1 KB,
// reused from $ASKY_BENCH_CACHE when it was built there before.
func benchCorpusHome(b *testing.B, docs, per int) string {
	b.Helper()
	home := filepath.Join(b.TempDir(), "home")
	if c := os.Getenv("ASKY_BENCH_CACHE"); c != "" {
		home = filepath.Join(c, fmt.Sprintf("corpus-static-%dx%d", docs, per))
		if _, err := os.Stat(filepath.Join(home, "complete")); err == nil {
			return home
		}
		os.RemoveAll(home)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "asky.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ix := &research.Index{St: st, Emb: benchEmbedder(b)}
	if err := ix.Open(ctx); err != nil {
		b.Fatal(err)
	}
	zipf, vocab := benchVocab()
	for d := 0; d < docs; d++ {
		chunks := make([]store.CorpusChunk, per)
		texts := make([]string, len(chunks))
		for i := range chunks {
			var sb strings.Builder
			for sb.Len() < 1000 {
				sb.WriteString(vocab[zipf.Uint64()])
				sb.WriteByte(' ')
			}
			texts[i] = sb.String()
			chunks[i] = store.CorpusChunk{Index: i, Title: fmt.Sprintf("Doc %d", d), Section: "Part", Text: texts[i]}
		}
		vecs, _ := ix.Emb.EmbedDocuments(ctx, texts)
		src := &store.CorpusSource{Path: fmt.Sprintf("/bench/%d.md", d), Title: fmt.Sprintf("Doc %d", d), Format: "md", SHA256: "x", Sections: "[]"}
		if _, err := st.ReplaceCorpusSources(ctx, []store.SourceWrite{{Src: src, Chunks: chunks, Vecs: vecs}}, ix.Fingerprint()); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.CheckpointWAL(ctx); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "complete"), nil, 0o600); err != nil {
		b.Fatal(err)
	}
	return home
}

func benchCorpusCold(b *testing.B, docs, per int) {
	dir := b.TempDir()
	// ASKY_BENCH_BIN runs a given build instead (before/after figures).
	bin := os.Getenv("ASKY_BENCH_BIN")
	if bin == "" {
		bin = buildAsky(b, dir)
	}
	home := benchCorpusHome(b, docs, per)
	_, vocab := benchVocab()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "asky.db"))
	if err != nil {
		b.Fatal(err)
	}
	stored, raw, err := st.VectorStorage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// What a rebuild of the snapshot from SQLite costs.
	snapDir := filepath.Join(home, "cache")
	ix := &research.Index{St: st, Emb: benchEmbedder(b), SnapshotDir: snapDir}
	if err := ix.Open(ctx); err != nil {
		b.Fatal(err)
	}
	removeSnapshots := func() {
		ms, _ := filepath.Glob(filepath.Join(snapDir, "vectors-*.snap"))
		for _, m := range ms {
			os.Remove(m)
		}
	}
	removeSnapshots()
	t0 := time.Now()
	if err := ix.RefreshSnapshot(ctx, nil); err != nil {
		b.Fatal(err)
	}
	snapTime := time.Since(t0)
	st.Close()
	var snapBytes int64
	if ms, _ := filepath.Glob(filepath.Join(snapDir, "vectors-*.snap")); len(ms) == 1 {
		if fi, err := os.Stat(ms[0]); err == nil {
			snapBytes = fi.Size()
		}
	}
	env := append(os.Environ(), "ASKY_HOME="+home, "ASKY_NO_DETECT=1")
	query := func(i int) (time.Duration, int64) {
		c := exec.Command(bin, "corpus", "query", "--top-k", "10", "how does the "+vocab[50+i*7]+" "+vocab[300+i*11]+" work with "+vocab[2000+i*13])
		c.Env = env
		t0 := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", c.Args, err, out)
		}
		return time.Since(t0), maxRSS(c)
	}
	first, firstRSS := query(0)
	var floors []time.Duration
	var ts []time.Duration
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 1; j <= 10; j++ {
			d, r := query(j)
			ts = append(ts, d)
			floors = append(floors, coldReadFloor(b, snapDir))
			rss = max(rss, r)
		}
	}
	b.StopTimer()
	removeSnapshots()
	noSnap, noSnapRSS := query(11)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(median(ts)), "cold-ms")
	b.ReportMetric(ms(ts[0]), "cold-min-ms")
	b.ReportMetric(ms(ts[len(ts)-1]), "cold-max-ms")
	b.ReportMetric(ms(ts[len(ts)*9/10]), "cold-p90-ms")
	b.ReportMetric(ms(median(floors)), "floor-ms")
	b.ReportMetric(float64(median(ts))/float64(median(floors)), "cold-x-floor")
	b.ReportMetric(float64(rss)/1e6, "cold-rss-MB")
	b.ReportMetric(ms(snapTime), "rebuild-snapshot-ms")
	b.ReportMetric(ms(first), "first-ms")
	b.ReportMetric(float64(firstRSS)/1e6, "first-rss-MB")
	b.ReportMetric(ms(noSnap), "nosnap-first-ms")
	b.ReportMetric(float64(noSnapRSS)/1e6, "nosnap-rss-MB")
	b.ReportMetric(float64(snapBytes)/1e6, "snapshot-MB")
	b.ReportMetric(float64(stored)/float64(max(raw, 1)), "db-vec-x-raw")
}

// benchEmbedder is the default embedder (config default provider
// "builtin"): the cold benches measure what a user's query runs.
func benchEmbedder(b *testing.B) research.Embedder {
	b.Helper()
	e, err := research.NewBuiltinStatic()
	if err != nil {
		b.Fatal(err)
	}
	return e
}
