package research

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"
)

const testCMap = `%!PS-Adobe-3.0 Resource-CMap
/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Test-UCS def % a comment <FF> <0041>
1 begincodespacerange
<00> <FF>
endcodespacerange
3 beginbfchar
<41> <0063>
<42> <0061>
<45> <00660069>
endbfchar
2 beginbfrange
<43> <43> <0074>
<61> <63> <0078>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`

// A font whose /Differences name its glyphs meaninglessly (as subsetting
// tools do) and whose /ToUnicode says what they are: the ToUnicode map
// wins for the codes it covers, the encoding serves the rest (D is
// /bullet, the space is the base encoding's). The library alone read
// "ABC • abc E".
func TestPDFToUnicodeWinsOverDifferences(t *testing.T) {
	g := newPDFGen()
	cmap := g.stream("", testCMap)
	diff := g.font("ABCDEF+Subset", 500, "/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [65 /g65 /g66 /g67 /bullet /g69] >> /ToUnicode "+itoa(cmap)+" 0 R")
	// A named encoding with a ToUnicode map: the map wins too.
	omega := g.stream("", "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <03A9> endbfchar")
	named := g.font("Named", 500, "/Encoding /WinAnsiEncoding /ToUnicode "+itoa(omega)+" 0 R")
	g.page(map[string]int{"F1": diff, "F2": named}, contentOf([]placed{
		{"F1", 12, 72, 700, "ABC D abc E", false},
		{"F2", 12, 72, 680, "A1 B", false},
	}))
	text := extractPDFBytes(t, g.bytes())
	if !strings.Contains(text, "cat • xyz fi\n") {
		t.Errorf("Differences font: got %q", text)
	}
	if !strings.Contains(text, "Ω1 B") {
		t.Errorf("named encoding font: got %q", text)
	}
}

func TestParseToUnicode(t *testing.T) {
	m := parseToUnicode(strings.NewReader(`
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar
<0001> <D835DC00>
(\000\002) <0041>
endbfchar
2 beginbfrange
<0100> <04FF> <4E00>
<0010> <0012> [<0061> <0062006300640065> <0066>]
endbfrange`))
	if m == nil {
		t.Fatal("nothing parsed")
	}
	for code, want := range map[uint32]string{1: "𝐀", 2: "A", 0x100: "一", 0x4FF: string(rune(0x4E00 + 0x3FF)), 0x10: "a", 0x11: "bcde", 0x12: "f"} {
		if got, ok := m.lookup(cmapCode{2, code}); !ok || got != want {
			t.Errorf("code %04x: got %q %v, want %q", code, got, ok, want)
		}
	}
	if _, ok := m.lookup(cmapCode{2, 0x500}); ok {
		t.Error("code past the range mapped")
	}
	if n := m.codeLen("\x01\x00"); n != 2 {
		t.Errorf("code length %d", n)
	}
	if parseToUnicode(strings.NewReader("begincmap endcmap")) != nil {
		t.Error("an empty map is not nil")
	}
}

// A composite font's glyphs advance by its /W widths (the library gave
// every glyph of a composite font no width), and its two-byte codes go
// through the ToUnicode map.
func TestPDFCompositeFontWidths(t *testing.T) {
	g := newPDFGen()
	cmap := g.stream("", "1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0001> <0003> <0061> endbfrange")
	desc := g.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Comp /DW 1000 /W [1 [250 500] 3 3 750] >>")
	f := g.add("<< /Type /Font /Subtype /Type0 /BaseFont /Comp /Encoding /Identity-H /DescendantFonts [" + itoa(desc) + " 0 R] /ToUnicode " + itoa(cmap) + " 0 R >>")
	g.page(map[string]int{"F1": f}, contentOf([]placed{{"F1", 10, 100, 700, "<000100020003>", true}}))
	data := g.bytes()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	items := pageItems(pdfPages(r)[0])
	var got []string
	for _, it := range items {
		got = append(got, it.S)
	}
	if strings.Join(got, "") != "abc" || len(items) != 3 {
		t.Fatalf("decoded %q", got)
	}
	for i, want := range []float64{100, 102.5, 107.5} {
		if x := items[i].X; x < want-0.01 || x > want+0.01 {
			t.Errorf("glyph %d at x=%g, want %g", i, x, want)
		}
	}
	if w := items[2].W; w < 7.49 || w > 7.51 {
		t.Errorf("last glyph width %g, want 7.5", w)
	}
}

// Justified text widens spaces with word spacing (Tw): the wider gap
// after a space glyph is not a second space.
func TestPDFWordSpacingIsOneSpace(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "/Encoding /WinAnsiEncoding")
	g.page(map[string]int{"F1": f}, "BT /F1 10 Tf 6 Tw 72 700 Td (justified text with wide spaces) Tj ET")
	if text := extractPDFBytes(t, g.bytes()); text != "justified text with wide spaces\n" {
		t.Errorf("got %q", text)
	}
}

// A hostile or broken CMap never panics, and whatever it maps looks up.
func FuzzParseToUnicode(f *testing.F) {
	f.Add(testCMap)
	f.Add("1 beginbfrange <00> <FF> [<0041> (x) <D8>] endbfrange 2 beginbfchar <0102> <> <01> endbfchar")
	f.Add("1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <FFFF> <FFFF> endbfrange (\\")
	f.Add("1 beginbfrange <FFFFFFF0> <FFFFFFFF> <0041> endbfrange") // once looped forever
	f.Fuzz(func(t *testing.T, s string) {
		m := parseToUnicode(strings.NewReader(s))
		if m == nil {
			return
		}
		for _, code := range []string{"\x00", "A", "\x01\x02", "\xff\xff\xff"} {
			m.lookup(cmapCode{len(code), beUint([]byte(code))})
			m.lookupByte(code[0])
			m.codeLen(code)
		}
	})
}

// The library decoded a newline after every TJ array through the font's
// encoding: in TeX's OT1 fonts code 10 is /Omega, and every equation came
// out as "EΩ =Ω mcΩ".
func TestPDFNoGlyphAfterTJ(t *testing.T) {
	g := newPDFGen()
	f := g.font("CMMI10", 500, "/Encoding << /Type /Encoding /Differences [10 /Omega 61 /equal] >>")
	g.page(map[string]int{"F1": f}, "BT /F1 10 Tf 72 700 Td [(E)-300(=)-300(mc)] TJ ET")
	if text := extractPDFBytes(t, g.bytes()); strings.Contains(text, "Ω") || !strings.Contains(text, "E") {
		t.Errorf("got %q", text)
	}
}
