package xmpp

import (
	"encoding/xml"
	"regexp"
	"strings"
)

// XHTML-IM (XEP-0071): an answer that fits one message and has headings
// also carries them as bold paragraphs, as the original sends it, for
// clients that render XHTML-IM rather than message styling. The body
// keeps the styled text, which every client shows.
const (
	nsXHTMLIM   = "http://jabber.org/protocol/xhtml-im"
	nsXHTMLBody = "http://www.w3.org/1999/xhtml"
)

var (
	reSetext = regexp.MustCompile(`^\s*(=+|-+)\s*$`)
)

// xhtmlIM is the <html/> payload; nil when the answer has no heading.
type xhtmlIM struct {
	XMLName xml.Name `xml:"http://jabber.org/protocol/xhtml-im html"`
	Body    xhtmlBody
}

// block is one paragraph (or preformatted block) of inline spans.
type block struct {
	pre   bool
	spans []span
}

// span is text, optionally inside one inline element (strong, em, code).
type span struct{ elem, text string }

type xhtmlBody struct{ blocks []block }

// MarshalXML writes the body through the encoder, so every text is
// escaped: the answer is the model's, not trusted markup.
func (b xhtmlBody) MarshalXML(e *xml.Encoder, _ xml.StartElement) error {
	body := xml.StartElement{Name: xml.Name{Space: nsXHTMLBody, Local: "body"}}
	toks := []xml.Token{body}
	for _, bl := range b.blocks {
		name := "p"
		if bl.pre {
			name = "pre"
		}
		start := xml.StartElement{Name: xml.Name{Local: name}}
		toks = append(toks, start)
		for _, s := range bl.spans {
			if s.elem == "" {
				toks = append(toks, xml.CharData(s.text))
				continue
			}
			el := xml.StartElement{Name: xml.Name{Local: s.elem}}
			toks = append(toks, el, xml.CharData(s.text), el.End())
		}
		toks = append(toks, start.End())
	}
	toks = append(toks, body.End())
	for _, t := range toks {
		if err := e.EncodeToken(t); err != nil {
			return err
		}
	}
	return nil
}

// xhtml converts markdown with at least one heading (ATX or setext) to
// XHTML-IM: headings as bold paragraphs, lines as paragraphs with bold,
// italic and code spans, code blocks and tables as preformatted text.
// It returns nil for markdown without a heading.
func xhtml(md string) *xhtmlIM {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var blocks []block
	heading := false
	var code []string
	inCode := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			if inCode {
				blocks = append(blocks, block{pre: true, spans: []span{{text: strings.Join(code, "\n")}}})
				code = nil
			}
			inCode = !inCode
		case inCode:
			code = append(code, l)
		case trimmed == "":
		case isTableRow(l) && i+1 < len(lines) && reRule.MatchString(lines[i+1]):
			var rows [][]string
			j := i
			for ; j < len(lines) && isTableRow(lines[j]); j++ {
				if j != i+1 {
					rows = append(rows, cells(lines[j]))
				}
			}
			blocks = append(blocks, block{pre: true, spans: []span{{text: strings.Join(table(rows), "\n")}}})
			i = j - 1
		case reHeader.MatchString(l):
			heading = true
			blocks = append(blocks, block{spans: []span{{elem: "strong", text: plainInline(reHeader.FindStringSubmatch(l)[1])}}})
		case i+1 < len(lines) && reSetext.MatchString(lines[i+1]) && !reBullet.MatchString(l):
			heading = true
			blocks = append(blocks, block{spans: []span{{elem: "strong", text: plainInline(trimmed)}}})
			i++
		default:
			blocks = append(blocks, block{spans: inlineSpans(reBullet.ReplaceAllString(l, "${1}• "))})
		}
	}
	if inCode && len(code) > 0 {
		blocks = append(blocks, block{pre: true, spans: []span{{text: strings.Join(code, "\n")}}})
	}
	if !heading {
		return nil
	}
	return &xhtmlIM{Body: xhtmlBody{blocks: blocks}}
}

// inlineSpans splits a line into text, code, strong and em spans; links
// read "text (url)" as in the styled body.
func inlineSpans(s string) []span {
	var out []span
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			out = append(out, span{elem: "code", text: p})
			continue
		}
		if i%2 == 1 {
			p = "`" + p // an unclosed backtick is text
		}
		out = append(out, emphasis(reLink.ReplaceAllString(p, "$1 ($2)"))...)
	}
	return out
}

// emphasis splits text into strong spans and the rest, whose italics
// are split out in turn (bold first: its stars are not italic ones).
func emphasis(p string) []span {
	var out []span
	for p != "" {
		m := reBold.FindStringSubmatchIndex(p)
		if m == nil {
			return append(out, italics(p)...)
		}
		out = append(out, italics(p[:m[0]])...)
		g := 2 // **text**, else __text__
		if m[2] < 0 {
			g = 4
		}
		text := p[m[g]:m[g+1]]
		out = append(out, span{elem: "strong", text: text})
		p = p[m[1]:]
	}
	return out
}

// italics splits text into em spans and plain text.
func italics(p string) []span {
	var out []span
	for p != "" {
		m := reItalic.FindStringSubmatchIndex(p)
		if m == nil {
			return append(out, span{text: p})
		}
		if m[3] > 0 {
			out = append(out, span{text: p[:m[3]]})
		}
		out = append(out, span{elem: "em", text: p[m[4]:m[5]]})
		p = p[m[6]:]
	}
	return out
}

// plainInline is a heading's text without its inline markers (it is
// bold as a whole).
func plainInline(s string) string {
	var b strings.Builder
	for _, sp := range inlineSpans(s) {
		b.WriteString(sp.text)
	}
	return b.String()
}
