package research

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReplaceDeep100k re-ingests a changed document (about 130
// chunks) whose chunks all have deep vectors, in a 100k-chunk corpus
// with a full deep tier (384-d) beside the main space (512-d): the
// ingest keeps both snapshots current (the old rows patched out, the new
// ones appended; before, it rewrote both from SQLite), then a new
// process runs its first query. Each iteration reports the ingest and
// that query; the deep pass over the new chunks, which makes the next
// iteration's replace drop deep vectors again, is not timed.
func BenchmarkReplaceDeep100k(b *testing.B) {
	base := benchIndex(b, 100000)
	ctx := context.Background()
	fresh := func() *Index { return withFoldedDeep(base) }
	path := filepath.Join(b.TempDir(), "replaced.md")
	s := newSynth(13)
	chunks := 0
	ingest := func() {
		ix := fresh()
		defer ix.Close()
		if err := os.WriteFile(path, []byte("# Replaced\n\n"+s.text(200000)), 0o600); err != nil {
			b.Fatal(err)
		}
		in := &Ingester{Index: ix, Chunker: Chunker{Size: 400}}
		targets, err := in.Collect([]string{path})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := in.Ingest(ctx, targets); err != nil || res[0].Status != StatusIngested {
			b.Fatalf("%+v, %v", res, err)
		} else {
			chunks = res[0].Chunks
		}
	}
	fill := func() {
		ix := fresh()
		defer ix.Close()
		if _, err := ix.FillDeep(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	ingest()
	fill()
	var ingestMS, firstMS []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		ingest()
		ingestMS = append(ingestMS, float64(time.Since(t0).Microseconds())/1000)
		firstMS = append(firstMS, firstQueryMS(b, fresh(), benchQueries(s)[0]))
		b.StopTimer()
		fill()
		b.StartTimer()
	}
	b.ReportMetric(median(ingestMS), "ingest-ms")
	b.ReportMetric(median(firstMS), "first-query-ms")
	b.ReportMetric(float64(chunks), "doc-chunks")
}

// firstQueryMS runs q as the first query of ix (a new process) and
// returns how long it took; ix is closed.
func firstQueryMS(b *testing.B, ix *Index, q string) float64 {
	b.Helper()
	defer ix.Close()
	t0 := time.Now()
	if _, err := ix.Search(context.Background(), q, SearchOptions{TopK: 10}); err != nil {
		b.Fatal(err)
	}
	return float64(time.Since(t0).Microseconds()) / 1000
}
