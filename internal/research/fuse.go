package research

// This file fuses the retrieval lists of one query into hits: weighted
// reciprocal-rank fusion of the keyword, dense and deep lists, the
// Relevance figure shown with each hit, and the near-duplicate filter.

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/askygo/asky/internal/store"
)

// rrfK is the reciprocal-rank-fusion constant.
const rrfK = 60

// fuse merges the keyword, dense and deep lists by weighted reciprocal
// rank, fetches the texts of a bounded prefix, scores each candidate's
// Relevance, drops near-duplicates and hits under the floor, and orders
// the top K (exact matches first). It also returns the nearest hit
// whatever the floor.
func (ix *Index) fuse(ctx context.Context, lex []store.FTSHit, dense, deep []Scored, exact map[int64]int, w fuseWeights, terms queryTerms, o SearchOptions) ([]Hit, *Hit, error) {
	// The deep list counts in the dense share of Relevance: a chunk's
	// Dense is the better of its two cosines.
	lw, dw := w.lex, w.dense+w.deep
	type cand struct {
		rrf, dense, lexical float64
	}
	cands := map[int64]*cand{}
	get := func(id int64) *cand {
		c := cands[id]
		if c == nil {
			c = &cand{}
			cands[id] = c
		}
		return c
	}
	for r, h := range lex {
		get(h.ChunkID).rrf += lw / float64(rrfK+r+1)
	}
	for r, d := range dense {
		c := get(d.ID)
		c.rrf += w.dense / float64(rrfK+r+1)
		c.dense = math.Max(0, d.Score)
	}
	for r, d := range deep {
		c := get(d.ID)
		c.rrf += w.deep / float64(rrfK+r+1)
		c.dense = math.Max(c.dense, d.Score)
	}
	for id := range exact {
		get(id) // a rare exact match ranks even outside both pools
	}
	order := make([]int64, 0, len(cands))
	for id := range cands {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
		if less, ok := exactFirst(exact, order[i], order[j]); ok {
			return less
		}
		a, b := cands[order[i]], cands[order[j]]
		if a.rrf != b.rrf {
			return a.rrf > b.rrf
		}
		return order[i] < order[j]
	})
	// Fetch texts for a bounded prefix (enough to survive dedup).
	limit := min(len(order), o.TopK*4+10)
	chunks, err := ix.St.CorpusChunks(ctx, order[:limit])
	if err != nil {
		return nil, nil, err
	}
	maxRRF := (dw + lw) / float64(rrfK+1)
	var out []Hit
	var nearest *Hit
	var kept [][]uint64
	for _, id := range order[:limit] {
		ch, ok := chunks[id]
		if !ok {
			continue
		}
		c := cands[id]
		c.lexical = terms.coverage(ch.Text, ch.Title, ch.Section)
		rel := (dw*c.dense + lw*c.lexical) / (dw + lw)
		h := Hit{ChunkID: id, SourceID: ch.SourceID, Path: ch.SourcePath, Title: ch.Title, Section: ch.Section,
			SectionID: ch.SectionID, Text: ch.Text, Score: round3(c.rrf / maxRRF), Dense: round3(c.dense), Lexical: round3(c.lexical), Relevance: round3(rel)}
		if nearest == nil {
			nearest = &h
		}
		if o.MinRelevance > 0 && rel < o.MinRelevance && exact[id] == 0 {
			continue
		}
		set := tokenSet(ch.Text)
		dup := false
		for _, k := range kept {
			if jaccard(set, k) >= 0.9 {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		kept = append(kept, set)
		out = append(out, h)
		if len(out) >= o.TopK {
			break
		}
	}
	// The fused rank chose these K; show the most relevant first, after
	// the exact matches, which lead whatever their relevance.
	sort.SliceStable(out, func(i, j int) bool {
		if less, ok := exactFirst(exact, out[i].ChunkID, out[j].ChunkID); ok {
			return less
		}
		return out[i].Relevance > out[j].Relevance
	})
	return out, nearest, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// tokenSet is the set of s's tokens as sorted 64-bit hashes: comparing
// two sets is then a merge, with no per-token strings or maps (this runs
// on every candidate of every query).
func tokenSet(s string) []uint64 {
	var tz tokenizer
	var hs []uint64
	tz.each(s, func(t []byte) { hs = append(hs, fnvAppend(fnvOffset64, t)) })
	slices.Sort(hs)
	return slices.Compact(hs)
}

// jaccard is |a∩b| / |a∪b| of two sorted, duplicate-free sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
