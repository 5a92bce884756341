package research

// RelevanceFloor is the static embedder's cosine from which a text counts
// as related to a query at all. Its scale is compressed against a
// transformer's: on 12 synthetic query/page pairs (internal/shortlist's
// calibration test) related pages score 0.34–0.51 and unrelated ones 0.20
// at the median, 0.25 at the 70th percentile, 0.30 at the 90th, so the
// shortlist's 0.05 (the original's MiniLM figure) would call every page
// related. 0.25 sits at the same percentile of unrelated pairs as 0.05
// does for hash-v1 on those pages, below every related pair, and equals
// the memory recall floor.
func (*StaticEmbedder) RelevanceFloor() float64 { return staticRecallFloor }
