package research

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// makePDF writes a minimal valid PDF with one page per entry of pages,
// each line drawn with Tj at descending baselines. Offsets in the xref
// table are computed, so real parsers accept it.
func makePDF(t testing.TB, pages [][]string) []byte {
	t.Helper()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		n := len(offsets)
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
		return n
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 12 Tf\n")
		y := 740
		for _, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&cs, "1 0 0 1 72 %d Tm (%s) Tj\n", y, l)
			y -= 16
		}
		cs.WriteString("ET")
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// makeEPUB builds an EPUB whose spine order differs from file order.
func makeEPUB(t testing.TB, extra map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	files := []struct{ name, body string }{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{"OEBPS/content.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Pager Book</dc:title></metadata>
<manifest><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b%20two.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="b"/><itemref idref="a"/></spine></package>`},
		{"OEBPS/text/a.xhtml", `<html><body><h1>Second Chapter</h1><p>Rollback restores the journal.</p></body></html>`},
		{"OEBPS/text/b two.xhtml", `<html><head><title>ignored</title></head><body><h1>First Chapter</h1><p>The pager writes pages.</p><script>evil()</script></body></html>`},
	}
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		body := f.body
		if e, ok := extra[f.name]; ok {
			body = e
		}
		w.Write([]byte(body))
	}
	for name, body := range extra {
		if strings.HasPrefix(name, "+") {
			w, _ := zw.Create(name[1:])
			w.Write([]byte(body))
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
