package config

import "fmt"

// SourceShortlist is [research.source_shortlist]: the pre-LLM source
// shortlist (internal/shortlist). Key names and defaults follow the
// original asky, except enable_standard_mode, whose code default (false)
// is kept over the bundled file's true: a plain question should not pay
// for a web search and twenty page fetches unless the user asks for it
// (--shortlist on, a preset, general.shortlist_enabled or this key).
type SourceShortlist struct {
	Enabled            bool `toml:"enabled"`
	EnableResearchMode bool `toml:"enable_research_mode"`
	EnableStandardMode bool `toml:"enable_standard_mode"`
	// SearchWithSeedURLs also runs the web search when the prompt names
	// URLs (by default the named URLs and their links are the sources).
	SearchWithSeedURLs       bool `toml:"search_with_seed_urls"`
	SeedLinkExpansionEnabled bool `toml:"seed_link_expansion_enabled"`
	SeedLinkMaxPages         int  `toml:"seed_link_max_pages"`
	SeedLinksPerPage         int  `toml:"seed_links_per_page"`
	SearchResultCount        int  `toml:"search_result_count"`
	MaxCandidates            int  `toml:"max_candidates"`
	MaxFetchURLs             int  `toml:"max_fetch_urls"`
	TopK                     int  `toml:"top_k"`
	MinContentChars          int  `toml:"min_content_chars"`
	MaxScoringChars          int  `toml:"max_scoring_chars"`
	SnippetChars             int  `toml:"snippet_chars"`
	DocLeadChars             int  `toml:"doc_lead_chars"`
	QueryFallbackChars       int  `toml:"query_fallback_chars"`
	KeyphraseMinQueryChars   int  `toml:"keyphrase_min_query_chars"`
	KeyphraseTopK            int  `toml:"keyphrase_top_k"`
	SearchPhraseCount        int  `toml:"search_phrase_count"`
	ShortTextThreshold       int  `toml:"short_text_threshold"`

	SameDomainBonus    float64 `toml:"same_domain_bonus"`
	OverlapBonusWeight float64 `toml:"overlap_bonus_weight"`
	ShortTextPenalty   float64 `toml:"short_text_penalty"`
	NoisePathPenalty   float64 `toml:"noise_path_penalty"`

	CorpusLeadChars      int `toml:"corpus_lead_chars"`
	CorpusMaxKeyphrases  int `toml:"corpus_max_keyphrases"`
	CorpusMaxQueryTitles int `toml:"corpus_max_query_titles"`

	// BudgetSeconds bounds the whole shortlist stage (search, fetch,
	// scoring): the first model call is never delayed by more. New in
	// this port; the original fetched serially without a bound. The
	// default, 6 s, fits a search (1–2 s, capped at 40% of the budget)
	// followed by one concurrent wave of page fetches, which ends with
	// the slowest page (ordinary pages answer in 0.3–3 s); a hung host
	// or provider costs at most that before the model starts.
	BudgetSeconds float64 `toml:"budget_seconds"`

	// The bundled file of the original puts the query-expansion keys
	// here while its code reads them from [research]; both places are
	// honoured (a set value here wins).
	QueryExpansionEnabled *bool  `toml:"query_expansion_enabled,omitempty"`
	QueryExpansionMode    string `toml:"query_expansion_mode,omitempty"`
	MaxSubQueries         int    `toml:"max_sub_queries,omitzero"`
}

// DefaultSourceShortlist is the [research.source_shortlist] default.
func DefaultSourceShortlist() SourceShortlist {
	return SourceShortlist{
		Enabled: true, EnableResearchMode: true, EnableStandardMode: false,
		SeedLinkExpansionEnabled: true, SeedLinkMaxPages: 3, SeedLinksPerPage: 50,
		SearchResultCount: 40, MaxCandidates: 40, MaxFetchURLs: 20, TopK: 8,
		MinContentChars: 300, MaxScoringChars: 5000, SnippetChars: 700, DocLeadChars: 1400,
		QueryFallbackChars: 600, KeyphraseMinQueryChars: 220, KeyphraseTopK: 20, SearchPhraseCount: 5,
		ShortTextThreshold: 700, SameDomainBonus: 0.05, OverlapBonusWeight: 0.10,
		ShortTextPenalty: 0.10, NoisePathPenalty: 0.15,
		CorpusLeadChars: 4000, CorpusMaxKeyphrases: 15, CorpusMaxQueryTitles: 3,
		BudgetSeconds: 6,
	}
}

// validate rejects negative counts and weights, an unknown expansion
// mode and a budget outside (0, 120] seconds.
func (s SourceShortlist) validate() (key, msg string) {
	ints := []struct {
		k string
		v int
	}{
		{"seed_link_max_pages", s.SeedLinkMaxPages}, {"seed_links_per_page", s.SeedLinksPerPage},
		{"search_result_count", s.SearchResultCount}, {"max_candidates", s.MaxCandidates},
		{"max_fetch_urls", s.MaxFetchURLs}, {"top_k", s.TopK}, {"min_content_chars", s.MinContentChars},
		{"max_scoring_chars", s.MaxScoringChars}, {"snippet_chars", s.SnippetChars},
		{"doc_lead_chars", s.DocLeadChars}, {"query_fallback_chars", s.QueryFallbackChars},
		{"keyphrase_min_query_chars", s.KeyphraseMinQueryChars}, {"keyphrase_top_k", s.KeyphraseTopK},
		{"search_phrase_count", s.SearchPhraseCount}, {"short_text_threshold", s.ShortTextThreshold},
		{"corpus_lead_chars", s.CorpusLeadChars}, {"corpus_max_keyphrases", s.CorpusMaxKeyphrases},
		{"corpus_max_query_titles", s.CorpusMaxQueryTitles}, {"max_sub_queries", s.MaxSubQueries},
	}
	for _, i := range ints {
		if i.v < 0 {
			return i.k, fmt.Sprintf("must not be negative, got %d", i.v)
		}
	}
	floats := []struct {
		k string
		v float64
	}{
		{"same_domain_bonus", s.SameDomainBonus}, {"overlap_bonus_weight", s.OverlapBonusWeight},
		{"short_text_penalty", s.ShortTextPenalty}, {"noise_path_penalty", s.NoisePathPenalty},
	}
	for _, f := range floats {
		if f.v < 0 {
			return f.k, fmt.Sprintf("must not be negative, got %g", f.v)
		}
	}
	if s.BudgetSeconds <= 0 || s.BudgetSeconds > 120 {
		return "budget_seconds", fmt.Sprintf("must be between 0 and 120 seconds, got %g", s.BudgetSeconds)
	}
	switch s.QueryExpansionMode {
	case "", "deterministic", "llm":
	default:
		return "query_expansion_mode", fmt.Sprintf("must be \"deterministic\" or \"llm\", got %q", s.QueryExpansionMode)
	}
	return "", ""
}

// QueryClassification is the top-level [query_classification] table (the
// original's bundled file puts it there; its code read
// research.query_classification and so always used the defaults).
type QueryClassification struct {
	Enabled                     bool `toml:"enabled"`
	OneShotDocumentThreshold    int  `toml:"one_shot_document_threshold"`
	AggressiveMode              bool `toml:"aggressive_mode"`
	AggressiveDocumentThreshold int  `toml:"aggressive_document_threshold"`
	ForceResearchMode           bool `toml:"force_research_mode"`
}

// DefaultQueryClassification is the [query_classification] default.
func DefaultQueryClassification() QueryClassification {
	return QueryClassification{Enabled: true, OneShotDocumentThreshold: 10, AggressiveDocumentThreshold: 20}
}

func (q QueryClassification) validate() (key, msg string) {
	if q.OneShotDocumentThreshold < 0 {
		return "one_shot_document_threshold", fmt.Sprintf("must not be negative, got %d", q.OneShotDocumentThreshold)
	}
	if q.AggressiveDocumentThreshold < 0 {
		return "aggressive_document_threshold", fmt.Sprintf("must not be negative, got %d", q.AggressiveDocumentThreshold)
	}
	return "", ""
}

// QueryExpansion resolves the research query-expansion settings: a value
// set in [research.source_shortlist] (where the original's bundled file
// writes them) wins over [research] (where its code reads them), then
// the defaults: enabled, "deterministic", 4 sub-queries.
func (r Research) QueryExpansion() (enabled bool, mode string, maxSubQueries int) {
	enabled, mode, maxSubQueries = true, "deterministic", 4
	s := r.SourceShortlist
	if v := s.QueryExpansionEnabled; v != nil {
		enabled = *v
	} else if v := r.QueryExpansionEnabled; v != nil {
		enabled = *v
	}
	if s.QueryExpansionMode != "" {
		mode = s.QueryExpansionMode
	} else if r.QueryExpansionMode != "" {
		mode = r.QueryExpansionMode
	}
	if s.MaxSubQueries > 0 {
		maxSubQueries = s.MaxSubQueries
	} else if r.MaxSubQueries > 0 {
		maxSubQueries = r.MaxSubQueries
	}
	return enabled, mode, maxSubQueries
}
