package fetch

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "github.com/go-shiori/go-readability"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Extraction limits. go-readability is about quadratic in nesting depth
// (20,000 nested divs take ~15 s) and takes no context, so pathological
// input is detected up front with a linear tokenizer pass.
const (
	// MaxHTMLBytes caps the HTML handed to the parser.
	MaxHTMLBytes = 2 << 20
	// MaxNestingDepth above which readability is skipped (Blink caps at 512).
	MaxNestingDepth = 256
	// maxElements above which readability is skipped.
	maxElements = 25000
	// MaxTitleChars caps page titles.
	MaxTitleChars = 220
	// maxPortalLinks caps the link lists of a portal page.
	maxPortalLinks = 150
)

// Page types.
const (
	PageArticle = "article"
	PagePortal  = "portal"
)

// Link is an outgoing link of a page.
type Link struct {
	Text string `json:"text"`
	URL  string `json:"url"`
	// Section is the heading the link appeared under (portal grouping).
	Section string `json:"-"`
}

// Extracted is the readable form of a document.
type Extracted struct {
	Title    string
	Byline   string
	Date     string // YYYY-MM-DD when known
	Content  string // markdown
	Links    []Link
	PageType string
	// Method says how the content was obtained: readability, text
	// (plain text-node fallback) or raw (non-HTML bodies).
	Method string
	// Truncated is set when the input exceeded MaxHTMLBytes.
	Truncated bool
}

// ExtractHTML turns an HTML document into markdown. It never panics and
// never runs readability on input that could stall it.
func ExtractHTML(doc []byte, pageURL *url.URL) (ex *Extracted) {
	ex = &Extracted{PageType: PageArticle}
	if len(doc) > MaxHTMLBytes {
		doc, ex.Truncated = doc[:MaxHTMLBytes], true
	}
	defer func() {
		if p := recover(); p != nil {
			ex = textFallback(doc, ex.Truncated)
		}
	}()
	depth, elems := scanDepth(doc)
	if depth > MaxNestingDepth || elems > maxElements {
		return textFallback(doc, ex.Truncated)
	}
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return textFallback(doc, ex.Truncated)
	}
	links := collectLinks(root, pageURL)
	visible := len(visibleText(root))
	parser := readability.NewParser()
	parser.MaxElemsToParse = maxElements
	parser.KeepClasses = true // keeps language-xxx on code blocks
	art, aerr := parser.ParseDocument(root, pageURL)
	title := art.Title
	if title == "" {
		title = docTitle(root)
	}
	ex.Title = capRunes(Sanitize(collapseSpace(title)), MaxTitleChars)
	ex.Byline = capRunes(Sanitize(collapseSpace(art.Byline)), 200)
	if art.PublishedTime != nil {
		ex.Date = art.PublishedTime.UTC().Format("2006-01-02")
	}
	ex.Links = links
	ex.Method = "readability"
	if aerr == nil && art.Node != nil {
		ex.Content = Sanitize(ToMarkdown(art.Node, pageURL))
	}
	// A portal (link hub) is a page whose readable part is tiny next to
	// its visible text (the original's rule), or whose "article" is mostly
	// link text (readability keeps link lists that trafilatura dropped).
	extracted := len(strings.TrimSpace(art.TextContent))
	lowYield := visible >= 2000 && float64(extracted)/float64(visible) < 0.15
	linky := art.Node != nil && extracted >= 1000 && linkDensity(art.Node) > 0.5
	if (lowYield || linky) && len(links) >= 10 {
		ex.PageType = PagePortal
		ex.Content = portalMarkdown(ex.Title, links)
		return ex
	}
	if strings.TrimSpace(ex.Content) == "" {
		ex.Content = Sanitize(strings.TrimSpace(visibleText(root)))
		ex.Method = "text"
	}
	return ex
}

// ExtractText wraps a non-HTML text body (plain text, markdown, JSON, XML).
func ExtractText(body []byte) *Extracted {
	return &Extracted{Content: Sanitize(strings.TrimSpace(string(body))), PageType: PageArticle, Method: "raw"}
}

// scanDepth is a linear tokenizer pass returning the maximum open-element
// depth and the number of elements.
func scanDepth(doc []byte) (maxDepth, elems int) {
	z := html.NewTokenizer(bytes.NewReader(doc))
	depth := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return maxDepth, elems
		case html.StartTagToken:
			elems++
			name, _ := z.TagName()
			if !voidElement(atom.Lookup(name)) {
				depth++
				if depth > maxDepth {
					maxDepth = depth
				}
			}
		case html.SelfClosingTagToken:
			elems++
		case html.EndTagToken:
			if depth > 0 {
				depth--
			}
		}
	}
}

func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr, atom.Param, atom.Keygen:
		return true
	}
	return false
}

// textFallback extracts text nodes with the tokenizer only (linear time),
// skipping script/style content; block boundaries become newlines.
func textFallback(doc []byte, truncated bool) *Extracted {
	ex := &Extracted{PageType: PageArticle, Method: "text", Truncated: truncated}
	z := html.NewTokenizer(bytes.NewReader(doc))
	var b strings.Builder
	skip := 0
	inTitle := false
	var title strings.Builder
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				break
			}
			break
		}
		switch tt {
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case atom.Title:
				inTitle = tt == html.StartTagToken
			}
			if blockElement(a) {
				b.WriteByte('\n')
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := string(z.Text())
			if inTitle {
				title.WriteString(t)
				continue
			}
			b.WriteString(collapseSpace(t))
			b.WriteByte(' ')
		}
	}
	ex.Title = capRunes(Sanitize(collapseSpace(title.String())), MaxTitleChars)
	ex.Content = Sanitize(tidyLines(b.String()))
	return ex
}

func blockElement(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Br, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Tr, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Pre, atom.Blockquote,
		atom.Ul, atom.Ol, atom.Table, atom.Hr, atom.Dt, atom.Dd:
		return true
	}
	return false
}

// tidyLines trims each line and collapses runs of blank lines.
func tidyLines(s string) string {
	var out []string
	blank := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// visibleText returns the text of the body outside script/style/template.
func visibleText(root *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Svg:
				return
			}
			if blockElement(n.DataAtom) {
				b.WriteByte('\n')
			}
		}
		if n.Type == html.TextNode {
			t := collapseSpace(n.Data)
			if t != "" {
				b.WriteString(t)
				b.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return tidyLines(b.String())
}

// linkDensity is the share of n's text that sits inside links.
func linkDensity(n *html.Node) float64 {
	var all, inLinks int
	var walk func(n *html.Node, inA bool)
	walk = func(n *html.Node, inA bool) {
		if n.Type == html.TextNode {
			l := len(strings.TrimSpace(n.Data))
			all += l
			if inA {
				inLinks += l
			}
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			inA = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inA)
		}
	}
	walk(n, false)
	if all == 0 {
		return 0
	}
	return float64(inLinks) / float64(all)
}

func docTitle(root *html.Node) string {
	var t string
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			t = textOf(n)
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(root)
	return t
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// collectLinks returns the page's http(s) links, resolved against pageURL,
// de-duplicated, with the heading they appeared under.
func collectLinks(root *html.Node, pageURL *url.URL) []Link {
	var out []Link
	seen := map[string]bool{}
	section := ""
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Head, atom.Template:
				return
			case atom.H1, atom.H2, atom.H3, atom.H4:
				if s := collapseSpace(textOf(n)); s != "" {
					section = capRunes(Sanitize(s), 80)
				}
			case atom.A:
				href := attr(n, "href")
				if u := resolveLink(pageURL, href); u != "" && !seen[u] {
					text := capRunes(Sanitize(collapseSpace(textOf(n))), 160)
					if text == "" {
						text = attr(n, "title")
					}
					seen[u] = true
					out = append(out, Link{Text: text, URL: u, Section: section})
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

// resolveLink resolves href against base and keeps http(s) targets only
// (no javascript:, mailto:, data:), without fragments.
func resolveLink(base *url.URL, href string) string {
	u := resolveLinkFragment(base, href)
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u
}

// resolveLinkFragment is resolveLink keeping the fragment (markdown links
// in content point at the exact section).
func resolveLinkFragment(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil {
		return ""
	}
	return u.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// portalMarkdown renders a link hub as link lists grouped by section.
func portalMarkdown(title string, links []Link) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "# %s\n\n", title)
	}
	b.WriteString("This page is mostly links (a portal or index page). Links grouped by section:\n")
	cur := "\x00"
	for i, l := range links {
		if i >= maxPortalLinks {
			fmt.Fprintf(&b, "\n… %d more links not shown\n", len(links)-maxPortalLinks)
			break
		}
		if l.Section != cur {
			cur = l.Section
			name := cur
			if name == "" {
				name = "Links"
			}
			fmt.Fprintf(&b, "\n## %s\n\n", name)
		}
		text := l.Text
		if text == "" {
			text = l.URL
		}
		fmt.Fprintf(&b, "- [%s](%s)\n", escapeMDText(text), l.URL)
	}
	return strings.TrimSpace(b.String())
}

// Sanitize makes untrusted text safe to store and display: valid UTF-8,
// no C0/C1 control characters except newline and tab, no bidi overrides
// or zero-width characters that could disguise text.
func Sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	clean := true
	for _, r := range s {
		if badRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' {
			return -1
		}
		if badRune(r) {
			return -1
		}
		return r
	}, s)
}

func badRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200b, r == 0x200e, r == 0x200f, r == 0xfeff:
		return true
	}
	return false
}

func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
