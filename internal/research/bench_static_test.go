package research

import (
	"context"
	"testing"
)

// The builtin static embedder (the default) at ingest and at query time:
// the issue-13 targets are ≥ 5 MB/s ingest and ≤ 100 ms per hybrid query
// at 100k chunks.
func BenchmarkIngestStatic(b *testing.B) { benchmarkIngest(b, benchStatic(b)) }

func BenchmarkQueryStatic100k(b *testing.B) {
	ix := benchIndexWith(b, 100000, benchStatic(b))
	qs := benchQueries(newSynth(100000))
	ctx := context.Background()
	if _, err := ix.Search(ctx, qs[0], SearchOptions{TopK: 10}); err != nil { // load vectors
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Search(ctx, qs[i%len(qs)], SearchOptions{TopK: 10}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/query")
}

func benchStatic(b *testing.B) *StaticEmbedder {
	s, err := NewBuiltinStatic()
	if err != nil {
		b.Fatal(err)
	}
	return s
}
