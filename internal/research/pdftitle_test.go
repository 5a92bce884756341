package research

import (
	"fmt"
	"testing"
)

// A bold title wrapped after a word no title ends on ("… What" / "You
// Need") is one section, short as it is; two short bold headings in a row
// stay two.
func TestPDFWrappedShortBoldTitle(t *testing.T) {
	g := newPDFGen()
	body := g.font("Helvetica", 500, "")
	bold := g.font("Helvetica-Bold", 550, "")
	lines := []placed{
		{font: "B", size: 16, x: 72, y: 740, text: "Attention Is Mostly What"},
		{font: "B", size: 16, x: 72, y: 720, text: "You Need"},
	}
	y := 690.0
	for i := range 12 {
		lines = append(lines, placed{font: "R", size: 10, x: 72, y: y, text: fill(fmt.Sprintf("Line %d", i), 80)})
		y -= 14
	}
	lines = append(lines, placed{font: "B", size: 10, x: 72, y: y - 10, text: "Results"})
	y -= 24
	lines = append(lines, placed{font: "B", size: 10, x: 72, y: y - 10, text: "Main findings"})
	y -= 24
	for i := range 12 {
		lines = append(lines, placed{font: "R", size: 10, x: 72, y: y, text: fill(fmt.Sprintf("Row %d", i), 80)})
		y -= 14
	}
	g.page(map[string]int{"R": body, "B": bold}, contentOf(lines))
	doc, err := Extract("paper.pdf", g.bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, "paper.pdf", doc.Sections,
		"1:Attention Is Mostly What You Need",
		"1:Results",
		"2:Results > Main findings",
	)
}
