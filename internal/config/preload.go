package config

import "fmt"

// The [research] keys of the pre-LLM pipeline besides the shortlist
// (asky-behavior.md §5.6, §5.9): query_expansion_enabled (default on; the
// shortlist table may override it), query_expansion_mode "deterministic"
// (keyphrases) or "llm" (one call to the summarization model, falling back
// to deterministic), max_sub_queries (4), evidence_extraction_enabled
// (off) and evidence_extraction_max_chunks (10, also the cap: each chunk
// is one model call before the answer starts).

// ExpansionEnabled resolves query_expansion_enabled: the shortlist table
// wins when set there, then [research], then the default (on).
func (r Research) ExpansionEnabled() bool {
	if v := r.SourceShortlist.QueryExpansionEnabled; v != nil {
		return *v
	}
	if v := r.QueryExpansionEnabled; v != nil {
		return *v
	}
	return true
}

// ExpansionMode resolves query_expansion_mode the same way.
func (r Research) ExpansionMode() string {
	if m := r.SourceShortlist.QueryExpansionMode; m != "" {
		return m
	}
	if r.QueryExpansionMode != "" {
		return r.QueryExpansionMode
	}
	return "deterministic"
}

// SubQueryLimit resolves max_sub_queries (default 4).
func (r Research) SubQueryLimit() int {
	if n := r.SourceShortlist.MaxSubQueries; n > 0 {
		return n
	}
	if r.MaxSubQueries > 0 {
		return r.MaxSubQueries
	}
	return 4
}

// EvidenceChunks resolves evidence_extraction_max_chunks (default 10,
// never more: each chunk is one model call before the answer starts).
func (r Research) EvidenceChunks() int {
	if n := r.EvidenceExtractionMaxChunks; n > 0 && n < 10 {
		return n
	}
	return 10
}

func (p Research) validatePreload() (key, msg string) {
	switch p.QueryExpansionMode {
	case "", "deterministic", "llm":
	default:
		return "query_expansion_mode", fmt.Sprintf("must be \"deterministic\" or \"llm\", got %q", p.QueryExpansionMode)
	}
	if p.MaxSubQueries < 0 {
		return "max_sub_queries", fmt.Sprintf("must not be negative, got %d", p.MaxSubQueries)
	}
	if p.EvidenceExtractionMaxChunks < 0 || p.EvidenceExtractionMaxChunks > 10 {
		return "evidence_extraction_max_chunks", fmt.Sprintf("must be between 0 and 10, got %d", p.EvidenceExtractionMaxChunks)
	}
	return "", ""
}
