package research

import (
	"fmt"
	"strings"
	"testing"
)

// A free-text annotation shows its text on the page, outside the content
// stream: it is extracted after the page's text. Hidden ones and pop-up
// notes are not.
func TestPDFFreeTextAnnotations(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "")
	g.page(map[string]int{"F1": f}, contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Quarterly figures for review"}}))
	g.page(map[string]int{"F1": f}, contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Second page"}}))
	note := g.add("<< /Type /Annot /Subtype /FreeText /Rect [72 600 300 640] /Contents (Reviewer:\\r check the\\ttotals) /DA (/Helv 10 Tf) >>")
	utf := g.add("<< /Type /Annot /Subtype /FreeText /Rect [72 500 300 540] /Contents <FEFF004D00FC006E006300680065006E> >>")
	hidden := g.add("<< /Type /Annot /Subtype /FreeText /F 2 /Rect [72 400 300 440] /Contents (hidden remark) >>")
	popup := g.add("<< /Type /Annot /Subtype /Text /Rect [72 300 90 320] /Contents (sticky note) >>")
	first := g.pages[0] - 1
	g.objs[first] = strings.Replace(g.objs[first], "/Contents", fmt.Sprintf("/Annots [%d 0 R %d 0 R %d 0 R %d 0 R 77 0 R 5] /Contents", note, utf, hidden, popup), 1)
	text := extractPDFBytes(t, g.bytes())
	inOrder(t, text, "Quarterly figures for review\n", "Reviewer: check the totals\n", "München\n", "Second page")
	for _, bad := range []string{"hidden remark", "sticky note"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q in %q", bad, text)
		}
	}
}
