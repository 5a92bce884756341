package compose

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/search"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/summarize"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// webExtension adds web_search, get_url_content and get_url_details, and
// (standard mode) the seed-URL preloader that reads URLs in the question
// before the first model call.
func webExtension(ctx context.Context, x *composer, req *turn.Request, reg *tools.Registry) error {
	cfg, q := x.cfg, x.q
	client, err := fetch.NewClient(fetch.OptionsFromConfig(cfg))
	if err != nil {
		return withHint(err, "fix [fetch] in your config (`asky config path` shows where it is)")
	}
	pages := &fetch.Fetcher{Client: client, TTL: time.Duration(cfg.Research.CacheTTLHours) * time.Hour, Now: x.Now,
		Budget: &fetch.Budget{MaxPages: cfg.Fetch.MaxPagesPerTurn, MaxBytes: cfg.Fetch.MaxBytesPerTurn}}
	if x.Store != nil {
		pages.Cache = &pageCache{open: x.Store, ttl: pages.TTL}
	}
	deps := &tools.WebDeps{
		Pages:          pages,
		ForceSummarize: q.Summarize,
		MaxLinks:       cfg.Limits.MaxURLDetailLinks,
		PagePrompt:     promptText(cfg, promptSummarizePage),
		Searcher: sync.OnceValues(func() (tools.Searcher, error) {
			return search.New(cfg, x.Getenv, x.HTTPClient())
		}),
	}
	if req.Model != nil {
		deps.ContextChars = req.Model.ContextSize * 4
	}
	deps.Summarizer = summarizerFor(x, req)
	emb, fallback := x.semanticEmbedders()
	deps.Rankers = []shortlist.Embedder{emb}
	if fallback != nil {
		deps.Rankers = append(deps.Rankers, fallback)
	}
	// The shortlist stage reads pages through the same guarded client and
	// cache, outside the model's per-turn page budget (it is bounded by
	// its own candidate count and deadline).
	x.pages = &fetch.Fetcher{Client: client, Cache: pages.Cache, TTL: pages.TTL, Now: pages.Now}
	x.searcher = deps.Searcher
	for _, t := range tools.WebTools(deps) {
		reg.Add(t)
	}
	if q.ResearchSet {
		for _, t := range tools.ResearchWebTools(deps) {
			reg.Add(t)
		}
	}
	if !q.Lean && !q.ResearchSet {
		req.Preloaders = append(req.Preloaders, seedPreloader(deps))
	}
	return nil
}

// summarizerFor builds the summarizer lazily: general.summarization_model
// when set, else the turn's own model and client.
func summarizerFor(x *composer, req *turn.Request) func(context.Context) (tools.TextSummarizer, error) {
	var once sync.Once
	var s tools.TextSummarizer
	var serr error
	return func(ctx context.Context) (tools.TextSummarizer, error) {
		once.Do(func() {
			m, c, err := x.summarizer(ctx, req)
			if err != nil {
				serr = err
				return
			}
			s = &summarize.Summarizer{Client: c, Model: m.ID, Parameters: m.Parameters,
				ContextSize: m.ContextSize, Config: x.cfg.Summarizer}
		})
		return s, serr
	}
}

// seedPreloader reads URLs found in the question before the first model
// call. When every one fits in full, the web tools are removed for the
// turn so the model answers directly from them.
func seedPreloader(deps *tools.WebDeps) turn.Preloader {
	return turn.PreloaderFunc(func(ctx context.Context, req *turn.Request, emit func(turn.Event)) error {
		urls := fetch.ExtractURLs(req.Query)
		if len(urls) == 0 {
			return nil
		}
		ctxSize := 0
		if req.Model != nil {
			ctxSize = req.Model.ContextSize
			deps.ContextChars = ctxSize * 4
		}
		emit(turn.Event{Kind: turn.EventStatus, Text: fmt.Sprintf("reading %d url(s) from the question", len(urls))})
		t0 := time.Now()
		res := tools.PreloadSeeds(ctx, deps, urls, tools.SeedBudgetChars(ctxSize))
		for _, s := range res.Seeds {
			line := fmt.Sprintf("seed %s: %s", s.URL, s.Status)
			if s.Err != "" {
				line += " (" + s.Err + ")"
				emit(turn.Event{Kind: turn.EventNotice, Text: "could not read " + s.URL + ": " + s.Err})
			}
			emit(turn.Event{Kind: turn.EventDebug, Text: line})
		}
		emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("seed urls read in %s", time.Since(t0).Round(time.Millisecond))})
		if res.Block == "" {
			return nil
		}
		req.Context = append(req.Context, res.Block)
		req.Sources = append(req.Sources, res.Sources...)
		if res.AllFull && req.Tools != nil {
			req.Tools.Remove(tools.WebToolNames...)
			req.Notices = append(req.Notices, tools.SeedNotice())
			emit(turn.Event{Kind: turn.EventNotice, Text: tools.SeedNotice()})
			req.ContextInstruction = "The full content of every URL in the question is included above. Answer directly from it and cite those URLs; web tools are not available for this turn."
		}
		return nil
	})
}

// pageCache adapts the store's web page table to fetch.Cache. The store
// is opened on first use, so listing tools never touches the database.
type pageCache struct {
	open  func() (*store.Store, error)
	ttl   time.Duration
	prune sync.Once
}

// store opens the database and, once per process, drops pages past their
// TTL (they are never served again).
func (c *pageCache) store(ctx context.Context) (*store.Store, error) {
	st, err := c.open()
	if err != nil {
		return nil, err
	}
	c.prune.Do(func() {
		if c.ttl > 0 {
			_, _ = st.PruneWebPages(ctx, c.ttl)
		}
	})
	return st, nil
}

func (c *pageCache) GetPage(ctx context.Context, key string, maxAge time.Duration) (*fetch.Page, error) {
	st, err := c.store(ctx)
	if err != nil {
		return nil, err
	}
	w, err := st.GetWebPage(ctx, key, maxAge)
	if err != nil || w == nil {
		return nil, err
	}
	p := &fetch.Page{Key: w.URLKey, FinalURL: w.FinalURL, Title: w.Title, Byline: w.Byline, Date: w.Published,
		PageType: w.PageType, Content: w.Content, Truncated: w.Truncated, ContentHash: w.ContentHash, FetchedAt: w.FetchedAt}
	for _, l := range w.Links {
		p.Links = append(p.Links, fetch.Link{Text: l.Text, URL: l.URL})
	}
	return p, nil
}

func (c *pageCache) PutPage(ctx context.Context, p *fetch.Page) error {
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	w := &store.WebPage{URLKey: p.Key, FinalURL: p.FinalURL, Title: p.Title, Byline: p.Byline, Published: p.Date,
		PageType: p.PageType, Content: p.Content, Truncated: p.Truncated, ContentHash: p.ContentHash, FetchedAt: p.FetchedAt}
	for _, l := range p.Links {
		w.Links = append(w.Links, store.WebLink{Text: l.Text, URL: l.URL})
	}
	return st.PutWebPage(ctx, w)
}
