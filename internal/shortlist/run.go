package shortlist

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/search"
)

// cand is a candidate on its way through the stages.
type cand struct {
	Candidate
	page  *fetch.Page
	order int
	// foundBy is the search query or seed host that produced it.
	foundBy string
}

// Stage shares of the budget. Search gets at most 40% so a slow provider
// still leaves time to fetch; scoring keeps a reserve at the end (larger
// with an embedder, which may be a remote call).
const (
	searchShare      = 0.4
	scoreShareLex    = 0.05
	scoreShareEmbed  = 0.2
	maxScoreReserveE = 1500 * time.Millisecond
)

// scoreReserve is the time kept at the end of the budget for scoring.
func (o Options) scoreReserve(embedded bool) time.Duration {
	if embedded {
		return min(time.Duration(float64(o.Budget)*scoreShareEmbed), maxScoreReserveE)
	}
	return time.Duration(float64(o.Budget) * scoreShareLex)
}

// Run collects, fetches and scores candidates for in. It returns what it
// has when the budget runs out, naming what failed or was cut in
// Result.Failures; the error is only for a cancelled ctx or a missing
// fetcher. progress (may be nil) gets one Event per finished stage.
func (s *Shortlister) Run(ctx context.Context, in Input, progress func(Event)) (*Result, error) {
	if s.Fetch == nil {
		return nil, errors.New("shortlist: no page fetcher configured")
	}
	o := s.Options.withDefaults()
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	emit := func(stage string, n int, d time.Duration) {
		if progress != nil {
			progress(Event{Stage: stage, Count: n, Elapsed: d})
		}
	}
	reserve := o.scoreReserve(s.Embedder != nil)
	// Each stage's cut names its own deadline: a search stopped after 2.4 s
	// must not read "cut by the shortlist budget (6s)".
	fetchDeadline := o.Budget - reserve
	searchDeadline := time.Duration(float64(o.Budget) * searchShare)
	fetchCtx, cancelFetch := context.WithTimeout(runCtx, fetchDeadline)
	defer cancelFetch()

	seeds, query := parsePrompt(in.Prompt)
	res := &Result{Query: query, SeedURLs: seeds}
	if len(query) >= o.KeyphraseMinQueryChars {
		res.Keyphrases = Keyphrases(query, o.KeyphraseTopK)
	}
	if len(res.Keyphrases) == 0 {
		res.Keyphrases = contentTokens(query)
		res.Keyphrases = res.Keyphrases[:min(len(res.Keyphrases), o.KeyphraseTopK)]
	}
	if s.Search != nil && (len(seeds) == 0 || o.SearchWithSeedURLs) {
		res.SearchQueries = o.searchQueries(query, res.Keyphrases, in.SubQueries, in.Corpus)
	}

	// Collect: the seed pages and the searches run side by side.
	var (
		wg       sync.WaitGroup
		seedGot  []fetchResult
		searched [][]search.Result
		searchEr []error
	)
	wg.Add(2)
	go func() { defer wg.Done(); seedGot = s.fetchAll(fetchCtx, seeds) }()
	go func() {
		defer wg.Done()
		sctx, c := context.WithTimeout(runCtx, searchDeadline)
		defer c()
		searched, searchEr = s.searchAll(sctx, res.SearchQueries, searchBudget(o.SearchResultCount, len(res.SearchQueries)))
	}()
	wg.Wait()
	for i, err := range searchEr {
		if err != nil {
			res.Failures = append(res.Failures, Failure{Stage: "search", Reason: fmt.Sprintf("%q: %s", res.SearchQueries[i], reason(err, searchDeadline))})
		}
	}
	cands := o.collect(res, seeds, seedGot, searched, fetchDeadline)
	res.Stats.Collected = len(cands)
	res.Stats.Collect = time.Since(start)
	emit("collect", len(cands), res.Stats.Collect)

	// Fetch: the first max_fetch_urls candidates (seeds are already in).
	fetchStart := time.Now()
	var urls []string
	var idx []int
	for i, c := range cands {
		if c.page == nil && c.Source != SourceSeed && i < o.MaxFetchURLs {
			urls = append(urls, c.URL)
			idx = append(idx, i)
		}
	}
	for k, r := range s.fetchAll(fetchCtx, urls) {
		if r.err != nil {
			res.Failures = append(res.Failures, Failure{Stage: "fetch", URL: r.url, Reason: reason(r.err, fetchDeadline)})
			continue
		}
		cands[idx[k]].page = r.page
	}
	pool := o.keepFetched(res, cands)
	for _, d := range in.Corpus {
		text := capRunes(d.Text, o.MaxScoringChars)
		pool = append(pool, &cand{Candidate: Candidate{URL: d.URL, Canonical: d.URL, Title: d.Title, Source: SourceCorpus,
			Text: text, Snippet: snippet(text, o.SnippetChars)}, order: len(cands) + len(pool)})
	}
	res.Stats.Fetch = time.Since(fetchStart)
	emit("fetch", res.Stats.Fetched, res.Stats.Fetch)

	// Score with whatever time is left (the reserve at least).
	scoreStart := time.Now()
	s.score(runCtx, o, res, pool, in.SubQueries)
	res.Stats.Scored = len(pool)
	res.Candidates = topK(pool, o.TopK)
	res.Stats.Kept = len(res.Candidates)
	res.Stats.Score = time.Since(scoreStart)
	emit("score", res.Stats.Kept, res.Stats.Score)
	res.Stats.Total = time.Since(start)
	res.TimedOut = slices.ContainsFunc(res.Failures, func(f Failure) bool { return strings.HasPrefix(f.Reason, cutPrefix) })
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// collect turns seeds, seed-page links and search hits into one deduped
// candidate list (§5.5 step 3), seeds first, capped at max_candidates.
func (o Options) collect(res *Result, seeds []string, seedGot []fetchResult, searched [][]search.Result, fetchDeadline time.Duration) []*cand {
	var out []*cand
	seen := map[string]bool{}
	add := func(c *cand) bool {
		key, err := canonical(c.URL)
		if err != nil || seen[key] {
			return false
		}
		if c.Source != SourceSeed && len(out) >= o.MaxCandidates {
			return false
		}
		seen[key] = true
		c.Canonical, c.order = key, len(out)
		out = append(out, c)
		return true
	}
	for i, u := range seeds {
		c := &cand{Candidate: Candidate{URL: u, Source: SourceSeed}}
		if r := seedGot[i]; r.err != nil {
			res.Failures = append(res.Failures, Failure{Stage: "fetch", URL: u, Reason: reason(r.err, fetchDeadline)})
		} else {
			c.page = r.page
		}
		add(c)
	}
	if o.SeedLinkExpansion {
		pages := 0
		for _, r := range seedGot {
			if r.err != nil || pages == o.SeedLinkMaxPages {
				continue
			}
			pages++
			n := 0
			for _, l := range r.page.Links {
				if n == o.SeedLinksPerPage {
					break
				}
				if keepSeedLink(l.URL) && add(&cand{Candidate: Candidate{URL: l.URL, Title: strings.TrimSpace(l.Text), Source: SourceSeedLink}, foundBy: hostOf(r.url)}) {
					n++
				}
			}
		}
	}
	for qi, hits := range searched {
		for _, h := range hits {
			add(&cand{Candidate: Candidate{URL: h.URL, Title: h.Title, Snippet: h.Snippet, Source: SourceSearch}, foundBy: res.SearchQueries[qi]})
		}
	}
	return out
}

// keepFetched keeps fetched candidates with enough text, deduped again by
// their final URL (redirects), and fills title, text and snippet.
func (o Options) keepFetched(res *Result, cands []*cand) []*cand {
	var pool []*cand
	seen := map[string]bool{}
	for _, c := range cands {
		if c.page == nil {
			continue
		}
		res.Stats.Fetched++
		text := plainText(c.page.Content)
		if n := len([]rune(text)); n < o.MinContentChars {
			res.Failures = append(res.Failures, Failure{Stage: "fetch", URL: c.URL, Reason: fmt.Sprintf("too little text (%d characters)", n)})
			continue
		}
		final := c.page.FinalURL
		if final == "" {
			final = c.URL
		}
		if key, err := canonical(final); err == nil {
			if seen[key] || (key != c.Canonical && seen[c.Canonical]) {
				continue
			}
			seen[key], seen[c.Canonical] = true, true
		}
		if t := strings.TrimSpace(c.page.Title); t != "" {
			c.Title = t
		}
		c.Text = capRunes(text, o.MaxScoringChars)
		c.Snippet = snippet(text, o.SnippetChars)
		pool = append(pool, c)
	}
	return pool
}

// fetchResult is one page fetch.
type fetchResult struct {
	url  string
	page *fetch.Page
	err  error
}

// fetchAll fetches urls concurrently and returns when all are done or
// ctx ends; a fetch still running then is reported as cut (its goroutine
// sees the cancelled context and ends on its own).
func (s *Shortlister) fetchAll(ctx context.Context, urls []string) []fetchResult {
	out := make([]fetchResult, len(urls))
	if len(urls) == 0 {
		return out
	}
	type done struct {
		i int
		r fetchResult
	}
	ch := make(chan done, len(urls))
	for i, u := range urls {
		out[i] = fetchResult{url: u, err: context.DeadlineExceeded}
		go func() {
			p, err := s.Fetch.Get(ctx, u)
			if err == nil && p == nil {
				err = errors.New("no page")
			}
			ch <- done{i, fetchResult{url: u, page: p, err: err}}
		}()
	}
	for range urls {
		select {
		case d := <-ch:
			out[d.i] = d.r
		case <-ctx.Done():
			return out
		}
	}
	return out
}

// searchAll runs the queries concurrently, each with its result budget.
func (s *Shortlister) searchAll(ctx context.Context, qs []string, counts []int) ([][]search.Result, []error) {
	hits := make([][]search.Result, len(qs))
	errs := make([]error, len(qs))
	if len(qs) == 0 {
		return hits, errs
	}
	type done struct {
		i   int
		r   []search.Result
		err error
	}
	ch := make(chan done, len(qs))
	for i, q := range qs {
		errs[i] = context.DeadlineExceeded
		go func() {
			r, err := s.Search.Search(ctx, q, counts[i])
			ch <- done{i, r, err}
		}()
	}
	for range qs {
		select {
		case d := <-ch:
			hits[d.i], errs[d.i] = d.r, d.err
			if len(hits[d.i]) > counts[d.i] {
				hits[d.i] = hits[d.i][:counts[d.i]]
			}
		case <-ctx.Done():
			return hits, errs
		}
	}
	return hits, errs
}

// cutPrefix starts the reason of anything the budget stopped.
const cutPrefix = "cut by the shortlist budget"

// reason phrases a failure for -v: budget cuts say so plainly.
func reason(err error, budget time.Duration) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "context canceled") {
		cut := fmt.Sprintf("%s (%s)", cutPrefix, budget)
		var r *rememberedError
		if errors.As(err, &r) {
			cut += "; " + r.note()
		}
		return cut
	}
	return capRunes(msg, 200)
}

var mdLinkRe = regexp.MustCompile(`!?\[([^\]]*)\]\([^)\s]*\)`)

// plainText strips markdown link and emphasis syntax from page content so
// scoring and snippets see words, not URLs.
func plainText(md string) string {
	t := mdLinkRe.ReplaceAllString(md, "$1")
	t = strings.NewReplacer("**", "", "__", "", "`", "", "#", "").Replace(t)
	return strings.TrimSpace(t)
}

// snippet is the lead of text on one line, at most n runes.
func snippet(text string, n int) string {
	return capRunes(strings.Join(strings.Fields(capRunes(text, n*2)), " "), n)
}

// withDefaults makes a zero Options the defaults and fills zero counts
// and a zero budget from them (0 in the config means "the default").
func (o Options) withDefaults() Options {
	d := Defaults()
	if o == (Options{}) {
		return d
	}
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&o.SeedLinkMaxPages, d.SeedLinkMaxPages)
	fill(&o.SeedLinksPerPage, d.SeedLinksPerPage)
	fill(&o.SearchResultCount, d.SearchResultCount)
	fill(&o.MaxCandidates, d.MaxCandidates)
	fill(&o.MaxFetchURLs, d.MaxFetchURLs)
	fill(&o.TopK, d.TopK)
	fill(&o.SnippetChars, d.SnippetChars)
	fill(&o.MaxScoringChars, d.MaxScoringChars)
	fill(&o.DocLeadChars, d.DocLeadChars)
	fill(&o.QueryFallbackChars, d.QueryFallbackChars)
	fill(&o.KeyphraseTopK, d.KeyphraseTopK)
	fill(&o.SearchPhraseCount, d.SearchPhraseCount)
	fill(&o.CorpusLeadChars, d.CorpusLeadChars)
	fill(&o.CorpusMaxKeyphrases, d.CorpusMaxKeyphrases)
	fill(&o.CorpusMaxQueryTitles, d.CorpusMaxQueryTitles)
	if o.Budget <= 0 {
		o.Budget = d.Budget
	}
	return o
}
