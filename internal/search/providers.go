package search

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SearXNG queries a SearXNG instance's JSON API.
type SearXNG struct {
	Opts    Options
	BaseURL string
}

// Name implements Provider.
func (s *SearXNG) Name() string { return "searxng" }

// Search implements Provider.
func (s *SearXNG) Search(ctx context.Context, q string, count int) ([]Result, error) {
	const key = "general.searxng_url"
	base := strings.TrimRight(strings.TrimSpace(s.BaseURL), "/")
	if base == "" {
		return nil, &Error{Provider: s.Name(), ConfigKey: key, Msg: "no SearXNG URL configured"}
	}
	base = strings.TrimSuffix(base, "/search")
	u, err := url.Parse(base + "/search")
	if err != nil || u.Host == "" {
		return nil, &Error{Provider: s.Name(), ConfigKey: key, Msg: "invalid URL " + strconv.Quote(s.BaseURL)}
	}
	u.RawQuery = url.Values{"q": {q}, "format": {"json"}, "pageno": {"1"}, "safesearch": {"0"}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("Accept", "application/json")
	body, _, err := do(ctx, s.Opts, s.Name(), key, req, func(status int) string {
		if status == http.StatusForbidden {
			return "HTTP 403: the JSON API is disabled; enable it by adding `json` to search.formats in SearXNG's settings.yml"
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
			Engine  string `json:"engine"`
		} `json:"results"`
	}
	if err := decodeJSON(s.Name(), key, body, &resp); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(resp.Results))
	for _, r := range resp.Results {
		eng := r.Engine
		if eng == "" {
			eng = "searxng"
		}
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Engine: eng})
	}
	return clean(out, clampCount(count), s.Opts.SnippetMax), nil
}

// Tavily queries the Tavily search API.
type Tavily struct {
	Opts   Options
	URL    string
	Key    string
	KeyEnv string
}

// Name implements Provider.
func (t *Tavily) Name() string { return "tavily" }

// Search implements Provider.
func (t *Tavily) Search(ctx context.Context, q string, count int) ([]Result, error) {
	if t.Key == "" {
		return nil, missingKey(t.Name(), t.KeyEnv, "general.tavily_api_key_env")
	}
	payload, _ := json.Marshal(map[string]any{"query": q, "max_results": clampCount(count), "include_answer": false})
	req, err := http.NewRequest(http.MethodPost, t.URL, bytes.NewReader(payload))
	if err != nil {
		return nil, &Error{Provider: t.Name(), ConfigKey: "general.tavily_api_url", Msg: "invalid URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.Key)
	body, _, err := do(ctx, t.Opts, t.Name(), keyOrURL("general.tavily_api_key_env", t.KeyEnv), req, nil)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := decodeJSON(t.Name(), "general.tavily_api_url", body, &resp); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(resp.Results))
	for _, r := range resp.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Engine: "tavily"})
	}
	return clean(out, clampCount(count), t.Opts.SnippetMax), nil
}

// Serper queries the Serper (Google) API.
type Serper struct {
	Opts   Options
	URL    string
	Key    string
	KeyEnv string
}

// Name implements Provider.
func (s *Serper) Name() string { return "serper" }

// Search implements Provider.
func (s *Serper) Search(ctx context.Context, q string, count int) ([]Result, error) {
	if s.Key == "" {
		return nil, missingKey(s.Name(), s.KeyEnv, "general.serper_api_key_env")
	}
	payload, _ := json.Marshal(map[string]any{"q": q, "num": clampCount(count)})
	req, err := http.NewRequest(http.MethodPost, s.URL, bytes.NewReader(payload))
	if err != nil {
		return nil, &Error{Provider: s.Name(), ConfigKey: "general.serper_api_url", Msg: "invalid URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", s.Key)
	body, _, err := do(ctx, s.Opts, s.Name(), keyOrURL("general.serper_api_key_env", s.KeyEnv), req, nil)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Organic []struct {
			Title   string `json:"title"`
			Link    string `json:"link"`
			Snippet string `json:"snippet"`
		} `json:"organic"`
	}
	if err := decodeJSON(s.Name(), "general.serper_api_url", body, &resp); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(resp.Organic))
	for _, r := range resp.Organic {
		out = append(out, Result{Title: r.Title, URL: r.Link, Snippet: r.Snippet, Engine: "serper"})
	}
	return clean(out, clampCount(count), s.Opts.SnippetMax), nil
}

// Brave queries the Brave Search API.
type Brave struct {
	Opts   Options
	URL    string
	Key    string
	KeyEnv string
}

// Name implements Provider.
func (b *Brave) Name() string { return "brave" }

// Search implements Provider.
func (b *Brave) Search(ctx context.Context, q string, count int) ([]Result, error) {
	if b.Key == "" {
		return nil, missingKey(b.Name(), b.KeyEnv, "general.brave_api_key_env")
	}
	u, err := url.Parse(b.URL)
	if err != nil || u.Host == "" {
		return nil, &Error{Provider: b.Name(), ConfigKey: "general.brave_api_url", Msg: "invalid URL"}
	}
	u.RawQuery = url.Values{"q": {q}, "count": {strconv.Itoa(clampCount(count))}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.Key)
	body, _, err := do(ctx, b.Opts, b.Name(), keyOrURL("general.brave_api_key_env", b.KeyEnv), req, nil)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := decodeJSON(b.Name(), "general.brave_api_url", body, &resp); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(resp.Web.Results))
	for _, r := range resp.Web.Results {
		out = append(out, Result{Title: stripTags(r.Title), URL: r.URL, Snippet: stripTags(r.Description), Engine: "brave"})
	}
	return clean(out, clampCount(count), b.Opts.SnippetMax), nil
}

func missingKey(provider, env, cfgKey string) error {
	if env == "" {
		return &Error{Provider: provider, ConfigKey: cfgKey, Msg: "no API key variable configured"}
	}
	return &Error{Provider: provider, ConfigKey: cfgKey, Msg: "API key missing: environment variable " + env + " is not set"}
}

// keyOrURL names the key setting for auth failures.
func keyOrURL(cfgKey, env string) string {
	if env != "" {
		return cfgKey + " (" + env + ")"
	}
	return cfgKey
}

// stripTags removes the <strong> highlighting some APIs put in text.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return htmlUnescape(b.String())
}
