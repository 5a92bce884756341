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

// BenchmarkCorpusQueryCold100k runs `asky corpus query` as a new process
// against 100k synthetic chunks (hash-v1 vectors): open the database, map
// the vector snapshot, run the hybrid query, print. Goal: ≤ 250 ms. The
// first query, which also writes the snapshot, is reported apart.
func BenchmarkCorpusQueryCold100k(b *testing.B) {
	dir := b.TempDir()
	bin := buildAsky(b, dir)
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "asky.db"))
	if err != nil {
		b.Fatal(err)
	}
	ix := &research.Index{St: st, Emb: research.HashV1{}}
	if err := ix.Open(ctx); err != nil {
		b.Fatal(err)
	}
	// Zipf-distributed pseudo-words: a vocabulary shaped like text.
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
	for d := 0; d < 100; d++ {
		chunks := make([]store.CorpusChunk, 1000)
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
	st.Close()
	env := append(os.Environ(), "ASKY_HOME="+home, "ASKY_NO_DETECT=1")
	query := func(i int) time.Duration {
		c := exec.Command(bin, "corpus", "query", "--top-k", "10", "how does the "+vocab[50+i*7]+" "+vocab[300+i*11]+" work with "+vocab[2000+i*13])
		c.Env = env
		t0 := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", c.Args, err, out)
		}
		return time.Since(t0)
	}
	first := query(0)
	var ts []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 1; j <= 10; j++ {
			ts = append(ts, query(j))
		}
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(median(ts).Microseconds())/1000, "cold-ms")
}
