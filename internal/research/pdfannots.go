package research

import (
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// maxPageAnnots bounds the annotations read per page.
const maxPageAnnots = 1000

// Annotation flags (PDF 32000-1 §12.5.3) that keep an annotation off the
// screen.
const (
	annotHidden = 1 << 1
	annotNoView = 1 << 5
)

// annotationText returns the text of a page's free-text annotations (a
// reviewer's note, a typed-in answer on a scanned form, a stamp written
// as text), one per line, or "". Their text is shown on the page but
// drawn from the annotation, outside the content stream. Hidden ones, and
// pop-up notes (/Text, shown only when opened), are left out.
func annotationText(p pdf.Page) string {
	annots := p.V.Key("Annots")
	var lines []string
	for i := 0; i < annots.Len() && i < maxPageAnnots; i++ {
		a := annots.Index(i)
		if a.Kind() != pdf.Dict || a.Key("Subtype").Name() != "FreeText" || a.Key("F").Int64()&(annotHidden|annotNoView) != 0 {
			continue
		}
		text := strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' ' // line breaks of the box
			}
			return r
		}, a.Key("Contents").Text())
		if s := CollapseSpace(text); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
