package shortlist

// Keyphrases returns up to top keyphrases of text (1–3 words), best
// first, from a deterministic YAKE-style extractor.
func Keyphrases(text string, top int) []string { return nil }

// ExpandQuery splits a research query into sub-queries (§5.6): the
// original query first, then keyphrases grouped by three, at most
// maxSubQueries in all. Queries under 30 characters are not expanded.
func ExpandQuery(q string, maxSubQueries int) []string { return []string{q} }
