package research

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A filled form's answers are in its field tree, not the page text: they
// are ingested as "name: value" lines after the text, named by tooltip or
// field name, with unticked boxes, empty fields and endless trees left out.
func TestPDFFormFieldValues(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "")
	g.page(map[string]int{"F1": f}, contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Application for a library card"}}))
	name := g.add("<< /FT /Tx /T (fname) /TU (First name) /V (Ada Lovelace) >>")
	city := g.add("<< /FT /Tx /T (city) /V <FEFF004D00FC006E006300680065006E> >>") // UTF-16: München
	agree := g.add("<< /FT /Btn /T (agree) /V /Yes >>")
	off := g.add("<< /FT /Btn /T (newsletter) /V /Off >>")
	empty := g.add("<< /FT /Tx /T (notes) /V () >>")
	langs := g.add("<< /FT /Ch /T (languages) /V [(English) (French)] >>")
	kid := g.add("<< /T (street) /V (12 Baker St) >>")
	addr := g.add(fmt.Sprintf("<< /T (address) /Kids [%d 0 R] >>", kid))
	// A field tree that points back at itself, many times over, must end
	// (depth alone would allow 50^8 visits).
	loop := len(g.objs) + 1
	g.add(fmt.Sprintf("<< /T (loop) /Kids [%s] >>", strings.Repeat(fmt.Sprintf("%d 0 R ", loop), 50)))
	g.catalog = fmt.Sprintf("/AcroForm << /Fields [%d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R] >> ",
		name, city, agree, off, empty, langs, addr, loop)
	start := time.Now()
	text := extractPDFBytes(t, g.bytes())
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a looping field tree took %s", d)
	}
	inOrder(t, text, "Application for a library card", "Form fields:", "First name: Ada Lovelace", "city: München", "agree: Yes", "languages: English, French", "street: 12 Baker St")
	for _, bad := range []string{"newsletter", "notes", "Off"} {
		if strings.Contains(text, bad) {
			t.Fatalf("%q in:\n%s", bad, text)
		}
	}
}

// A form with nothing filled in adds nothing.
func TestPDFEmptyFormAddsNothing(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "")
	g.page(map[string]int{"F1": f}, contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Blank form"}}))
	field := g.add("<< /FT /Tx /T (fname) >>")
	g.catalog = fmt.Sprintf("/AcroForm << /Fields [%d 0 R] >> ", field)
	if text := extractPDFBytes(t, g.bytes()); strings.Contains(text, "Form fields") {
		t.Fatalf("%q", text)
	}
}
