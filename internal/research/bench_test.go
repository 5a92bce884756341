package research

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/askygo/asky/internal/store"
)

// synth generates reproducible English-like text: Zipf-distributed
// pseudo-words mixed with stopwords, in sentences.
type synth struct {
	r     *rand.Rand
	z     *rand.Zipf
	vocab []string
}

func newSynth(seed int64) *synth {
	r := rand.New(rand.NewSource(seed))
	s := &synth{r: r, z: rand.NewZipf(r, 1.1, 2, 49999)}
	letters := "abcdefghijklmnopqrstuvwxyz"
	for i := 0; i < 50000; i++ {
		n := 3 + r.Intn(8)
		b := make([]byte, n)
		for j := range b {
			b[j] = letters[r.Intn(26)]
		}
		s.vocab = append(s.vocab, string(b))
	}
	return s
}

func (s *synth) sentence() string {
	n := 8 + s.r.Intn(16)
	w := make([]string, n)
	for i := range w {
		if s.r.Intn(3) == 0 {
			w[i] = stopwordsEnV1[s.r.Intn(40)]
		} else {
			w[i] = s.vocab[s.z.Uint64()]
		}
	}
	return strings.Join(w, " ") + "."
}

func (s *synth) text(chars int) string {
	var b strings.Builder
	for b.Len() < chars {
		b.WriteString(s.sentence())
		if s.r.Intn(6) == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// BenchmarkIngest measures end-to-end ingest throughput (read, extract,
// section, chunk, hash-v1 embed, one SQLite transaction per batch, the
// vector snapshot kept current) in MB/s of text.
func BenchmarkIngest(b *testing.B) { benchmarkIngest(b, HashV1{}) }

func benchmarkIngest(b *testing.B, emb Embedder) {
	dir := b.TempDir()
	s := newSynth(1)
	var total int64
	for i := 0; i < 40; i++ {
		body := fmt.Sprintf("# Document %d\n\n## Part one\n\n%s\n\n## Part two\n\n%s\n", i, s.text(50000), s.text(50000))
		total += int64(len(body))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%02d.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "asky.db"))
		if err != nil {
			b.Fatal(err)
		}
		// The vector snapshot is appended to as documents are written.
		in := &Ingester{Index: &Index{St: st, Emb: emb, SnapshotDir: filepath.Join(b.TempDir(), "cache")}}
		targets, _ := in.Collect([]string{dir})
		b.StartTimer()
		t0 := time.Now()
		if _, err := in.Ingest(context.Background(), targets); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(t0)
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total)*float64(b.N)/1e6/elapsed.Seconds(), "MB/s")
}

// benchCorpus builds (once per size) a store with n synthetic chunks of
// ~1 KB in 100 sources, with hash-v1 vectors and a vector snapshot. With
// ASKY_BENCH_CACHE set, the corpus is kept there and reused.
var (
	benchCorpora sync.Map
	benchDirs    []string
)

func benchIndex(b *testing.B, n int) *Index { return benchIndexWith(b, n, HashV1{}) }

func benchIndexWith(b *testing.B, n int, emb Embedder) *Index {
	b.Helper()
	key := fmt.Sprint(n, emb.Spec().Fingerprint())
	if v, ok := benchCorpora.Load(key); ok {
		return v.(*Index)
	}
	ctx := context.Background()
	var dir string
	cached := false
	if c := os.Getenv("ASKY_BENCH_CACHE"); c != "" {
		// One cached corpus per size and embedder.
		dir = filepath.Join(c, fmt.Sprintf("research-%d-%s", n, strings.NewReplacer("/", "_", ":", "_").Replace(emb.Spec().Fingerprint())))
		_, err := os.Stat(filepath.Join(dir, "complete"))
		cached = err == nil
		if !cached {
			os.RemoveAll(dir)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "asky-bench"); err != nil {
			b.Fatal(err)
		}
		benchDirs = append(benchDirs, dir)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "asky.db"))
	if err != nil {
		b.Fatal(err)
	}
	ix := &Index{St: st, Emb: emb, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: filepath.Join(dir, "cache")}
	if err := ix.Open(ctx); err != nil {
		b.Fatal(err)
	}
	if !cached {
		s := newSynth(int64(n))
		per := n / 100
		for d := 0; d < 100; d++ {
			chunks := make([]store.CorpusChunk, per)
			texts := make([]string, per)
			for i := range chunks {
				texts[i] = s.text(1000)
				chunks[i] = store.CorpusChunk{Index: i, Title: fmt.Sprintf("Doc %d", d), Section: "Part", Text: texts[i]}
			}
			vecs, _ := ix.Emb.EmbedDocuments(ctx, texts)
			src := &store.CorpusSource{Path: fmt.Sprintf("/bench/%d.md", d), Title: fmt.Sprintf("Doc %d", d), Format: "md", SHA256: "x", Content: "", Sections: "[]"}
			if _, err := st.ReplaceCorpusSource(ctx, src, chunks, ix.Fingerprint(), vecs); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.CheckpointWAL(ctx); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.RefreshSnapshot(ctx, nil); err != nil {
		b.Fatal(err)
	}
	benchCorpora.Store(key, ix)
	return ix
}

func benchQueries(s *synth) []string {
	var qs []string
	for i := 0; i < 20; i++ {
		// A natural question: stopwords plus mid-frequency content words.
		qs = append(qs, fmt.Sprintf("how does the %s %s work with %s", s.vocab[50+i*7], s.vocab[300+i*11], s.vocab[2000+i*13]))
	}
	return qs
}

// readFloor is the time two threads take to read parts once with the
// SIMD kernel: the memory-read floor of a scan that must read those bytes.
func readFloor(parts [][]float32) time.Duration {
	t0 := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(parts); i = int(next.Add(1) - 1) {
				_ = dot(parts[i], parts[i])
			}
		}()
	}
	wg.Wait()
	return time.Since(t0)
}

// chunked splits flat into rows-sized parts, as the scan hands them out.
func chunked(flat []float32, size int) [][]float32 {
	var out [][]float32
	for lo := 0; lo < len(flat); lo += size {
		out = append(out, flat[lo:min(len(flat), lo+size)])
	}
	return out
}

// codedParts are the bytes the snapshot scan reads: each block's coded
// part (as float32 words, for the read kernel).
func codedParts(s *snapSet) [][]float32 {
	var out [][]float32
	for b := 0; b < s.l.blocks; b++ {
		off := s.l.blockOff(b)
		out = append(out, unsafe.Slice((*float32)(unsafe.Pointer(&s.data[off])), s.l.blockSize/4))
	}
	return out
}

// vsFloor runs scan b.N times, each beside a read of the same bytes, and
// reports both medians and the median ratio: on a shared machine the
// floor moves with the load, so it is measured next to each scan.
func vsFloor(b *testing.B, parts [][]float32, scan func(i int)) {
	var ratios, scans, floors []float64
	for i := 0; i < b.N; i++ {
		f := readFloor(parts)
		t0 := time.Now()
		scan(i)
		d := time.Since(t0)
		ratios = append(ratios, float64(d)/float64(f))
		scans = append(scans, float64(d.Microseconds())/1000)
		floors = append(floors, float64(f.Microseconds())/1000)
	}
	b.ReportMetric(median(scans), "ms/query")
	b.ReportMetric(median(floors), "floor-ms")
	b.ReportMetric(median(ratios), "x-floor")
}

// kernelChoice names a kernel setting; use switches to it and returns
// the switch back.
type kernelChoice struct {
	name string
	use  func() func()
}

func median(x []float64) float64 { sort.Float64s(x); return x[len(x)/2] }

func benchmarkQueries(b *testing.B, n int) {
	ix := benchIndex(b, n)
	qs := benchQueries(newSynth(int64(n)))
	ctx := context.Background()
	if _, err := ix.Search(ctx, qs[0], SearchOptions{TopK: 10}); err != nil { // map the snapshot
		b.Fatal(err)
	}
	snap := ix.snap
	if snap == nil {
		b.Fatal("no snapshot mapped")
	}
	ids, flat, err := ix.St.CorpusVectors(ctx, ix.Fingerprint(), 512, nil)
	if err != nil {
		b.Fatal(err)
	}
	qv := make([][]float32, len(qs))
	for i, q := range qs {
		qv[i] = HashV1Vector(q)
	}
	msPer := func(b *testing.B) float64 { return float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N) }
	b.Run("hybrid", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ix.Search(ctx, qs[i%len(qs)], SearchOptions{TopK: 10}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(msPer(b), "ms/query")
	})
	b.Run("fts", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ix.St.SearchCorpusFTS(ctx, BuildMatch(qs[i%len(qs)]), FieldWeights, nil, 100); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(msPer(b), "ms/query")
	})
	b.Run("flat-floor", func(b *testing.B) {
		// The float32 scan (in memory, without a snapshot) against the
		// two-thread read of the float32 matrix.
		vsFloor(b, chunked(flat, scanBlockRows*512), func(i int) { FlatTopK(ids, flat, 512, qv[i%len(qv)], 100) })
	})
	for _, k := range int8Kernels() {
		b.Run("snapshot-int8"+k.name, func(b *testing.B) {
			// What a query scans (int8 codes, then float32 rescoring of
			// the rows the bound cannot rule out) against the two-thread
			// read of the coded blocks (x-floor), and against that read
			// plus a read of as many scattered float32 rows as the query
			// rescored (x-floor-rows): the bytes an exact scan cannot skip.
			defer k.use()()
			benchInt8Scan(b, snap, qv)
		})
	}
	b.Run("chromem", func(b *testing.B) {
		// Collection build is included: that is the cost per CLI query.
		if n > 100000 {
			b.Skip("minutes per query at this size")
		}
		for i := 0; i < b.N; i++ {
			if _, err := ChromemTopK(ctx, ids, flat, 512, qv[i%len(qv)], 100); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(msPer(b), "ms/query")
	})
	b.Run("load-vectors", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := ix.St.CorpusVectors(ctx, ix.Fingerprint(), 512, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(msPer(b), "ms/load")
	})
}

// BenchmarkQuery10k and BenchmarkQuery100k measure hybrid query latency
// beside its parts and the memory-read floor of each scan.
// BenchmarkQuery1M runs only with ASKY_BENCH_1M=1 (building the corpus
// takes minutes; ASKY_BENCH_CACHE=dir keeps it between runs).
func BenchmarkQuery10k(b *testing.B)  { benchmarkQueries(b, 10000) }
func BenchmarkQuery100k(b *testing.B) { benchmarkQueries(b, 100000) }
func BenchmarkQuery1M(b *testing.B) {
	if os.Getenv("ASKY_BENCH_1M") == "" {
		b.Skip("set ASKY_BENCH_1M=1 (and ASKY_BENCH_CACHE=dir to keep the corpus)")
	}
	benchmarkQueries(b, 1000000)
}

// BenchmarkHashV1 embeds ~1 KB chunks on one core, reusing the embedder's
// buffers as EmbedDocuments does.
func BenchmarkHashV1(b *testing.B) {
	s := newSynth(3)
	texts := make([]string, 64)
	var n int
	for i := range texts {
		texts[i] = s.text(1000)
		n += len(texts[i])
	}
	b.SetBytes(int64(n / len(texts)))
	b.ReportAllocs()
	var st hashState
	for i := 0; i < b.N; i++ {
		st.embed(texts[i%len(texts)])
	}
}

func benchInt8Scan(b *testing.B, snap *snapSet, qv [][]float32) {
	parts := codedParts(snap)
	// Map every row first, so the rows floor and the rescoring both read
	// memory rather than take page faults.
	var sink byte
	for off := 0; off < len(snap.rowsMap); off += 4096 {
		sink += snap.rowsMap[off]
	}
	_ = sink
	r := rand.New(rand.NewSource(1))
	var ratios, withRows, scans, floors []float64
	for i := 0; i < b.N; i++ {
		f := readFloor(parts)
		t0 := time.Now()
		_, st, err := snap.topKStats(scanShare{}, qv[i%len(qv)], 100, scanWorkers(int64(snap.l.count)*int64(snap.l.dim), snap.l.blocks))
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		rows := make([][]float32, st.rescored)
		for j := range rows {
			at := r.Intn(snap.l.count) * snap.l.dim * 4
			rows[j] = unsafe.Slice((*float32)(unsafe.Pointer(&snap.rowsMap[at])), snap.l.dim)
		}
		fr := readFloor(rows)
		ratios = append(ratios, float64(d)/float64(f))
		withRows = append(withRows, float64(d)/float64(f+fr))
		scans = append(scans, float64(d.Microseconds())/1000)
		floors = append(floors, float64(f.Microseconds())/1000)
	}
	b.ReportMetric(median(scans), "ms/query")
	b.ReportMetric(median(floors), "floor-ms")
	b.ReportMetric(median(ratios), "x-floor")
	b.ReportMetric(median(withRows), "x-floor-rows")
}
