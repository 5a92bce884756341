package research

import (
	"context"
	"testing"
	"time"
)

// foldedHash stands in for a deep model in benchmarks: hash-v1's vector
// folded to the transformer's 384 dimensions. It costs microseconds, so
// a 100k-chunk deep tier fills in seconds; what the benchmark measures is
// the query's cost of the deep side (its scan and the three-way fusion),
// not the model. The transformer's own query encoding is measured by
// minilm's BenchmarkEncodeQuery (≈6 ms) and adds to these figures.
type foldedHash struct{}

const foldedDim = 384

func (foldedHash) Spec() Spec {
	return Spec{Provider: "bench", Model: "folded-hash", Dim: foldedDim, Normalized: true}
}

func (foldedHash) fold(text string) []float32 {
	v := HashV1Vector(text)
	out := make([]float32, foldedDim)
	for i, x := range v {
		out[i%foldedDim] += x
	}
	normalize(out)
	return out
}

func (f foldedHash) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.fold(t)
	}
	return out, nil
}

func (f foldedHash) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return f.fold(text), nil
}

// BenchmarkQueryDeep100k is the hybrid query at 100k chunks with a full
// deep tier (384-d) beside the same query without it (issue 13's goal:
// ≤ 100 ms in process).
func BenchmarkQueryDeep100k(b *testing.B) {
	base := benchIndex(b, 100000)
	ctx := context.Background()
	ix := &Index{St: base.St, Emb: base.Emb, DenseWeight: base.DenseWeight, LexicalWeight: base.LexicalWeight,
		SnapshotDir: base.SnapshotDir, Deep: NewDeepTier(base.St, foldedHash{}, base.SnapshotDir)}
	if err := ix.Open(ctx); err != nil {
		b.Fatal(err)
	}
	// Refill from empty each run: the first query after a fill must map
	// the deep snapshot the fill wrote, not rebuild it from SQLite.
	if err := ix.St.DropOtherSpaces(ctx, base.Fingerprint()); err != nil {
		b.Fatal(err)
	}
	fill := time.Now()
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		b.Fatal(err)
	}
	fillMS := float64(time.Since(fill).Microseconds()) / 1000
	first := time.Now()
	if _, err := ix.Search(ctx, benchQueries(newSynth(7))[0], SearchOptions{TopK: 10}); err != nil {
		b.Fatal(err)
	}
	firstMS := float64(time.Since(first).Microseconds()) / 1000
	qs := benchQueries(newSynth(100000))
	for _, c := range []struct {
		name string
		ix   *Index
	}{{"with-deep", ix}, {"without", base}} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := c.ix.Search(ctx, qs[0], SearchOptions{TopK: 10}); err != nil { // map the snapshots
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.ix.Search(ctx, qs[i%len(qs)], SearchOptions{TopK: 10}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/query")
			if c.ix == ix {
				b.ReportMetric(fillMS, "fill-ms")
				b.ReportMetric(firstMS, "first-after-fill-ms")
			}
		})
	}
}
