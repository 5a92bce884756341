// Package search queries web search providers: SearXNG, Tavily, Serper,
// Brave and keyless DuckDuckGo HTML (the default when nothing is
// configured). Provider endpoints are configured by the user, so they are
// called with the plain HTTP client; the result URLs are untrusted and are
// later fetched through the guarded one.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/config"
)

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
	Engine  string `json:"engine"`
}

// Provider runs searches.
type Provider interface {
	// Name is the provider's config name ("searxng", "duckduckgo", …).
	Name() string
	Search(ctx context.Context, q string, count int) ([]Result, error)
}

// Error is a provider failure, phrased so the model (and the user) can
// see which provider failed and which config key to look at.
type Error struct {
	Provider  string
	ConfigKey string
	Status    int
	Msg       string
}

func (e *Error) Error() string {
	s := "search provider " + e.Provider + ": " + e.Msg
	if e.ConfigKey != "" {
		s += " (check " + e.ConfigKey + ")"
	}
	return s
}

// maxResponseBytes caps a provider response.
const maxResponseBytes = 4 << 20

// Options are shared by every provider.
type Options struct {
	HTTP *http.Client
	// Timeout bounds one search (limits.search_timeout).
	Timeout time.Duration
	// SnippetMax caps snippets (limits.search_snippet_max_chars).
	SnippetMax int
	UserAgent  string
}

// New builds the provider named by general.search_provider ("" means
// DuckDuckGo HTML, which needs no key).
func New(cfg *config.Config, getenv func(string) string, hc *http.Client) (Provider, error) {
	g := cfg.General
	o := Options{HTTP: hc, Timeout: time.Duration(cfg.Limits.SearchTimeout) * time.Second,
		SnippetMax: cfg.Limits.SearchSnippetMaxChars, UserAgent: g.UserAgent}
	if o.HTTP == nil {
		o.HTTP = http.DefaultClient
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.SnippetMax <= 0 {
		o.SnippetMax = 400
	}
	key := func(envName string) string {
		if envName == "" {
			return ""
		}
		return strings.TrimSpace(getenv(envName))
	}
	switch strings.ToLower(strings.TrimSpace(g.SearchProvider)) {
	case "", "duckduckgo", "ddg":
		return &DuckDuckGo{Opts: o, URL: orDefault(g.DuckDuckGoURL, "https://html.duckduckgo.com/html/")}, nil
	case "searxng", "searx":
		return &SearXNG{Opts: o, BaseURL: g.SearxngURL}, nil
	case "tavily":
		return &Tavily{Opts: o, URL: g.TavilyAPIURL, Key: key(g.TavilyAPIKeyEnv), KeyEnv: g.TavilyAPIKeyEnv}, nil
	case "serper":
		return &Serper{Opts: o, URL: g.SerperAPIURL, Key: key(g.SerperAPIKeyEnv), KeyEnv: g.SerperAPIKeyEnv}, nil
	case "brave":
		return &Brave{Opts: o, URL: g.BraveAPIURL, Key: key(g.BraveAPIKeyEnv), KeyEnv: g.BraveAPIKeyEnv}, nil
	}
	return nil, &Error{Provider: g.SearchProvider, ConfigKey: "general.search_provider",
		Msg: "unknown provider; use searxng, tavily, serper, brave or duckduckgo"}
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// do sends req and returns the capped body of a 2xx response; other
// statuses become *Error with a hint chosen by the caller's statusMsg.
func do(ctx context.Context, o Options, provider, cfgKey string, req *http.Request, statusMsg func(int) string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req = req.WithContext(ctx)
	if o.UserAgent != "" && req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", o.UserAgent)
	}
	resp, err := o.HTTP.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, 0, &Error{Provider: provider, ConfigKey: "limits.search_timeout", Msg: fmt.Sprintf("no answer within %s", o.Timeout)}
		}
		if pctx := req.Context(); pctx.Err() != nil {
			return nil, 0, pctx.Err()
		}
		return nil, 0, &Error{Provider: provider, ConfigKey: cfgKey, Msg: "unreachable: " + shortErr(err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, resp.StatusCode, &Error{Provider: provider, ConfigKey: cfgKey, Msg: "reading response: " + shortErr(err)}
	}
	if len(body) > maxResponseBytes {
		return nil, resp.StatusCode, &Error{Provider: provider, ConfigKey: cfgKey, Msg: fmt.Sprintf("response larger than %d MB", maxResponseBytes>>20)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := ""
		if statusMsg != nil {
			msg = statusMsg(resp.StatusCode)
		}
		if msg == "" {
			msg = defaultStatusMsg(resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		return nil, resp.StatusCode, &Error{Provider: provider, ConfigKey: cfgKey, Status: resp.StatusCode, Msg: msg}
	}
	return body, resp.StatusCode, nil
}

func defaultStatusMsg(status int, retryAfter string) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Sprintf("HTTP %d: the API key was rejected", status)
	case status == http.StatusTooManyRequests:
		if retryAfter != "" {
			return fmt.Sprintf("HTTP 429: rate limited (retry after %ss)", retryAfter)
		}
		return "HTTP 429: rate limited"
	}
	return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
}

// shortErr drops url.Error's "Post \"…\":" prefix; the provider is
// already named.
func shortErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func decodeJSON(provider, cfgKey string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return &Error{Provider: provider, ConfigKey: cfgKey, Msg: "invalid JSON response: " + err.Error()}
	}
	return nil
}

// clean filters and trims results: only http(s) URLs without userinfo,
// no duplicates, snippets capped, at most count.
func clean(in []Result, count, snippetMax int) []Result {
	out := make([]Result, 0, len(in))
	seen := map[string]bool{}
	for _, r := range in {
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			continue
		}
		key := u.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		r.URL = key
		r.Title = capText(sanitize(r.Title), 220)
		r.Snippet = capText(sanitize(r.Snippet), snippetMax)
		out = append(out, r)
		if count > 0 && len(out) >= count {
			break
		}
	}
	return out
}

// sanitize collapses whitespace and drops control characters (search
// snippets end up on the terminal and in model context).
func sanitize(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func capText(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func clampCount(n int) int {
	switch {
	case n <= 0:
		return 5
	case n > 20:
		return 20
	}
	return n
}
