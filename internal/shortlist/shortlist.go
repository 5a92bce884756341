// Package shortlist picks web sources before the model is called (the
// original asky's "source shortlist"): it parses URLs out of the prompt,
// extracts keyphrases, runs a bounded web search, expands seed pages into
// their links, fetches the first candidates concurrently through the
// guarded client, scores them (semantic + keyphrase overlap + bonuses −
// penalties) and renders the best ones as a context block for the user
// message. It never calls an LLM; the whole run is bounded by one budget
// so a slow host or a dead provider cannot delay the first model call.
//
// The package is a pure library: the preload core decides whether to run
// it (Decide), passes sub-queries (ExpandQuery) and corpus documents, and
// prints Result.Report (-v) and Result.ContextBlock (the user message).
//
// Timing: the budget (budget_seconds, default 6 s) covers the whole run.
// Searches run concurrently and may use 40% of it; seed pages are fetched
// while the search runs; the first max_fetch_urls candidates are then
// fetched in one concurrent wave, so the fetch stage costs about the
// slowest page rather than the sum (BenchmarkShortlistConcurrentFetch:
// 20 pages at 50–200 ms take ≈1.05× the slowest fetch). Scoring keeps a
// reserve at the end (5% of the budget, or 20% up to 1.5 s with an
// embedder, of which the last 300 ms are kept for the fallback embedder).
// Whatever is still running at a deadline is abandoned and
// named in Result.Failures as "cut by the shortlist budget".
package shortlist

import (
	"context"
	"fmt"
	"time"

	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/search"
)

// Searcher runs one web search; search.Provider satisfies it. Sub-queries
// are searched concurrently, so Search must be safe for concurrent use.
type Searcher interface {
	Search(ctx context.Context, q string, count int) ([]search.Result, error)
}

// Fetcher reads one page through the guarded client; *fetch.Fetcher
// satisfies it (and brings the page cache and per-turn budget with it).
// Pages are fetched concurrently; Get must honour ctx cancellation for
// the budget to stop work (Run itself returns on time regardless).
type Fetcher interface {
	Get(ctx context.Context, rawURL string) (*fetch.Page, error)
}

// Embedder turns text into vectors; research.Embedder satisfies it. Nil
// means no semantic score: candidates are ranked lexically. An embedder
// whose cosines are not on a transformer's scale also has a
// RelevanceFloor() float64 method (see semanticFloor).
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Source says where a candidate came from.
type Source string

const (
	SourceSeed     Source = "seed"      // a URL named in the prompt
	SourceSeedLink Source = "seed_link" // a link found on a seed page
	SourceSearch   Source = "search"    // a web search result
	SourceCorpus   Source = "corpus"    // a local corpus document (mixed mode)
)

// CorpusDoc is a local document that joins the candidates in mixed mode.
// It is scored like a fetched page and never fetched.
type CorpusDoc struct {
	// URL identifies the document in the context block (a path or a
	// corpus://cache/N reference).
	URL   string
	Title string
	Text  string
}

// Input is one shortlist run.
type Input struct {
	// Prompt is the user's text; URLs and bare domains in it become seed
	// URLs and the rest is the query.
	Prompt string
	// SubQueries replace the keyphrase search query when set (query
	// expansion ran before the shortlist). The original query is searched
	// too; see §5.5 for the 40-result budget split.
	SubQueries []string
	// Corpus documents join as candidates and enrich the search queries.
	Corpus []CorpusDoc
}

// Candidate is one scored source.
type Candidate struct {
	URL string
	// Canonical is the normalized URL used for dedupe.
	Canonical string
	Title     string
	Source    Source
	// Snippet is the page's lead (snippet_chars); Text the scoring text.
	Snippet string
	Text    string
	// Score = Semantic + Bonus − Penalty.
	Score    float64
	Semantic float64
	// Overlap is the fraction of keyphrases found in the document.
	Overlap float64
	Bonus   float64
	Penalty float64
	// Why lists up to four reasons the candidate was kept.
	Why []string
}

// Failure names a candidate or stage that failed and why.
type Failure struct {
	Stage  string // "search", "fetch", "embed"
	URL    string // empty for a search failure
	Reason string
	// Skipped is set when the stage was not tried: the embedding provider
	// failed recently and is left alone for a while (Guard).
	Skipped bool
}

// Stats counts candidates through the stages and times each stage.
type Stats struct {
	Collected, Fetched, Scored, Kept int
	Collect, Fetch, Score, Total     time.Duration
}

// Banner is the original's one-line summary, e.g. "C:31 F:18 S:14 W:8".
func (s Stats) Banner() string {
	return fmt.Sprintf("C:%d F:%d S:%d W:%d", s.Collected, s.Fetched, s.Scored, s.Kept)
}

// Result is what a run found.
type Result struct {
	Query         string
	Keyphrases    []string
	SearchQueries []string
	SeedURLs      []string
	// Candidates are the top_k candidates, best first.
	Candidates []Candidate
	Stats      Stats
	Failures   []Failure
	// TimedOut is set when the budget cut a stage short.
	TimedOut bool
}

// Event reports progress: one per finished stage.
type Event struct {
	Stage   string // "collect", "fetch", "score"
	Count   int    // candidates out of the stage
	Elapsed time.Duration
}

// Shortlister holds the dependencies of a run. Search may be nil when no
// provider is configured (seed URLs and corpus documents still work);
// Embedder may be nil (lexical ranking); a zero Options is Defaults().
type Shortlister struct {
	Search Searcher
	Fetch  Fetcher
	// Embedder is the configured corpus embedder ([research.embedding]),
	// usually wrapped in Lazy so it loads only when a run scores.
	Embedder Embedder
	// Fallback, the builtin embedder, scores when Embedder fails (a
	// provider down): the run notes the failure and ranks semantically
	// anyway. Nil when Embedder is the builtin itself.
	Fallback Embedder
	Options  Options
}
