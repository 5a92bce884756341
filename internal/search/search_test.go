package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/config"
)

func providerConfig(srv, name string) *config.Config {
	cfg := config.Defaults()
	g := &cfg.General
	g.SearchProvider = name
	g.SearxngURL = srv + "/searxng"
	g.TavilyAPIURL = srv + "/tavily/search"
	g.SerperAPIURL = srv + "/serper/search"
	g.BraveAPIURL = srv + "/brave/res/v1/web/search"
	g.DuckDuckGoURL = srv + "/ddg/html/"
	cfg.Limits.SearchTimeout = 1
	return cfg
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var allKeys = env(map[string]string{"TAVILY_API_KEY": testKey, "SERPER_API_KEY": testKey, "BRAVE_API_KEY": testKey})

func newProvider(t *testing.T, srv, name string, getenv func(string) string) Provider {
	t.Helper()
	p, err := New(providerConfig(srv, name), getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProvidersWireFormats(t *testing.T) {
	srv := newFakeSearch(t)
	for _, name := range []string{"searxng", "tavily", "serper", "brave", "duckduckgo"} {
		t.Run(name, func(t *testing.T) {
			p := newProvider(t, srv.URL, name, allKeys)
			if p.Name() != name {
				t.Errorf("name %q", p.Name())
			}
			res, err := p.Search(context.Background(), "go 1.26", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 || res[0].URL != "https://go.dev/doc/go1.26" || !strings.Contains(res[0].Title, "Go 1.26") {
				t.Fatalf("results %+v", res)
			}
			for _, r := range res {
				if !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") {
					t.Errorf("non-web URL kept: %q", r.URL)
				}
				if utf8.RuneCountInString(r.Snippet) > 400 {
					t.Errorf("snippet %d runes", utf8.RuneCountInString(r.Snippet))
				}
				if strings.Contains(r.Title, "<strong>") || strings.Contains(r.Snippet, "<b>") {
					t.Errorf("markup kept: %+v", r)
				}
				if r.Engine == "" {
					t.Errorf("no engine: %+v", r)
				}
			}
			seen := map[string]bool{}
			for _, r := range res {
				if seen[r.URL] {
					t.Errorf("duplicate %s", r.URL)
				}
				seen[r.URL] = true
			}
			if name != "duckduckgo" && len(res) != 3 {
				t.Errorf("%d results, want 3 (go.dev, blog, loopback)", len(res))
			}
			two, err := p.Search(context.Background(), "go 1.26", 2)
			if err != nil || len(two) > 2 {
				t.Errorf("count=2 gave %d results (%v)", len(two), err)
			}
		})
	}
}

func TestDefaultProviderIsDuckDuckGo(t *testing.T) {
	p, err := New(config.Defaults(), env(nil), nil)
	if err != nil || p.Name() != "duckduckgo" {
		t.Fatalf("default provider %v, %v", p, err)
	}
	if _, err := New(providerConfig("http://x", "bing"), env(nil), nil); err == nil || !strings.Contains(err.Error(), "general.search_provider") {
		t.Fatalf("unknown provider: %v", err)
	}
}

func TestProviderFaults(t *testing.T) {
	srv := newFakeSearch(t)
	cases := []struct {
		provider, q string
		want        []string
	}{
		{"searxng", "fault:403", []string{"searxng", "settings.yml", "json"}},
		{"searxng", "fault:500", []string{"searxng", "HTTP 500", "general.searxng_url"}},
		{"searxng", "fault:badjson", []string{"invalid JSON"}},
		{"searxng", "fault:slow", []string{"no answer within", "limits.search_timeout"}},
		{"searxng", "fault:huge", []string{"larger than"}},
		{"tavily", "fault:429", []string{"tavily", "rate limited", "retry after 7s"}},
		{"tavily", "fault:401", []string{"tavily", "API key was rejected", "TAVILY_API_KEY"}},
		{"serper", "fault:500", []string{"serper", "HTTP 500"}},
		{"brave", "fault:badjson", []string{"brave", "invalid JSON"}},
		{"duckduckgo", "fault:anomaly", []string{"duckduckgo", "bot check"}},
		{"duckduckgo", "fault:anomaly200", []string{"bot check"}},
		{"duckduckgo", "fault:layout", []string{"could not read any results"}},
		{"duckduckgo", "fault:500", []string{"HTTP 500"}},
	}
	for _, tc := range cases {
		p := newProvider(t, srv.URL, tc.provider, allKeys)
		t0 := time.Now()
		res, err := p.Search(context.Background(), tc.q, 5)
		if err == nil {
			t.Errorf("%s %s: no error, %d results", tc.provider, tc.q, len(res))
			continue
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s %s: %T, want *search.Error", tc.provider, tc.q, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: %q lacks %q", tc.provider, tc.q, err, w)
			}
		}
		if d := time.Since(t0); d > 2500*time.Millisecond {
			t.Errorf("%s %s took %s", tc.provider, tc.q, d)
		}
	}
}

func TestEmptyResultsAreNotErrors(t *testing.T) {
	srv := newFakeSearch(t)
	for _, name := range []string{"searxng", "tavily", "serper", "brave", "duckduckgo"} {
		res, err := newProvider(t, srv.URL, name, allKeys).Search(context.Background(), "fault:empty", 5)
		if err != nil || len(res) != 0 {
			t.Errorf("%s: %v, %d results", name, err, len(res))
		}
	}
}

func TestMissingKeysNameTheVariable(t *testing.T) {
	srv := newFakeSearch(t)
	for name, want := range map[string]string{"tavily": "TAVILY_API_KEY", "serper": "SERPER_API_KEY", "brave": "BRAVE_API_KEY"} {
		_, err := newProvider(t, srv.URL, name, env(nil)).Search(context.Background(), "x", 5)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestUnreachableProvider(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:1", "searxng", env(nil))
	_, err := p.Search(context.Background(), "x", 5)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "general.searxng_url") {
		t.Fatalf("%v", err)
	}
}
