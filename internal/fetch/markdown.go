package fetch

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ToMarkdown converts the readability article DOM to markdown: headings,
// paragraphs, lists (nested), code blocks and inline code, emphasis, block
// quotes, simple tables, and links kept as markdown links (http(s) only).
// Images are reduced to their alt text: an image URL in model context is an
// exfiltration beacon and carries no text.
//
// It is a small purpose-built converter rather than a library because the
// input is already cleaned by readability and the output goes to a model,
// so only the structural elements above matter.
func ToMarkdown(n *html.Node, base *url.URL) string {
	c := &mdConv{base: base}
	c.block(n, 0)
	c.flushPara()
	return tidyBlank(c.out.String())
}

type mdConv struct {
	out  strings.Builder
	para strings.Builder // inline text of the current block
	base *url.URL
	// listPrefix is written before the first line of the next paragraph.
	pending string
	indent  string
}

// flushPara ends the current inline run as one paragraph.
func (c *mdConv) flushPara() {
	t := strings.TrimSpace(collapseInline(c.para.String()))
	c.para.Reset()
	if t == "" {
		return
	}
	c.out.WriteString(c.indent)
	c.out.WriteString(c.pending)
	c.pending = ""
	c.out.WriteString(t)
	c.out.WriteString("\n\n")
}

func (c *mdConv) block(n *html.Node, depth int) {
	if depth > 400 {
		return
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch, depth+1)
	}
}

func (c *mdConv) node(n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		c.para.WriteString(escapeMDText(n.Data))
		return
	case html.ElementNode:
	default:
		c.block(n, depth)
		return
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Button, atom.Form, atom.Iframe:
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c.flushPara()
		level := int(n.DataAtom.String()[1] - '0')
		t := strings.TrimSpace(collapseInline(c.inline(n, depth)))
		if t != "" {
			fmt.Fprintf(&c.out, "%s %s\n\n", strings.Repeat("#", level), t)
		}
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Main,
		atom.Figure, atom.Figcaption, atom.Aside, atom.Nav, atom.Details, atom.Summary, atom.Dl, atom.Dd, atom.Dt, atom.Center:
		c.flushPara()
		c.block(n, depth)
		c.flushPara()
	case atom.Br:
		c.para.WriteString("  \x00")
	case atom.Hr:
		c.flushPara()
		c.out.WriteString("---\n\n")
	case atom.Pre:
		c.flushPara()
		lang := codeLang(n)
		code := strings.Trim(textOf(n), "\n")
		fence := "```"
		for strings.Contains(code, fence) {
			fence += "`"
		}
		fmt.Fprintf(&c.out, "%s%s\n%s\n%s\n\n", fence, lang, Sanitize(code), fence)
	case atom.Blockquote:
		c.flushPara()
		sub := &mdConv{base: c.base}
		sub.block(n, depth)
		sub.flushPara()
		for _, l := range strings.Split(strings.TrimSpace(sub.out.String()), "\n") {
			c.out.WriteString(c.indent + "> " + l + "\n")
		}
		c.out.WriteString("\n")
	case atom.Ul, atom.Ol:
		c.flushPara()
		c.list(n, depth)
	case atom.Table:
		c.flushPara()
		c.table(n, depth)
	case atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			c.para.WriteString("[image: " + escapeMDText(collapseSpace(alt)) + "]")
		}
	default:
		c.para.WriteString(c.inlineElem(n, depth))
	}
}

func (c *mdConv) list(n *html.Node, depth int) {
	ordered := n.DataAtom == atom.Ol
	i := 0
	saved := c.indent
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode {
			continue
		}
		if li.DataAtom == atom.Ul || li.DataAtom == atom.Ol {
			c.indent = saved + "  "
			c.list(li, depth+1)
			c.indent = saved
			continue
		}
		i++
		marker := "- "
		if ordered {
			marker = fmt.Sprintf("%d. ", i)
		}
		// Inline content of the item, then nested lists indented.
		c.pending = marker
		for ch := li.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol) {
				c.flushItem()
				c.indent = saved + "  "
				c.list(ch, depth+1)
				c.indent = saved
				continue
			}
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.P || ch.DataAtom == atom.Div) {
				c.para.WriteString(c.inline(ch, depth) + " ")
				continue
			}
			c.node(ch, depth+1)
		}
		c.flushItem()
	}
	c.out.WriteString("\n")
}

// flushItem writes a list item line (no blank line after it).
func (c *mdConv) flushItem() {
	t := strings.TrimSpace(collapseInline(c.para.String()))
	c.para.Reset()
	if t == "" && c.pending == "" {
		return
	}
	if t == "" {
		t = " "
	}
	c.out.WriteString(c.indent + c.pending + t + "\n")
	c.pending = ""
}

func (c *mdConv) table(n *html.Node, depth int) {
	var rows [][]string
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			if ch.DataAtom == atom.Tr {
				var row []string
				for td := ch.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
						cell := strings.TrimSpace(collapseInline(c.inline(td, depth)))
						row = append(row, strings.ReplaceAll(cell, "|", `\|`))
					}
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
				continue
			}
			if ch.DataAtom == atom.Table {
				continue // nested tables are flattened away
			}
			walk(ch)
		}
	}
	walk(n)
	if len(rows) == 0 {
		return
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	for i, r := range rows {
		for len(r) < cols {
			r = append(r, "")
		}
		c.out.WriteString(c.indent + "| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			c.out.WriteString(c.indent + "|" + strings.Repeat(" --- |", cols) + "\n")
		}
	}
	c.out.WriteString("\n")
}

// inline renders the children of n as inline markdown.
func (c *mdConv) inline(n *html.Node, depth int) string {
	var b strings.Builder
	if depth > 400 {
		return ""
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			b.WriteString(escapeMDText(ch.Data))
		case html.ElementNode:
			switch ch.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
			case atom.Br:
				b.WriteString(" ")
			case atom.Img:
				if alt := strings.TrimSpace(attr(ch, "alt")); alt != "" {
					b.WriteString("[image: " + escapeMDText(collapseSpace(alt)) + "]")
				}
			default:
				b.WriteString(c.inlineElem(ch, depth+1))
			}
		}
	}
	return b.String()
}

func (c *mdConv) inlineElem(n *html.Node, depth int) string {
	inner := c.inline(n, depth)
	switch n.DataAtom {
	case atom.A:
		t := strings.TrimSpace(collapseInline(inner))
		href := resolveLinkFragment(c.base, attr(n, "href"))
		if t == "" {
			return ""
		}
		if href == "" {
			return inner
		}
		return " [" + t + "](" + strings.ReplaceAll(href, ")", "%29") + ") "
	case atom.Strong, atom.B:
		if t := strings.TrimSpace(inner); t != "" {
			return " **" + t + "** "
		}
		return inner
	case atom.Em, atom.I:
		if t := strings.TrimSpace(inner); t != "" {
			return " *" + t + "* "
		}
		return inner
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		t := collapseSpace(textOf(n))
		if t == "" {
			return ""
		}
		tick := "`"
		for strings.Contains(t, tick) {
			tick += "`"
		}
		return tick + t + tick
	case atom.Del, atom.S, atom.Strike:
		if t := strings.TrimSpace(inner); t != "" {
			return " ~~" + t + "~~ "
		}
	}
	return inner
}

func codeLang(pre *html.Node) string {
	for n := pre; n != nil; n = n.FirstChild {
		if n.Type == html.ElementNode {
			for _, cl := range strings.Fields(attr(n, "class")) {
				for _, p := range []string{"language-", "lang-"} {
					if strings.HasPrefix(cl, p) {
						l := strings.TrimPrefix(cl, p)
						if l != "" && !strings.ContainsAny(l, "`\n ") {
							return l
						}
					}
				}
			}
		}
	}
	return ""
}

// collapseInline collapses whitespace but keeps explicit line breaks
// (written as "  \x00" by <br>).
func collapseInline(s string) string {
	parts := strings.Split(s, "\x00")
	for i, p := range parts {
		parts[i] = collapseSpace(p)
	}
	out := strings.Join(parts, "  \n")
	// Tidy spaces that the inline markers added around punctuation.
	for _, p := range []string{" .", " ,", " ;", " :", " !", " ?", " )"} {
		out = strings.ReplaceAll(out, p+"", p[1:])
	}
	out = strings.ReplaceAll(out, "( ", "(")
	return out
}

// escapeMDText escapes the few characters that would change markdown
// structure inside text.
func escapeMDText(s string) string {
	if !strings.ContainsAny(s, "*_`[]<>") {
		return s
	}
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

// tidyBlank trims trailing spaces on lines (except hard breaks) and
// collapses three or more newlines.
func tidyBlank(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
			out = append(out, "")
			continue
		}
		blank = 0
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
