package compose

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// shortlistExtension adds the source-shortlist stage (asky-behavior.md
// §5.5, §5.8). Its preloader runs after memory recall, seed URLs and the
// research corpus, so the precedence policy sees whether a local corpus
// was preloaded and mixed mode can add corpus documents as candidates.
func shortlistExtension(_ context.Context, x *composer, req *turn.Request, _ *tools.Registry) error {
	if x.listing {
		return nil
	}
	req.Preloaders = append(req.Preloaders, turn.PreloaderFunc(x.shortlistStage))
	return nil
}

// shortlistPolicy gathers the §5.8 inputs for req.
func (x *composer) shortlistPolicy(req *turn.Request) shortlist.PolicyInput {
	cfg, q := x.cfg, x.q
	sc := cfg.Research.SourceShortlist
	p := shortlist.PolicyInput{
		Lean: req.Lean, Research: q.ResearchSet,
		// The pointer names local paths and not the web: local_only.
		LocalOnly: q.ResearchSet && len(x.ptr.Paths) > 0 && !x.ptr.Web,
		Override:  q.Shortlist, HasLocalCorpus: x.preloaded != nil && len(*x.preloaded) > 0,
		Query: req.Query, GeneralFlag: cfg.General.ShortlistEnabled, Helper: x.helperShortlist,
		Enabled: sc.Enabled, EnableResearchMode: sc.EnableResearchMode, EnableStandardMode: sc.EnableStandardMode,
	}
	if req.Model != nil {
		if m, ok := cfg.Models[req.Model.Alias]; ok {
			p.ModelFlag = m.SourceShortlistEnabled
		}
	}
	return p
}

// shortlistStage decides whether the shortlist runs, runs it within its
// budget and adds its context block. A failing provider or page never
// fails the turn: the stage reports what failed (-v) and the turn goes on
// with what it has.
func (x *composer) shortlistStage(ctx context.Context, req *turn.Request, emit func(turn.Event)) error {
	pol := x.shortlistPolicy(req)
	pol.AskIntent = x.askIntent(ctx, emit)
	d := shortlist.Decide(pol)
	kind := turn.EventDebug
	if x.q.Shortlist == "on" && !d.Enabled {
		// An explicit --shortlist on that something overrode is said
		// without -v: otherwise the flag looks ignored.
		kind = turn.EventNotice
	}
	emit(turn.Event{Kind: kind, Text: "shortlist " + d.Reason})
	if !d.Enabled || x.pages == nil {
		return nil
	}
	sl := &shortlist.Shortlister{Fetch: x.pages, Options: shortlist.FromConfig(x.cfg.Research.SourceShortlist)}
	if x.searcher != nil {
		if s, err := x.searcher(); err == nil {
			sl.Search = s
		} else {
			emit(turn.Event{Kind: turn.EventNotice, Text: "shortlist without web search: " + err.Error()})
		}
	}
	sl.Embedder, sl.Fallback = x.semanticEmbedders()
	in := shortlist.Input{Prompt: req.Query}
	if x.q.ResearchSet {
		in.SubQueries = x.expand(ctx, req, emit)
		if x.ptr.Web && len(x.ptr.Paths) > 0 {
			in.Corpus = x.corpusDocs(ctx)
		}
	}
	emit(turn.Event{Kind: turn.EventStatus, Text: "shortlisting sources"})
	res, err := sl.Run(ctx, in, func(ev shortlist.Event) {
		emit(turn.Event{Kind: turn.EventProgress, Text: fmt.Sprintf("shortlist %s: %d candidates", ev.Stage, ev.Count)})
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		emit(turn.Event{Kind: turn.EventNotice, Text: "shortlist skipped: " + err.Error()})
		return nil
	}
	for _, line := range strings.Split(res.Report(), "\n") {
		emit(turn.Event{Kind: turn.EventDebug, Text: line})
	}
	x.shortlisted = len(res.Candidates)
	block := res.ContextBlock()
	if block == "" {
		return nil
	}
	emit(turn.Event{Kind: turn.EventTrace, Text: "shortlist context block:\n" + block})
	req.Context = append(req.Context, block)
	for _, c := range res.Candidates[:min(5, len(res.Candidates))] {
		if c.Source != shortlist.SourceCorpus {
			req.Sources = append(req.Sources, tools.Source{URL: c.URL, Title: c.Title})
		}
	}
	dedupSources(req)
	return nil
}

// semanticEmbedders are the configured corpus embedder, which also scores
// the shortlist and ranks extract_links (one embedder for corpus, memory,
// shortlist and links), and the builtin as its fallback when it is not the
// builtin itself. Both load on their first embedding, so a turn that
// ranks nothing loads no model. A provider (openai, ollama) is guarded:
// once it fails as down, the turns of the next minutes go to the fallback
// without asking it. Corpus ingest and query build their own embedder and
// never fall back.
func (x *composer) semanticEmbedders() (emb, fallback shortlist.Embedder) {
	cfg := x.cfg.Research.Embedding
	emb = shortlist.Lazy(func() (shortlist.Embedder, error) {
		e, err := research.NewEmbedder(cfg, x.HTTPClient(), x.Getenv)
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	switch p := strings.ToLower(cfg.Provider); {
	case (p == "" || p == "builtin") && (cfg.Model == "" || cfg.Model == research.StaticModelName):
		return emb, nil
	case p == "openai" || p == "ollama":
		emb = shortlist.Guard(emb, x.embedderCooldown(), providerName(cfg), x.Now)
	}
	return emb, shortlist.Lazy(func() (shortlist.Embedder, error) { return research.NewBuiltinStatic() })
}

// embedderCooldown is where a failed provider is remembered: the core's
// (the daemon's, in memory) or the marker file in the cache dir.
func (x *composer) embedderCooldown() *shortlist.Cooldown {
	if x.EmbedderCooldown != nil {
		return x.EmbedderCooldown
	}
	if x.cfg.Paths.CacheDir == "" {
		return nil
	}
	return &shortlist.Cooldown{Path: filepath.Join(x.cfg.Paths.CacheDir, shortlist.CooldownFile)}
}

// providerName names an embedding provider for -v and its cooldown mark:
// a mark left by another provider, model or endpoint does not apply.
// Credentials in base_url are dropped.
func providerName(cfg config.Embedding) string {
	name := fmt.Sprintf("%s embeddings %q", strings.ToLower(cfg.Provider), cfg.Model)
	if cfg.BaseURL == "" {
		return name
	}
	base := cfg.BaseURL
	if u, err := url.Parse(base); err == nil {
		u.User = nil
		base = u.String()
	}
	return name + " at " + base
}

// corpusDocs are the preloaded corpus documents as shortlist candidates
// (mixed mode), by handle so no local path reaches the model.
func (x *composer) corpusDocs(ctx context.Context) []shortlist.CorpusDoc {
	if x.preloaded == nil || x.index == nil {
		return nil
	}
	lead := x.cfg.Research.SourceShortlist.CorpusLeadChars
	var docs []shortlist.CorpusDoc
	for _, id := range *x.preloaded {
		src, err := x.index.St.CorpusSource(ctx, id)
		if err != nil {
			continue
		}
		text := src.Content
		if lead > 0 && len(text) > lead {
			text = text[:lead]
		}
		docs = append(docs, shortlist.CorpusDoc{URL: research.Handle(id), Title: src.Title, Text: text})
	}
	return docs
}
