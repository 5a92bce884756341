package search

import (
	"bytes"
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"

	xhtml "golang.org/x/net/html"
)

// DuckDuckGo scrapes DuckDuckGo's HTML endpoint; it needs no key, which
// makes it the default. Its bot challenge is reported as an error, never
// as an empty result list.
type DuckDuckGo struct {
	Opts Options
	URL  string
}

// Name implements Provider.
func (d *DuckDuckGo) Name() string { return "duckduckgo" }

const ddgKey = "general.search_provider"

// Search implements Provider.
func (d *DuckDuckGo) Search(ctx context.Context, q string, count int) ([]Result, error) {
	form := url.Values{"q": {q}, "kl": {"wt-wt"}}.Encode()
	req, err := http.NewRequest(http.MethodPost, d.URL, strings.NewReader(form))
	if err != nil {
		return nil, &Error{Provider: d.Name(), ConfigKey: "general.duckduckgo_url", Msg: "invalid URL"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	body, status, err := do(ctx, d.Opts, d.Name(), "general.duckduckgo_url", req, nil)
	if err != nil {
		return nil, err
	}
	if status == http.StatusAccepted || isDDGChallenge(body) {
		return nil, &Error{Provider: d.Name(), ConfigKey: ddgKey, Status: status,
			Msg: "search blocked by DuckDuckGo's bot check (anomaly/captcha page); try again later or configure another provider (searxng, brave, tavily, serper)"}
	}
	results, noResults := parseDDG(body)
	if len(results) == 0 && !noResults {
		return nil, &Error{Provider: d.Name(), ConfigKey: ddgKey,
			Msg: "could not read any results from the page (its layout may have changed); configure another provider"}
	}
	return clean(results, clampCount(count), d.Opts.SnippetMax), nil
}

func isDDGChallenge(body []byte) bool {
	for _, m := range []string{"anomaly-modal", "challenge-form", "bots use DuckDuckGo too", "cc=botnet"} {
		if bytes.Contains(body, []byte(m)) {
			return true
		}
	}
	return false
}

// parseDDG extracts results from the HTML page. noResults is true when the
// page says explicitly that nothing matched.
func parseDDG(body []byte) (out []Result, noResults bool) {
	doc, err := xhtml.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, false
	}
	var walk func(n *xhtml.Node, ad bool)
	var cur *Result
	walk = func(n *xhtml.Node, ad bool) {
		if n.Type == xhtml.ElementNode {
			cls := " " + attrOf(n, "class") + " "
			if strings.Contains(cls, " no-results ") {
				noResults = true
			}
			if strings.Contains(cls, " result--ad ") {
				ad = true
			}
			if strings.Contains(cls, " result ") || strings.Contains(cls, " web-result ") {
				if cur != nil && cur.URL != "" {
					out = append(out, *cur)
				}
				cur = &Result{Engine: "duckduckgo"}
				if ad {
					cur = nil
				}
			}
			if cur != nil && !ad {
				switch {
				case strings.Contains(cls, " result__a "):
					cur.Title = nodeText(n)
					cur.URL = ddgTarget(attrOf(n, "href"))
				case strings.Contains(cls, " result__snippet "):
					cur.Snippet = nodeText(n)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, ad)
		}
	}
	walk(doc, false)
	if cur != nil && cur.URL != "" {
		out = append(out, *cur)
	}
	return out, noResults
}

// ddgTarget unwraps DuckDuckGo's redirect links (//duckduckgo.com/l/?uddg=…).
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if t := u.Query().Get("uddg"); t != "" && (strings.HasSuffix(u.Host, "duckduckgo.com") || u.Host == "") {
		return t
	}
	if u.Scheme == "" && strings.HasPrefix(href, "//") {
		u.Scheme = "https"
	}
	return u.String()
}

func attrOf(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func nodeText(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

func htmlUnescape(s string) string { return html.UnescapeString(s) }
