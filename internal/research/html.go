package research

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToText converts HTML to markdown-like text: headings become "# "
// lines (so MarkdownSections finds them), blocks are separated by blank
// lines, pre blocks keep their line breaks, script/style/nav are dropped.
// It returns the text and the document title (<title>, the Go-doc JSON
// header, or the first h1).
func htmlToText(src []byte) (string, string) {
	title := goDocTitle(src)
	z := html.NewTokenizer(bytes.NewReader(src))
	var b strings.Builder
	skip := 0
	pre := 0
	inTitle := false
	var titleBuf, h1 strings.Builder
	inH1 := false
	depth := 0
	block := func() {
		s := b.String()
		if s == "" || strings.HasSuffix(s, "\n\n") {
			return
		}
		if strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
			return
		}
		b.WriteString("\n\n")
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				break
			}
			text := b.String()
			if title == "" {
				title = strings.TrimSpace(CollapseSpace(titleBuf.String()))
			}
			if title == "" {
				title = strings.TrimSpace(CollapseSpace(h1.String()))
			}
			return text, title
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			start := tt != html.EndTagToken
			if tt == html.StartTagToken {
				depth++
				if depth > 2000 { // nesting bomb: stop here
					return b.String(), title
				}
			} else if tt == html.EndTagToken {
				depth--
			}
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head, atom.Nav:
				if a == atom.Head {
					continue
				}
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case atom.Title:
				inTitle = start && tt == html.StartTagToken
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				block()
				if start {
					lvl := int(name[1] - '0')
					b.WriteString(strings.Repeat("#", lvl) + " ")
					inH1 = a == atom.H1 && h1.Len() == 0
				} else {
					inH1 = false
					b.WriteString("\n\n")
				}
			case atom.Pre:
				block()
				if start && tt == html.StartTagToken {
					pre++
				} else if !start && pre > 0 {
					pre--
				}
			case atom.Br:
				b.WriteByte('\n')
			case atom.Li:
				if start {
					block()
					b.WriteString("- ")
				}
			case atom.P, atom.Div, atom.Table, atom.Tr, atom.Ul, atom.Ol, atom.Blockquote, atom.Section,
				atom.Article, atom.Dl, atom.Dt, atom.Dd, atom.Hr, atom.Header, atom.Footer, atom.Figure, atom.Caption:
				block()
			case atom.Td, atom.Th:
				b.WriteByte(' ')
			}
		case html.TextToken:
			if inTitle {
				titleBuf.WriteString(cleanGlyphs(string(z.Text())))
				continue
			}
			if skip > 0 {
				continue
			}
			t := cleanGlyphs(string(z.Text()))
			if inH1 {
				h1.WriteString(t)
			}
			if pre > 0 {
				b.WriteString(t)
				continue
			}
			// Collapse runs of whitespace inside flowing text but keep a
			// separating space.
			c := CollapseSpace(t)
			if c == "" {
				if t != "" && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\n") {
					b.WriteByte(' ')
				}
				continue
			}
			if len(t) > 0 && isSpaceByte(t[0]) && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte(' ')
			}
			b.WriteString(c)
			if isSpaceByte(t[len(t)-1]) {
				b.WriteByte(' ')
			}
		}
	}
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// goDocTitle reads the `<!--{"Title": …}-->` header of Go website pages.
func goDocTitle(src []byte) string {
	s := bytes.TrimSpace(src)
	if !bytes.HasPrefix(s, []byte("<!--{")) {
		return ""
	}
	end := bytes.Index(s, []byte("}-->"))
	if end < 0 {
		return ""
	}
	var h struct{ Title string }
	if json.Unmarshal(s[4:end+1], &h) != nil {
		return ""
	}
	return h.Title
}
