package research

import (
	"fmt"
	"strings"
	"testing"
)

// twoColumnPage lays out a paper page: a centred title and a full-width
// abstract, two columns of n lines (glyphs are half an em wide, so a 10pt
// line of 44 characters ends before the 296–316 gutter) and a footer.
// rows draws the columns row by row across the page (the stream order
// that interleaves them); otherwise column by column. The footer is
// drawn first either way: its place comes from its position.
func twoColumnPage(n int, rows bool) []placed {
	out := []placed{
		{"F1", 9, 72, 40, "Proceedings of the Workshop on Column Order, offline edition 2026", false},
		{"F1", 9, 292, 28, "Page 1", false},
		{"F1", 16, 222, 740, "Columns Read In Order", false},
		{"F1", 10, 72, 710, fill("Abstract one runs the full width of the page", 90), false},
		{"F1", 10, 72, 698, fill("Abstract two spans both columns too", 90), false},
	}
	var left, right []placed
	for i := 1; i <= n; i++ {
		y := float64(670 - 12*i)
		l := fill(fmt.Sprintf("Left%02d", i), 44)
		if i == 10 { // an overfull line reaching past the middle of the gutter
			l = "Left10 overfull line reaching into the gutter"
		}
		left = append(left, placed{"F1", 10, 72, y, l, false})
		right = append(right, placed{"F1", 10, 316, y, fill(fmt.Sprintf("Right%02d", i), 44), false})
	}
	if !rows {
		return append(append(out, left...), right...)
	}
	for i := range left {
		out = append(out, left[i], right[i])
	}
	return out
}

func onePagePDF(lines []placed) []byte {
	g := newPDFGen()
	g.page(map[string]int{"F1": g.font("Helvetica", 500, "/Encoding /WinAnsiEncoding")}, contentOf(lines))
	return g.bytes()
}

// standardFontPDF draws the lines in Times-Roman without /Widths, as
// simple generators do: layout takes the font's standard metrics.
func standardFontPDF(lines []placed) []byte {
	g := newPDFGen()
	g.page(map[string]int{"F1": g.add("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>")}, contentOf(lines))
	return g.bytes()
}

// A two-column page drawn row by row used to come out with the columns
// interleaved line by line: it is read column by column, the title and
// abstract first and the footer last, and drawn column by column it reads
// the same.
func TestPDFTwoColumnsReadColumnByColumn(t *testing.T) {
	rows := extractPDFBytes(t, onePagePDF(twoColumnPage(36, true)))
	want := []string{"Columns Read In Order\n", "Abstract one", "Abstract two"}
	for i := 1; i <= 36; i++ {
		want = append(want, fmt.Sprintf("\nLeft%02d ", i))
	}
	for i := 1; i <= 36; i++ {
		want = append(want, fmt.Sprintf("\nRight%02d ", i))
	}
	want = append(want, "Proceedings of the Workshop", "Page 1")
	inOrder(t, rows, want...)
	for _, l := range strings.Split(rows, "\n") {
		if strings.Contains(l, "Left") && strings.Contains(l, "Right") {
			t.Fatalf("columns interleaved in %q:\n%s", l, rows)
		}
	}
	if cols := extractPDFBytes(t, onePagePDF(twoColumnPage(36, false))); cols != rows {
		t.Errorf("column-order stream reads differently:\n%s\nvs row order:\n%s", cols, rows)
	}
	// A standard font without /Widths: Times glyphs are narrower than
	// the test font's, so the same lines leave a wider gutter.
	if std := extractPDFBytes(t, standardFontPDF(twoColumnPage(36, true))); std != rows {
		t.Errorf("standard font without widths reads differently:\n%s", std)
	}
}

// Three columns of 8pt text read left to right.
func TestPDFThreeColumns(t *testing.T) {
	var lines []placed
	for i := 1; i <= 16; i++ {
		y := float64(700 - 10*i)
		for c, x := range []float64{72, 232, 392} {
			lines = append(lines, placed{"F1", 8, x, y, fill(fmt.Sprintf("C%dL%02d", c+1, i), 36), false})
		}
	}
	text := extractPDFBytes(t, onePagePDF(lines))
	var want []string
	for c := 1; c <= 3; c++ {
		for i := 1; i <= 16; i++ {
			want = append(want, fmt.Sprintf("C%dL%02d ", c, i))
		}
	}
	inOrder(t, text, want...)
}

// A single-column page with a centred heading and a tall table whose
// columns leave a gap through most of the page is not a column layout:
// each table row stays one line.
func TestPDFTableIsNotColumns(t *testing.T) {
	lines := []placed{{"F1", 14, 246, 740, "Results Table", false}}
	for i := 0; i < 3; i++ {
		lines = append(lines, placed{"F1", 10, 72, float64(716 - 12*i), fill(fmt.Sprintf("Intro%d", i), 90), false})
	}
	descs := []string{"short", "a longer description here", "mid length note", "x", "another fairly long cell text"}
	for i := 1; i <= 30; i++ {
		y := float64(670 - 16*i)
		lines = append(lines,
			placed{"F1", 10, 72, y, fmt.Sprintf("item%02d", i), false},
			placed{"F1", 10, 200, y, fmt.Sprint(i * 7), false},
			placed{"F1", 10, 300, y, descs[i%len(descs)], false})
	}
	lines = append(lines, placed{"F1", 10, 72, 160, fill("Outro", 90), false})
	text := extractPDFBytes(t, onePagePDF(lines))
	for i := 1; i <= 30; i++ {
		row := fmt.Sprintf("item%02d %d %s\n", i, i*7, descs[i%len(descs)])
		if !strings.Contains(text, row) {
			t.Fatalf("table row %q split:\n%s", row, text)
		}
	}
	inOrder(t, text, "Results Table\n", "Intro0", "Intro2", "item01", "item30", "Outro")
}

// Line numbers in the margin of a manuscript leave a sustained gutter,
// but a column of numbers is not prose: the page keeps stream order.
func TestPDFLineNumbersAreNotAColumn(t *testing.T) {
	var lines []placed
	for i := 1; i <= 30; i++ {
		y := float64(720 - 14*i)
		lines = append(lines, placed{"F1", 10, 40, y, fmt.Sprint(i), false},
			placed{"F1", 10, 72, y, fill(fmt.Sprintf("Body%02d", i), 90), false})
	}
	text := extractPDFBytes(t, onePagePDF(lines))
	for i := 1; i <= 30; i++ {
		if !strings.Contains(text, fmt.Sprintf("%d Body%02d ", i, i)) {
			t.Fatalf("line %d moved away from its number:\n%s", i, text)
		}
	}
}

// A full-width figure caption in the middle of a two-column page splits
// it: the columns above it are read first, then the caption, then the
// columns below.
func TestPDFFullWidthBlockBetweenColumnBands(t *testing.T) {
	var lines []placed
	y := 720.0
	for i := 1; i <= 30; i++ {
		if i == 13 {
			lines = append(lines, placed{"F1", 10, 72, y - 6, fill("Figure 1 caption runs across both columns", 90), false})
			y -= 30
		}
		lines = append(lines,
			placed{"F1", 10, 72, y, fill(fmt.Sprintf("Left%02d", i), 44), false},
			placed{"F1", 10, 316, y, fill(fmt.Sprintf("Right%02d", i), 44), false})
		y -= 12
	}
	text := extractPDFBytes(t, onePagePDF(lines))
	inOrder(t, text, "Left01 ", "Left12 ", "Right01 ", "Right12 ", "Figure 1 caption", "Left13 ", "Left30 ", "Right13 ", "Right30 ")
}

// Text drawn turned a quarter (a landscape table on a portrait page) has
// no horizontal font size to measure columns by: it keeps stream order.
func TestPDFRotatedTextKeepsStreamOrder(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 24; i++ {
		x := 100 + 20*(i%12)
		if i >= 12 {
			x += 300
		}
		fmt.Fprintf(&b, "BT /F1 10 Tf 0 1 -1 0 %d 100 Tm (Rot%02d turned line of text here) Tj ET\n", x, i)
	}
	g := newPDFGen()
	g.page(map[string]int{"F1": g.font("Helvetica", 500, "/Encoding /WinAnsiEncoding")}, b.String())
	data := g.bytes()
	text := extractPDFBytes(t, data)
	flat := strings.ReplaceAll(text, "\n", "")
	var want []string
	for i := 0; i < 24; i++ {
		want = append(want, fmt.Sprintf("Rot%02d", i))
	}
	inOrder(t, flat, want...)
}

// Blank strips: a running head set apart above the columns is read first
// (a thin band of its own), but gaps that line up by chance inside the
// body (a section heading in one column, a float in the other) do not
// cut the columns into bands read out of order.
func TestPDFBlankStripsAndBands(t *testing.T) {
	lines := []placed{
		{"F1", 9, 72, 760, "Journal of Column Tests", false},
		{"F1", 9, 500, 760, "Vol 3", false},
	}
	y := 720.0
	for i := 1; i <= 34; i++ {
		if i == 15 {
			y -= 40 // both columns leave a gap here
		}
		lines = append(lines,
			placed{"F1", 10, 72, y, fill(fmt.Sprintf("Left%02d", i), 44), false},
			placed{"F1", 10, 316, y, fill(fmt.Sprintf("Right%02d", i), 44), false})
		y -= 12
	}
	text := extractPDFBytes(t, onePagePDF(lines))
	inOrder(t, text, "Journal of Column Tests", "Vol 3", "Left01 ", "Left14 ", "Left15 ", "Left34 ", "Right01 ", "Right14 ", "Right15 ", "Right34 ")
}
