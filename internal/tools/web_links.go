package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/summarize"
)

// Research-mode web acquisition tools (asky-behavior §4.3). They are
// removed when a local corpus is preloaded without `web`.
const (
	ExtractLinksName    = "extract_links"
	LinkSummariesName   = "get_link_summaries"
	linkSummaryMaxChars = 800
	linkSummaryMaxInput = 24000
	defaultExtractLinks = 30
	rankedLinksCap      = 20
	linkSummaryParallel = 3
	maxLinkSummaryPages = 8
	linkSummaryPrompt   = "Summarize this web page in at most 5 sentences: what it is, its main points, and what a researcher would find there."
)

var (
	//go:embed web_links.md
	extractLinksDesc string
	//go:embed web_link_summaries.md
	linkSummariesDesc string
)

// ResearchWebTools returns extract_links and get_link_summaries.
func ResearchWebTools(d *WebDeps) []*Tool {
	return []*Tool{extractLinksTool(d), linkSummariesTool(d)}
}

type rankedLink struct {
	Text      string   `json:"text"`
	Href      string   `json:"href"`
	Relevance *float64 `json:"relevance,omitempty"`
}

func extractLinksTool(d *WebDeps) *Tool {
	return &Tool{
		Name:        ExtractLinksName,
		Untrusted:   true,
		Fetches:     fetchedURLs,
		Description: strings.TrimSpace(extractLinksDesc),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"urls":{"type":"array","items":{"type":"string"},"description":"Pages whose links to list."},` +
			`"query":{"type":"string","description":"Rank links by relevance to this query (optional)."},` +
			`"max_links":{"type":"integer","description":"Most links to return per page (default 30)."}},"required":["urls"]}`),
		Guideline: "List a page's links (ranked when you give a query) to choose what to read next.",
		Summary:   func(args json.RawMessage) string { return urlCount(args) },
		Run: func(ctx context.Context, args json.RawMessage) (Result, error) {
			urls, err := urlArgs(args)
			if err != nil {
				return Result{}, err
			}
			var a struct {
				Query    string  `json:"query"`
				MaxLinks flexInt `json:"max_links"`
			}
			_ = json.Unmarshal(args, &a)
			limit := int(a.MaxLinks)
			if limit <= 0 {
				limit = defaultExtractLinks
			}
			if a.Query != "" {
				limit = min(limit, rankedLinksCap)
			}
			if d.Pages == nil {
				return Result{}, errors.New("URL reading is not configured")
			}
			out := map[string]any{}
			var srcs []Source
			var errs, notes []string
			for _, u := range urls {
				p, err := d.Pages.Get(ctx, u)
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", u, err))
					continue
				}
				srcs = append(srcs, Source{URL: p.URL, Title: p.Title})
				links := make([]rankedLink, 0, len(p.Links))
				for _, l := range p.Links {
					links = append(links, rankedLink{Text: l.Text, Href: l.URL})
				}
				if a.Query != "" && len(links) > 0 {
					if note := rankLinks(ctx, d.Rankers, links, a.Query); note != "" {
						notes = append(notes, note)
					}
				}
				out[u] = map[string]any{"title": p.Title, "links": links[:min(limit, len(links))], "total_links": len(p.Links)}
			}
			if len(out) == 0 {
				return Result{}, errors.New(strings.Join(errs, "; "))
			}
			if len(errs) > 0 {
				out["errors"] = errs
			}
			if len(notes) > 0 {
				out["ranking_note"] = notes[0]
			}
			b, _ := json.Marshal(out)
			return Result{Content: string(b), Sources: srcs}, nil
		},
	}
}

// linkRankTimeout bounds one ranker: a provider that hangs must not hold
// the tool call, the next ranker (the builtin) answers instead.
const linkRankTimeout = 5 * time.Second

// rankLinks orders links by the similarity of "text - url" to the query
// (§4.3: ranked by embedding similarity), stable for equal scores. The
// rankers are tried in order, the first that embeds wins; with none, or
// all failing, hash-v1 ranks (keyword and fuzzy matching). It returns a
// note naming the rankers that failed, for the model and -v.
func rankLinks(ctx context.Context, rankers []shortlist.Embedder, links []rankedLink, query string) string {
	texts := make([]string, len(links))
	for i, l := range links {
		texts[i] = l.Text + " - " + l.Href
	}
	var failed []string
	sims := func(r shortlist.Embedder) ([]float64, error) {
		ctx, cancel := context.WithTimeout(ctx, linkRankTimeout)
		defer cancel()
		return shortlist.Similarities(ctx, r, []string{query}, texts)
	}
	var scores []float64
	for _, r := range rankers {
		s, err := sims(r)
		if err == nil {
			scores = s
			break
		}
		failed = append(failed, err.Error())
	}
	if scores == nil {
		q := research.HashV1Vector(query)
		scores = make([]float64, len(texts))
		for i, t := range texts {
			scores[i] = float64(research.Cosine(q, research.HashV1Vector(t)))
		}
	}
	for i := range links {
		s := float64(int(scores[i]*1000+0.5)) / 1000
		links[i].Relevance = &s
	}
	sort.SliceStable(links, func(i, j int) bool { return *links[i].Relevance > *links[j].Relevance })
	if len(failed) == 0 {
		return ""
	}
	return "links ranked by a fallback embedder; failed: " + strings.Join(failed, "; ")
}

func linkSummariesTool(d *WebDeps) *Tool {
	return &Tool{
		Name:        LinkSummariesName,
		Untrusted:   true,
		Fetches:     fetchedURLs,
		Description: strings.TrimSpace(linkSummariesDesc),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"urls":{"type":"array","items":{"type":"string"},"description":"Pages to skim (at most 8)."}},"required":["urls"]}`),
		Guideline: "Skim candidate pages (title + short summary) before deciding which to read in full.",
		Summary:   func(args json.RawMessage) string { return urlCount(args) },
		Run: func(ctx context.Context, args json.RawMessage) (Result, error) {
			urls, err := urlArgs(args)
			if err != nil {
				return Result{}, err
			}
			if len(urls) > maxLinkSummaryPages {
				urls = urls[:maxLinkSummaryPages]
			}
			if d.Pages == nil {
				return Result{}, errors.New("URL reading is not configured")
			}
			if d.Summarizer == nil {
				return Result{}, errors.New("summaries are not available (no summarization model)")
			}
			summ, err := d.Summarizer(ctx)
			if err != nil {
				return Result{}, fmt.Errorf("summarization model: %w", err)
			}
			type entry struct {
				Title  string `json:"title"`
				Sum    string `json:"summary"`
				Status string `json:"summary_status"`
				Error  string `json:"error,omitempty"`
			}
			entries := make([]entry, len(urls))
			srcs := make([]*Source, len(urls))
			parallel(len(urls), linkSummaryParallel, func(i int) {
				p, err := d.Pages.Get(ctx, urls[i])
				if err != nil {
					entries[i] = entry{Status: "failed", Error: err.Error()}
					return
				}
				srcs[i] = &Source{URL: p.URL, Title: p.Title}
				text := p.Content
				if len(text) > linkSummaryMaxInput {
					text = text[:linkSummaryMaxInput]
				}
				s, _, err := summ.Summarize(ctx, text, summarize.Options{Instruction: cmp.Or(d.PagePrompt, linkSummaryPrompt), MaxChars: linkSummaryMaxChars})
				if err != nil {
					entries[i] = entry{Title: p.Title, Status: "failed", Error: err.Error()}
					return
				}
				entries[i] = entry{Title: p.Title, Sum: s, Status: "completed"}
			})
			out := map[string]entry{}
			var sources []Source
			for i, u := range urls {
				out[u] = entries[i]
				if srcs[i] != nil {
					sources = append(sources, *srcs[i])
				}
			}
			b, _ := json.Marshal(out)
			return Result{Content: string(b), Sources: sources}, nil
		},
	}
}

// urlCount is the terminal summary of a call: "2 urls" or the one URL.
func urlCount(args json.RawMessage) string {
	urls := rawURLArgs(args)
	if len(urls) == 1 {
		return oneLineCap(urls[0], 80)
	}
	return fmt.Sprintf("%d urls", len(urls))
}
