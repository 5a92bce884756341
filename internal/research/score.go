package research

import (
	"context"
	"math"
	"slices"
	"strings"
)

// Scores that mean something. The fused rank (reciprocal rank fusion)
// orders results well but says nothing about whether any of them answers
// the query: the best of a nonsense query is still first. So every hit
// also carries absolute components, comparable across queries:
//
//   - Lexical: the share of the query's content words (stopwords aside,
//     plurals and -ing/-ed folded) that appear in the chunk, its title or
//     section, each word weighted by its rarity in the corpus (BM25 idf).
//     A word the corpus never contains weighs the most, so a query about
//     something absent scores low everywhere.
//   - Dense: the embedder's cosine similarity, clamped at 0.
//
// Relevance is their weighted mean (the index's dense/lexical weights);
// it is the number shown and the one a relevance floor applies to.

// queryTerms are a query's content words with their idf weights.
type queryTerms struct {
	stems   []string
	weights []float64
	total   float64
}

// newQueryTerms weighs terms (as QueryTerms returns them) with the corpus
// document frequencies df over total chunks.
func newQueryTerms(terms []string, df map[string]int, total int) queryTerms {
	var q queryTerms
	seen := map[string]bool{}
	for _, t := range terms {
		s := stem(t)
		if seen[s] || IsStopword(t) {
			continue
		}
		seen[s] = true
		// The vocabulary is not stemmed: count the commoner form.
		n := float64(max(df[t], df[s]))
		w := math.Log(1 + (float64(total)-n+0.5)/(n+0.5))
		q.stems = append(q.stems, s)
		q.weights = append(q.weights, w)
		q.total += w
	}
	return q
}

// coverage is the idf-weighted share of the query's words found in texts.
func (q queryTerms) coverage(texts ...string) float64 {
	if q.total == 0 {
		return 0
	}
	have := map[string]bool{}
	var tz tokenizer
	for _, s := range texts {
		tz.each(s, func(t []byte) { have[stem(string(t))] = true })
	}
	var got float64
	for i, s := range q.stems {
		if have[s] {
			got += q.weights[i]
		}
	}
	return got / q.total
}

// stem folds the commonest English inflections so "sessions" matches
// "session" and "ingesting" matches "ingest"; it is deliberately crude and
// only used to compare words, never shown.
func stem(w string) string {
	switch n := len(w); {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		return w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		return w[:n-2]
	case n > 4 && strings.HasSuffix(w, "es") && strings.ContainsAny(w[n-3:n-2], "sxz"):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:n-1]
	}
	return w
}

// termDocs holds the document frequencies of a query's terms and their
// stems, and the chunk count, read once per query: the lookup walks each
// term's whole doclist (tens of milliseconds at a million chunks), and
// both the keyword query and the weighing need it.
type termDocs struct {
	df    map[string]int
	total int
}

// weighQuery looks up the document frequencies of the query's terms (and
// their stems) and weighs the terms.
func (ix *Index) weighQuery(ctx context.Context, query string) (queryTerms, termDocs, error) {
	terms := QueryTerms(query)
	lookup := slices.Clone(terms)
	for _, t := range terms {
		if s := stem(t); s != t {
			lookup = append(lookup, s)
		}
	}
	df, total, err := ix.St.CorpusTermDocs(ctx, lookup)
	if err != nil {
		return queryTerms{}, termDocs{}, err
	}
	return newQueryTerms(terms, df, total), termDocs{df: df, total: total}, nil
}
