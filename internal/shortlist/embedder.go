package shortlist

import (
	"context"
	"sync"
	"time"
)

// defaultSemanticFloor is the cosine from which a candidate counts as
// related to the query at all (§5.5: the same-site bonus needs semantic ≥
// 0.05, and so does the "semantic similarity" reason). 0.05 is the
// original's figure for all-MiniLM-L6-v2, whose unrelated pairs sit near
// 0; an embedder with another scale says so with RelevanceFloor.
const defaultSemanticFloor = 0.05

// relevanceFloorer is implemented by embedders whose cosines are not on
// a transformer's scale (the builtin static embedder: unrelated pages
// score 0.2 there, not 0).
type relevanceFloorer interface{ RelevanceFloor() float64 }

// semanticFloor is e's relevance floor, or the §5.5 default.
func semanticFloor(e Embedder) float64 {
	if f, ok := e.(relevanceFloorer); ok && f.RelevanceFloor() > 0 {
		return f.RelevanceFloor()
	}
	return defaultSemanticFloor
}

// fallbackReserve is the end of the scoring time kept for the fallback
// embedder when the configured one fails: the builtin loads in about
// 30 ms and embeds 40 candidates in a few more, so a provider that hangs
// until the budget still leaves it time.
const fallbackReserve = 300 * time.Millisecond

// Lazy returns an Embedder that calls load the first time it embeds, so a
// run that scores nothing (the shortlist is off, or no page was fetched)
// never loads a model or builds a client. A load error is returned by
// every embedding call, which makes the shortlist fall back or rank by
// keyphrases, naming the error in Result.Failures.
func Lazy(load func() (Embedder, error)) Embedder {
	return &lazyEmbedder{load: sync.OnceValues(load)}
}

type lazyEmbedder struct {
	load func() (Embedder, error)
}

func (l *lazyEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	e, err := l.load()
	if err != nil {
		return nil, err
	}
	return e.EmbedDocuments(ctx, texts)
}

func (l *lazyEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	e, err := l.load()
	if err != nil {
		return nil, err
	}
	return e.EmbedQuery(ctx, text)
}

// RelevanceFloor is the loaded embedder's floor. It is only asked after
// an embedding succeeded, so it never loads the model itself.
func (l *lazyEmbedder) RelevanceFloor() float64 {
	e, err := l.load()
	if err != nil {
		return defaultSemanticFloor
	}
	return semanticFloor(e)
}
