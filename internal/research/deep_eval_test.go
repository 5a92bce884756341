//go:build deepeval

// The measurement behind the deep tier's fusion (make eval-deep): it
// needs the shared eval set and a real deep embedder behind an
// OpenAI-compatible /v1/embeddings server (serve.py), so it is compiled
// only with -tags deepeval and never runs in make test.
//
//	DEEP_EVAL_DIR=/work/shared/eval DEEP_URL=http://127.0.0.1:18137/v1 \
//	  go test -tags deepeval -run TestDeepEval -v ./internal/research
//
// DEEP_URL=builtin uses the compiled-in minilm-l6 as the deep embedder.
package research

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/store"
)

type evalSet struct {
	name    string
	sources []int64
	qs      []EvalQuery
}

// qdata is everything one query's fusions are computed from.
type qdata struct {
	q      EvalQuery
	lex    []store.FTSHit
	static []Scored
	deep   []Scored // full scan of the deep space
	exact  map[int64]int
	terms  queryTerms
	cosS   map[int64]float64 // static cosine of every candidate
	cosD   map[int64]float64 // deep cosine of every candidate
}

func TestDeepEval(t *testing.T) {
	dir, url := os.Getenv("DEEP_EVAL_DIR"), os.Getenv("DEEP_URL")
	if dir == "" || url == "" {
		t.Fatal("set DEEP_EVAL_DIR and DEEP_URL")
	}
	ctx := context.Background()
	// DEEP_EVAL_DB keeps the store between runs (the pass resumes: a
	// second run embeds nothing).
	db := os.Getenv("DEEP_EVAL_DB")
	if db == "" {
		db = filepath.Join(t.TempDir(), "asky.db")
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, err := NewBuiltinStatic()
	if err != nil {
		t.Fatal(err)
	}
	// DEEP_URL=builtin measures the compiled-in minilm-l6 instead.
	var deepEmb Embedder = TransformerEmbedder{}
	if url != "builtin" {
		deepEmb, err = NewEmbedder(config.Embedding{Provider: "openai", Model: "all-minilm-l6-v2", BaseURL: url, BatchSize: 32}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	ix := &Index{St: st, Emb: emb, DenseWeight: 0.75, LexicalWeight: 0.25, Deep: NewDeepTier(st, deepEmb, "")}
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 256, Overlap: 48}}
	var sets []evalSet
	var args []string
	for _, c := range []string{"go-docs", "licenses"} {
		args = append(args, filepath.Join(dir, "corpus", c))
	}
	targets, _ := in.Collect(args)
	var bytes int64
	for _, tg := range targets {
		bytes += tg.Size
	}
	start := time.Now()
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ingest (static): %d files, %.2f MB in %s\n", len(targets), float64(bytes)/1e6, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	n, err := ix.FillDeep(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("deep pass (%s): %d chunks in %s\n", deepEmb.Spec().Model, n, time.Since(start).Round(time.Millisecond))
	for _, c := range []string{"go-docs", "licenses"} {
		srcs, err := ResolveSources(ctx, st, filepath.Join(dir, "corpus", c))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "queries-"+c+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		qs, err := ReadEvalQueries(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, evalSet{name: c, sources: srcs, qs: qs})
	}
	const pool = 50
	data := map[string][]qdata{}
	dfp, ddim := ix.Deep.Fingerprint(), ix.Deep.Spec().Dim
	for _, s := range sets {
		dids, dflat, err := st.CorpusVectors(ctx, dfp, ddim, s.sources)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range s.qs {
			var d qdata
			d.q = q
			var td termDocs
			if d.terms, td, err = ix.weighQuery(ctx, q.Query); err != nil {
				t.Fatal(err)
			}
			if d.lex, err = ix.lexicalSearch(ctx, q.Query, td, s.sources, pool); err != nil {
				t.Fatal(err)
			}
			if d.static, err = ix.embedAndScan(ctx, q.Query, s.sources, pool); err != nil {
				t.Fatal(err)
			}
			if d.exact, err = ix.exactHits(ctx, q.Query, s.sources); err != nil {
				t.Fatal(err)
			}
			qv, err := deepEmb.EmbedQuery(ctx, q.Query)
			if err != nil {
				t.Fatal(err)
			}
			d.deep = FlatTopK(dids, dflat, ddim, qv, len(dids))
			d.cosD = map[int64]float64{}
			for _, x := range d.deep {
				d.cosD[x.ID] = x.Score
			}
			sv, _ := emb.EmbedQuery(ctx, q.Query)
			sids, sflat, err := st.CorpusVectors(ctx, ix.fp, ix.spec.Dim, s.sources)
			if err != nil {
				t.Fatal(err)
			}
			normalize(sv)
			d.cosS = map[int64]float64{}
			for _, x := range FlatTopK(sids, sflat, ix.spec.Dim, sv, len(sids)) {
				d.cosS[x.ID] = x.Score
			}
			data[s.name] = append(data[s.name], d)
		}
	}
	// Sanity: the production search gives today's figure.
	for _, s := range sets {
		rep, err := Evaluate(ctx, &Index{St: st, Emb: emb, DenseWeight: 0.75, LexicalWeight: 0.25}, s.qs, SearchOptions{TopK: 5, Sources: s.sources})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("production static hybrid, %s: %d/%d\n", s.name, rep.Hits, rep.Queries)
		rep, err = Evaluate(ctx, ix, s.qs, SearchOptions{TopK: 5, Sources: s.sources})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("production with the deep tier, %s: %d/%d\n", s.name, rep.Hits, rep.Queries)
	}
	type variant struct {
		name  string
		score func(d qdata) map[int64]float64
	}
	rrf := func(m map[int64]float64, ids []int64, w float64) {
		for r, id := range ids {
			m[id] += w / float64(rrfK+r+1)
		}
	}
	lexIDs := func(d qdata) []int64 {
		out := make([]int64, len(d.lex))
		for i, h := range d.lex {
			out[i] = h.ChunkID
		}
		return out
	}
	ids := func(xs []Scored, n int) []int64 {
		var out []int64
		for i, x := range xs {
			if i >= n {
				break
			}
			out = append(out, x.ID)
		}
		return out
	}
	// poolRank ranks the first-stage pool (lexical ∪ static top 50) by
	// deep cosine: the rerank form, which reads only those vectors.
	poolRank := func(d qdata) []int64 {
		seen := map[int64]bool{}
		var p []Scored
		for _, id := range append(lexIDs(d), ids(d.static, pool)...) {
			if !seen[id] {
				seen[id] = true
				p = append(p, Scored{ID: id, Score: d.cosD[id]})
			}
		}
		sort.SliceStable(p, func(i, j int) bool { return p[i].Score > p[j].Score })
		return ids(p, len(p))
	}
	bm25n := func(d qdata) map[int64]float64 {
		m := map[int64]float64{}
		best := 0.0
		for _, h := range d.lex {
			best = math.Max(best, math.Abs(h.BM25))
		}
		for _, h := range d.lex {
			if best > 0 {
				m[h.ChunkID] = math.Abs(h.BM25) / best
			}
		}
		return m
	}
	var vs []variant
	vs = append(vs, variant{"RRF lex.25 static.75 (today)", func(d qdata) map[int64]float64 {
		m := map[int64]float64{}
		rrf(m, lexIDs(d), 0.25)
		rrf(m, ids(d.static, pool), 0.75)
		return m
	}})
	for _, w := range [][2]float64{{0.15, 0.85}, {0.1, 0.9}} {
		vs = append(vs, variant{fmt.Sprintf("RRF lex%.2f static%.2f", w[0], w[1]), func(d qdata) map[int64]float64 {
			m := map[int64]float64{}
			rrf(m, lexIDs(d), w[0])
			rrf(m, ids(d.static, pool), w[1])
			return m
		}})
	}
	for _, w := range [][2]float64{{0.25, 0.75}, {0.5, 0.5}, {0.2, 0.8}, {0.15, 0.85}, {0.1, 0.9}} {
		vs = append(vs, variant{fmt.Sprintf("(c) RRF lex%.2f deep%.2f", w[0], w[1]), func(d qdata) map[int64]float64 {
			m := map[int64]float64{}
			rrf(m, lexIDs(d), w[0])
			rrf(m, ids(d.deep, pool), w[1])
			return m
		}})
	}
	grid := [][3]float64{{0.25, 0.375, 0.375}, {0.25, 0.25, 0.5}, {0.25, 0.5, 0.25}, {0.2, 0.2, 0.6}, {0.15, 0.25, 0.6}, {0.34, 0.33, 0.33}, {0.3, 0.2, 0.5}, {0.15, 0.15, 0.7}, {0.1, 0.2, 0.7}}
	for _, w := range grid {
		vs = append(vs, variant{fmt.Sprintf("(a) RRF lex%.2f static%.2f deep%.2f (full scan)", w[0], w[1], w[2]), func(d qdata) map[int64]float64 {
			m := map[int64]float64{}
			rrf(m, lexIDs(d), w[0])
			rrf(m, ids(d.static, pool), w[1])
			rrf(m, ids(d.deep, pool), w[2])
			return m
		}})
	}
	for _, w := range grid {
		vs = append(vs, variant{fmt.Sprintf("(b) RRF lex%.2f static%.2f deep-rerank%.2f (pool)", w[0], w[1], w[2]), func(d qdata) map[int64]float64 {
			m := map[int64]float64{}
			rrf(m, lexIDs(d), w[0])
			rrf(m, ids(d.static, pool), w[1])
			rrf(m, poolRank(d), w[2])
			return m
		}})
	}
	// Weighted scores (the original: 0.75 cosine + 0.25 normalised BM25)
	// over the first-stage pool.
	for _, w := range [][3]float64{{0.25, 0, 0.75}, {0.25, 0.375, 0.375}, {0.25, 0.25, 0.5}, {0.2, 0.2, 0.6}, {0.25, 0.75, 0}} {
		vs = append(vs, variant{fmt.Sprintf("(w) score lex%.2f static%.2f deep%.2f (pool)", w[0], w[1], w[2]), func(d qdata) map[int64]float64 {
			b := bm25n(d)
			m := map[int64]float64{}
			for _, id := range poolRank(d) {
				m[id] = w[0]*b[id] + w[1]*d.cosS[id] + w[2]*d.cosD[id]
			}
			return m
		}})
	}
	fmt.Printf("\n%-62s %8s %8s %8s\n", "fusion", "go-docs", "licenses", "pooled")
	for _, v := range vs {
		var cells []string
		hits, total := 0, 0
		for _, s := range sets {
			h := 0
			for _, d := range data[s.name] {
				m := v.score(d)
				var ord []Scored
				for id, sc := range m {
					ord = append(ord, Scored{ID: id, Score: sc})
				}
				sort.Slice(ord, func(i, j int) bool {
					if ord[i].Score != ord[j].Score {
						return ord[i].Score > ord[j].Score
					}
					return ord[i].ID < ord[j].ID
				})
				// fuse dedups and puts exact matches first, as in production.
				out, _, err := ix.fuse(ctx, nil, ord, nil, d.exact, fuseWeights{dense: 1}, d.terms, SearchOptions{TopK: 5})
				if err != nil {
					t.Fatal(err)
				}
				if goldIn(out, d.q) {
					h++
				}
			}
			cells = append(cells, fmt.Sprintf("%d/%d", h, len(data[s.name])))
			hits += h
			total += len(data[s.name])
		}
		fmt.Printf("%-62s %8s %8s %8.3f\n", v.name, cells[0], cells[1], float64(hits)/float64(total))
	}
}

func goldIn(hits []Hit, q EvalQuery) bool {
	for _, h := range hits {
		text := NormalizeForMatch(h.Text)
		for _, g := range q.GoldAny {
			if strings.Contains(text, NormalizeForMatch(g)) {
				return true
			}
		}
	}
	return false
}
