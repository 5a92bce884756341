package research

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// pdfGen writes small PDFs with placed text for layout and font tests:
// objects are added in any order, pages list their resources and content
// stream, and the xref offsets are computed so real parsers accept them.
type pdfGen struct {
	objs    []string
	pages   []int
	catalog string // more entries for the catalog (an /AcroForm)
}

func newPDFGen() *pdfGen { return &pdfGen{objs: []string{"", ""}} } // 1 catalog, 2 pages

func (g *pdfGen) add(body string) int {
	g.objs = append(g.objs, body)
	return len(g.objs)
}

func (g *pdfGen) stream(dict, data string) int {
	return g.add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

// font adds a simple font whose printable ASCII glyphs are all w/1000 em
// wide; extra goes into the font dictionary (an /Encoding, a /ToUnicode).
func (g *pdfGen) font(base string, w int, extra string) int {
	ws := strings.TrimSpace(strings.Repeat(fmt.Sprintf("%d ", w), 95))
	return g.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /FirstChar 32 /LastChar 126 /Widths [%s] %s >>", base, ws, extra))
}

// page adds a page; fonts maps resource names to font objects.
func (g *pdfGen) page(fonts map[string]int, content string) {
	var res strings.Builder
	for name, id := range fonts {
		fmt.Fprintf(&res, "/%s %d 0 R ", name, id)
	}
	c := g.stream("", content)
	g.pages = append(g.pages, g.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << %s>> >> /Contents %d 0 R >>", res.String(), c)))
}

// pageRes adds a page with a resource dictionary written out (fonts and
// XObjects).
func (g *pdfGen) pageRes(res, content string) {
	c := g.stream("", content)
	g.pages = append(g.pages, g.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %d 0 R >>", res, c)))
}

// form adds a Form XObject; extra goes into its dictionary (a /Matrix,
// /Resources).
func (g *pdfGen) form(extra, content string) int {
	return g.stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] "+extra, content)
}

func (g *pdfGen) bytes() []byte {
	g.objs[0] = "<< /Type /Catalog /Pages 2 0 R " + g.catalog + ">>"
	kids := make([]string, len(g.pages))
	for i, p := range g.pages {
		kids[i] = fmt.Sprintf("%d 0 R", p)
	}
	g.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(g.pages))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(g.objs))
	for i, body := range g.objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(g.objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(g.objs)+1, xref)
	return b.Bytes()
}

// placed is one line of text for a content stream.
type placed struct {
	font    string
	size    float64
	x, y    float64
	text    string
	literal bool // text is already a PDF string operand
}

func contentOf(lines []placed) string {
	var b strings.Builder
	for _, l := range lines {
		s := l.text
		if !l.literal {
			s = "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s) + ")"
		}
		fmt.Fprintf(&b, "BT /%s %g Tf 1 0 0 1 %g %g Tm %s Tj ET\n", l.font, l.size, l.x, l.y, s)
	}
	return b.String()
}

// fill cuts words from a cycle of filler to make a line of at most n
// characters starting with head.
func fill(head string, n int) string {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike")
	s := head
	for i := 0; ; i++ {
		w := words[(len(head)+i)%len(words)]
		if len(s)+1+len(w) > n {
			return s
		}
		s += " " + w
	}
}

func extractPDFBytes(t *testing.T, data []byte) string {
	t.Helper()
	doc, err := Extract("test.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	return doc.Text
}

// inOrder fails unless every want appears in text, each after the one
// before it.
func inOrder(t *testing.T, text string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order after byte %d in:\n%s", w, at, text)
		}
		at += i + len(w)
	}
}
