package research

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Text drawn inside a Form XObject (a letterhead, a stamped page) is
// extracted where the form is drawn, placed by the form's /Matrix (and the
// page's cm), decoded with the form's own fonts even when a page font has
// the same name, and forms inside forms are entered too.
func TestPDFFormXObjectText(t *testing.T) {
	g := newPDFGen()
	plain := g.font("Helvetica", 500, "")
	// The page's F1 garbles letters: a form that used it would too.
	garble := g.font("Garble", 500, "/Encoding << /Type /Encoding /Differences [84 /Q /Q /Q /Q /Q] >>")
	inner := g.form(fmt.Sprintf("/Resources << /Font << /F1 %d 0 R >> >>", plain), "BT /F1 11 Tf 72 600 Td (The inner form speaks last) Tj ET")
	// The form draws at y=400; its matrix moves that onto the page's
	// "Total due:" line at y=700, 200 points to the right.
	outer := g.form(fmt.Sprintf("/Matrix [1 0 0 1 100 150] /Resources << /Font << /F1 %d 0 R >> /XObject << /In %d 0 R >> >>", plain, inner),
		"BT /F1 11 Tf 0 400 Td (1234 euros) Tj ET /In Do")
	g.pageRes(fmt.Sprintf("/Font << /F1 %d 0 R /F2 %d 0 R >> /XObject << /Fm1 %d 0 R >>", garble, plain, outer),
		"BT /F2 11 Tf 72 700 Td (Total due:) Tj ET q 1 0 0 1 100 150 cm /Fm1 Do Q BT /F2 11 Tf 72 500 Td (Page text after the form) Tj ET")
	text := extractPDFBytes(t, g.bytes())
	inOrder(t, text, "Total due: 1234 euros\n", "The inner form speaks last", "Page text after the form")
}

// Hostile forms end: one that draws itself, one that fans out through a
// chain of distinct forms (50^6 draws without a budget), and one whose
// content does not parse, which does not stop the page.
func TestPDFFormXObjectHostile(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "")
	fontRes := fmt.Sprintf("/Font << /F1 %d 0 R >>", f)
	self := len(g.objs) + 1
	g.form(fmt.Sprintf("/Resources << %s /XObject << /Me %d 0 R >> >>", fontRes, self), "BT /F1 11 Tf 72 650 Td (loop) Tj ET /Me Do /Me Do")
	next := g.form("/Resources << "+fontRes+" >>", "BT /F1 11 Tf 72 640 Td (leaf) Tj ET")
	for range 6 {
		next = g.form(fmt.Sprintf("/Resources << %s /XObject << /N %d 0 R >> >>", fontRes, next), strings.Repeat("/N Do ", 50))
	}
	broken := g.form("/Resources << "+fontRes+" >>", "BT /F1 11 Tf 72 630 Td (broken form) Tj ET end end")
	image := g.stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", "x")
	g.pageRes(fmt.Sprintf("%s /XObject << /Loop %d 0 R /Fan %d 0 R /Bad %d 0 R /Img %d 0 R >>", fontRes, self, next, broken, image),
		"BT /F1 11 Tf 72 700 Td (Before the forms) Tj ET /Loop Do /Bad Do /Img Do /Missing Do /Fan Do BT /F1 11 Tf 72 600 Td (After the forms) Tj ET")
	start := time.Now()
	text := extractPDFBytes(t, g.bytes())
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("hostile forms took %s", d)
	}
	inOrder(t, text, "Before the forms", "loop", "broken form", "leaf", "After the forms")
	if n := strings.Count(text, "loop"); n != 1 {
		t.Errorf("a form drawing itself was entered %d times", n)
	}
	if n := strings.Count(text, "leaf"); n > maxXObjects {
		t.Errorf("fan-out drew %d leaves", n)
	}
}
