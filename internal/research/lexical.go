package research

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// prunedTermShare is the share of chunks above which a query term is
// "non-essential" for MaxScore pruning (idf below ln(19) ≈ 2.9). FTS5
// scores every row an OR query matches, so one such term makes bm25 cost
// grow with its document frequency (≈300 ms at a million chunks).
const prunedTermShare = 0.05

// bm25K1 is FTS5's bm25 k1: a term's contribution to a row's score is at
// most idf·(k1+1), however often it occurs and whatever the field weights.
const bm25K1 = 1.2

// lexicalSearch returns the top pool chunks by bm25 over the query's
// terms. When the query mixes rare and common terms it avoids scoring
// every row that holds only a common term (MaxScore): bm25 is a sum over
// terms, so a row without any rare term scores at most the sum of the
// common terms' upper bounds. It ranks the rows holding a rare term (those
// with and without a common term, each with its full score), and when the
// pool-th of them beats that bound the result is the full query's top
// pool; otherwise it runs the full query.
func (ix *Index) lexicalSearch(ctx context.Context, query string, td termDocs, sources []int64, pool int) ([]store.FTSHit, error) {
	match := lexicalMatch(query, td)
	if hits, ok, err := ix.prunedSearch(ctx, match, td.df, td.total, sources, pool, tightMinRows); ok || err != nil {
		return hits, err
	}
	return ix.St.SearchCorpusFTS(ctx, match, FieldWeights, sources, pool)
}

// commonTermShare is the share of chunks above which a term is too common
// to rank by: like a stopword for this corpus, it only slows the OR query
// down (every matching chunk is scored). Only used on corpora big enough
// for document frequencies to mean something.
const (
	commonTermShare     = 0.2
	commonTermMinChunks = 2000
)

// lexicalMatch builds the MATCH expression, dropping corpus-common terms
// (by the document frequencies td, which cover the query's terms).
func lexicalMatch(query string, td termDocs) string {
	terms := QueryTerms(query)
	if len(terms) < 2 || td.total < commonTermMinChunks {
		return BuildMatch(query)
	}
	drop := map[string]bool{}
	for _, t := range terms {
		if float64(td.df[t]) > commonTermShare*float64(td.total) {
			drop[t] = true
		}
	}
	return BuildMatchWithout(query, drop)
}

// tightTermShare is the first, tighter split tried: at a million chunks a
// term in 1–5% of them still matches tens of thousands of rows, each
// scored by bm25, while the rarer terms usually decide the top pool.
const tightTermShare = 0.01

// tightMinRows is how many rows the query's terms must match together
// before the extra proofs (the tight split, the intersection) are tried:
// below it the full query costs ~10 ms or less, about what a proof
// that fails adds (at 100k chunks trying them always made the keyword
// side up to 2× slower; at a million they halve it).
const tightMinRows = 50000

// prunedSearch is the MaxScore path of lexicalSearch; ok is false when it
// does not apply or cannot prove its result equals the full query's. It
// tries the tight split (terms in at most 1% of chunks essential) and then
// the 5% one; each proof that fails costs two or three queries over rare
// terms or intersections, against one that scores every row of the
// common terms.
// tightMin is tightMinRows (tests lower it).
func (ix *Index) prunedSearch(ctx context.Context, match string, df map[string]int, total int, sources []int64, pool, tightMin int) ([]store.FTSHit, bool, error) {
	if total < commonTermMinChunks || match == "" {
		return nil, false, nil
	}
	type term struct {
		q string
		n int
	}
	var terms []term
	rows := 0
	for _, q := range strings.Split(match, " OR ") {
		terms = append(terms, term{q, df[strings.ReplaceAll(strings.Trim(q, `"`), `""`, `"`)]})
		rows += terms[len(terms)-1].n
	}
	shares := []float64{prunedTermShare}
	if rows >= tightMin {
		shares = []float64{tightTermShare, prunedTermShare}
	}
	tried := -1
	for _, share := range shares {
		var rare, common []string
		bound, least := 0.0, math.Inf(1)
		for _, t := range terms {
			if float64(t.n) <= share*float64(total) {
				rare = append(rare, t.q)
				continue
			}
			common = append(common, t.q)
			// FTS5's idf, floored as FTS5 floors it.
			idf := math.Max(1e-6, math.Log((float64(total)-float64(t.n)+0.5)/(float64(t.n)+0.5)))
			bound += idf * (bm25K1 + 1)
			least = min(least, idf*(bm25K1+1))
		}
		if len(rare) == 0 || len(common) == 0 || len(rare) == tried {
			continue
		}
		tried = len(rare)
		c, err := ix.rareCandidates(ctx, rare, common, sources, pool)
		if err != nil {
			return nil, true, err
		}
		if hits, ok := c.top(pool, bound); ok {
			return hits, true, nil
		}
		if len(common) < 2 || rows < tightMin {
			continue
		}
		// Rows without a rare term that hold every common one are scored
		// in full by their intersection (much smaller than their union);
		// a row missing one of them scores at most the bound less the
		// least of the common terms' bounds.
		all, err := ix.St.SearchCorpusFTS(ctx, strings.Join(common, " AND "), FieldWeights, sources, pool)
		if err != nil {
			return nil, true, err
		}
		c.add(all)
		if hits, ok := c.top(pool, bound-least); ok {
			return hits, true, nil
		}
	}
	return nil, false, nil
}

// candidates are rows with their best-known bm25 (FTS5's is negative,
// lower is better): a row's score in a query over some of the terms is
// at best its full score, so the lowest seen is the full one when any
// query saw it whole.
type candidates map[int64]float64

func (c candidates) add(hs []store.FTSHit) {
	for _, h := range hs {
		if s, ok := c[h.ChunkID]; !ok || h.BM25 < s {
			c[h.ChunkID] = h.BM25
		}
	}
}

// top returns the pool best candidates when the pool-th beats bound, the
// most a row outside the candidates can score (the margin covers float
// rounding); ok is false otherwise.
func (c candidates) top(pool int, bound float64) ([]store.FTSHit, bool) {
	if len(c) < pool {
		return nil, false
	}
	hits := make([]store.FTSHit, 0, len(c))
	for id, s := range c {
		hits = append(hits, store.FTSHit{ChunkID: id, BM25: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].BM25 != hits[j].BM25 {
			return hits[i].BM25 < hits[j].BM25
		}
		return hits[i].ChunkID < hits[j].ChunkID
	})
	if -hits[pool-1].BM25 <= bound*(1+1e-9) {
		return nil, false
	}
	return hits[:pool], true
}

// rareCandidates ranks the rows holding a rare term: those without a
// common term score as in the rare query; those below its top pool cannot
// enter the result. Rows with both are scored in full by the second query
// (FTS5 bm25 sums over the phrases of the expression, each with its own
// idf).
func (ix *Index) rareCandidates(ctx context.Context, rare, common []string, sources []int64, pool int) (candidates, error) {
	rareOR := strings.Join(rare, " OR ")
	only, err := ix.St.SearchCorpusFTS(ctx, rareOR, FieldWeights, sources, pool)
	if err != nil {
		return nil, err
	}
	both, err := ix.St.SearchCorpusFTS(ctx, "("+rareOR+") AND ("+strings.Join(common, " OR ")+")", FieldWeights, sources, pool)
	if err != nil {
		return nil, err
	}
	c := make(candidates, len(only)+len(both))
	c.add(only)
	c.add(both)
	return c, nil
}
