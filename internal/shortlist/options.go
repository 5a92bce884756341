package shortlist

import (
	"time"

	"github.com/askygo/asky/internal/config"
)

// Options tune a run; FromConfig maps [research.source_shortlist] onto
// them and Defaults is the same with the defaults. A zero count or budget
// means its default.
type Options struct {
	SearchWithSeedURLs bool
	SeedLinkExpansion  bool
	SeedLinkMaxPages   int
	SeedLinksPerPage   int
	SearchResultCount  int
	MaxCandidates      int
	MaxFetchURLs       int
	TopK               int
	MinContentChars    int
	MaxScoringChars    int
	SnippetChars       int
	DocLeadChars       int
	QueryFallbackChars int
	// KeyphraseMinQueryChars: shorter queries are searched verbatim.
	KeyphraseMinQueryChars int
	KeyphraseTopK          int
	SearchPhraseCount      int
	ShortTextThreshold     int
	SameDomainBonus        float64
	OverlapBonusWeight     float64
	ShortTextPenalty       float64
	NoisePathPenalty       float64
	CorpusLeadChars        int
	CorpusMaxKeyphrases    int
	CorpusMaxQueryTitles   int
	// Budget bounds the whole run (budget_seconds).
	Budget time.Duration
}

// FromConfig maps the config table onto Options.
func FromConfig(c config.SourceShortlist) Options {
	return Options{
		SearchWithSeedURLs: c.SearchWithSeedURLs, SeedLinkExpansion: c.SeedLinkExpansionEnabled,
		SeedLinkMaxPages: c.SeedLinkMaxPages, SeedLinksPerPage: c.SeedLinksPerPage,
		SearchResultCount: c.SearchResultCount, MaxCandidates: c.MaxCandidates, MaxFetchURLs: c.MaxFetchURLs,
		TopK: c.TopK, MinContentChars: c.MinContentChars, MaxScoringChars: c.MaxScoringChars,
		SnippetChars: c.SnippetChars, DocLeadChars: c.DocLeadChars, QueryFallbackChars: c.QueryFallbackChars,
		KeyphraseMinQueryChars: c.KeyphraseMinQueryChars, KeyphraseTopK: c.KeyphraseTopK,
		SearchPhraseCount: c.SearchPhraseCount, ShortTextThreshold: c.ShortTextThreshold,
		SameDomainBonus: c.SameDomainBonus, OverlapBonusWeight: c.OverlapBonusWeight,
		ShortTextPenalty: c.ShortTextPenalty, NoisePathPenalty: c.NoisePathPenalty,
		CorpusLeadChars: c.CorpusLeadChars, CorpusMaxKeyphrases: c.CorpusMaxKeyphrases,
		CorpusMaxQueryTitles: c.CorpusMaxQueryTitles,
		Budget:               time.Duration(c.BudgetSeconds * float64(time.Second)),
	}
}

// Defaults are the options of an empty config.
func Defaults() Options { return FromConfig(config.DefaultSourceShortlist()) }
