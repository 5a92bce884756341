package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/summarize"
)

func researchTool(t *testing.T, d *WebDeps, name string) *Tool {
	t.Helper()
	for _, tl := range ResearchWebTools(d) {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestExtractLinksRanksByQuery(t *testing.T) {
	pages := &fakePages{pages: map[string]*fetch.Page{
		"https://hub.example/": {Title: "Hub", Links: []fetch.Link{
			{Text: "Company news", URL: "https://hub.example/news"},
			{Text: "Garbage collector internals", URL: "https://hub.example/gc"},
			{Text: "Careers", URL: "https://hub.example/jobs"},
		}},
	}}
	tl := researchTool(t, &WebDeps{Pages: pages}, ExtractLinksName)
	res, err := tl.Run(context.Background(), json.RawMessage(`{"urls":["https://hub.example/"],"query":"how does the garbage collector work","max_links":2}`))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]struct {
		Links []rankedLink `json:"links"`
		Total int          `json:"total_links"`
	}
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("%v: %s", err, res.Content)
	}
	got := out["https://hub.example/"]
	if got.Total != 3 || len(got.Links) != 2 {
		t.Fatalf("got %+v", got)
	}
	if got.Links[0].Href != "https://hub.example/gc" || got.Links[0].Relevance == nil || *got.Links[0].Relevance <= *got.Links[1].Relevance {
		t.Errorf("best link first with a higher score, got %+v", got.Links)
	}
	if len(res.Sources) != 1 || res.Sources[0].Title != "Hub" {
		t.Errorf("sources %+v", res.Sources)
	}
}

func TestExtractLinksRefusesLocalPaths(t *testing.T) {
	tl := researchTool(t, &WebDeps{Pages: &fakePages{}}, ExtractLinksName)
	if _, err := tl.Run(context.Background(), json.RawMessage(`{"urls":["file:///etc/passwd"]}`)); err == nil {
		t.Fatal("file:// accepted")
	}
}

type countingSumm struct {
	calls atomic.Int32
	fail  string
}

func (c *countingSumm) Summarize(_ context.Context, text string, o summarize.Options) (string, summarize.Stats, error) {
	c.calls.Add(1)
	if c.fail != "" && strings.Contains(text, c.fail) {
		return "", summarize.Stats{}, errors.New("model down")
	}
	if o.MaxChars != linkSummaryMaxChars {
		return "", summarize.Stats{}, errors.New("wrong cap")
	}
	return "summary of " + strings.Fields(text)[0], summarize.Stats{Calls: 1}, nil
}

func TestLinkSummaries(t *testing.T) {
	pages := &fakePages{pages: map[string]*fetch.Page{
		"https://a.example/": {Title: "A", Content: "alpha page text"},
		"https://b.example/": {Title: "B", Content: "beta page text"},
	}}
	summ := &countingSumm{fail: "beta"}
	d := &WebDeps{Pages: pages, Summarizer: func(context.Context) (TextSummarizer, error) { return summ, nil }}
	tl := researchTool(t, d, LinkSummariesName)
	res, err := tl.Run(context.Background(), json.RawMessage(`{"urls":["https://a.example/","https://b.example/","https://missing.example/"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"summary":"summary of alpha"`, `"summary_status":"completed"`, `"summary_status":"failed"`, `model down`, `404`} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %s:\n%s", want, res.Content)
		}
	}
	if len(res.Sources) != 2 {
		t.Errorf("sources %+v", res.Sources)
	}
	if summ.calls.Load() != 2 {
		t.Errorf("summarizer called %d times", summ.calls.Load())
	}
}

// failingRanker is a configured provider that is down.
type failingRanker struct{}

func (failingRanker) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("ollama embeddings: connection refused")
}
func (failingRanker) EmbedQuery(context.Context, string) ([]float32, error) {
	return nil, errors.New("ollama embeddings: connection refused")
}

// extract_links ranks by embedding similarity with the configured
// embedder (§4.3), falling back in order and saying so.
func TestExtractLinksRanksWithTheConfiguredEmbedder(t *testing.T) {
	static, err := research.NewBuiltinStatic()
	if err != nil {
		t.Fatal(err)
	}
	pages := &fakePages{pages: map[string]*fetch.Page{
		"https://hub.example/": {Title: "Hub", Links: []fetch.Link{
			{Text: "Community calendar", URL: "https://hub.example/community"},
			{Text: "Cycling to the office every day", URL: "https://hub.example/bike"},
		}},
	}}
	top := func(rankers ...shortlist.Embedder) (string, string) {
		tl := researchTool(t, &WebDeps{Pages: pages, Rankers: rankers}, ExtractLinksName)
		res, err := tl.Run(context.Background(), json.RawMessage(`{"urls":["https://hub.example/"],"query":"how do I commute"}`))
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]json.RawMessage
		json.Unmarshal([]byte(res.Content), &out)
		var page struct {
			Links []rankedLink `json:"links"`
		}
		json.Unmarshal(out["https://hub.example/"], &page)
		var note string
		json.Unmarshal(out["ranking_note"], &note)
		return page.Links[0].Href, note
	}
	if href, note := top(static); href != "https://hub.example/bike" || note != "" {
		t.Errorf("builtin embedder: top %s, note %q", href, note)
	}
	if href, note := top(failingRanker{}, static); href != "https://hub.example/bike" || !strings.Contains(note, "connection refused") {
		t.Errorf("fallback: top %s, note %q", href, note)
	}
	// hash-v1 alone matches letters ("comm…"), which is why the tool
	// ranks with the configured embedder.
	if href, note := top(failingRanker{}); href != "https://hub.example/community" || !strings.Contains(note, "connection refused") {
		t.Errorf("hash-v1: top %s, note %q", href, note)
	}
}
