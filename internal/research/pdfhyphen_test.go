package research

import (
	"strings"
	"testing"
)

// A word broken at a line end inside a column joins; one broken at the
// bottom of the left column does not join the top of the right column,
// nor does the abstract's last line join the columns below it (at the
// usual line spacing: only the regions tell), whatever the stream order.
func TestPDFLineHyphensStayInTheirColumn(t *testing.T) {
	for _, rows := range []bool{true, false} {
		lines := twoColumnPage(36, rows)
		for i := range lines {
			l := &lines[i]
			switch {
			case strings.HasPrefix(l.text, "Abstract one"):
				l.y = 682 // the abstract ends at the columns' line spacing
			case strings.HasPrefix(l.text, "Abstract two"):
				l.text, l.y = fill("Abstract two spans both columns too", 80)+" abstrac-", 670
			case strings.HasPrefix(l.text, "Left05"):
				l.text = "Left05 the column is an inter-"
			case strings.HasPrefix(l.text, "Left06"):
				l.text = "national standard of the Left06 kind"
			case strings.HasPrefix(l.text, "Left36"):
				l.text = "Left36 the last line of a column rep-"
			case strings.HasPrefix(l.text, "Right01"):
				l.text = "resentation Right01 tops the right column"
			case strings.HasPrefix(l.text, "Left01"):
				l.text = "tion Left01 opens the left column"
			}
		}
		text := extractPDFBytes(t, onePagePDF(lines))
		inOrder(t, text, " abstrac-\ntion Left01", "an international standard", "column rep-\nresentation Right01")
		if strings.Contains(text, hyphenBreak) {
			t.Errorf("rows=%v: a break mark left in the text", rows)
		}
	}
}

// A hyphen before a paragraph gap is not a broken word: the next line is
// farther than the region's usual spacing. Double-spaced text still joins.
func TestPDFLineHyphensNotAcrossParagraphs(t *testing.T) {
	para := func(step float64) []placed {
		var out []placed
		y := 700.0
		for _, s := range []string{"The first paragraph runs on", "for a few lines of its own", "before it ends on a rep-", "resentative word, and one", "line that is followed by a pre-"} {
			out = append(out, placed{"F1", 11, 72, y, s, false})
			y -= step
		}
		return append(out, placed{"F1", 11, 72, y - 2*step, "lude to the second paragraph", false})
	}
	text := extractPDFBytes(t, onePagePDF(para(14)))
	inOrder(t, text, "on a representative word", "followed by a pre-\nlude to the second")
	text = extractPDFBytes(t, onePagePDF(para(28))) // double spacing
	inOrder(t, text, "on a representative word", "followed by a pre-\nlude to the second")
}
