package research

import (
	"strings"
	"testing"
)

func TestExtractPDF(t *testing.T) {
	data := makePDF(t, [][]string{
		{"Pager Internals", "", "1. Introduction", "The pager manages pages and the journal."},
		{"2. Rollback", "Rollback restores the original pages from the journal."},
	})
	doc, err := Extract("paper.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "The pager manages pages and the journal.") || !strings.Contains(doc.Text, "Rollback restores") {
		t.Fatalf("text: %q", doc.Text)
	}
	if strings.Index(doc.Text, "Introduction") > strings.Index(doc.Text, "2. Rollback") {
		t.Fatal("pages out of order")
	}
	var titles []string
	for _, s := range doc.Sections {
		titles = append(titles, s.Title)
	}
	if !strings.Contains(strings.Join(titles, "|"), "2. Rollback") {
		t.Fatalf("numbered heading not detected: %q", titles)
	}
}

func TestExtractBadInput(t *testing.T) {
	pdf := makePDF(t, [][]string{{"hello"}})
	tests := []struct {
		name, file string
		data       []byte
		reason     string
	}{
		{"empty pdf", "a.pdf", nil, "empty"},
		{"truncated pdf", "a.pdf", pdf[:len(pdf)/2], "corrupt PDF"},
		{"not a pdf", "a.pdf", []byte("hello world"), "not a PDF"},
		{"encrypted pdf", "a.pdf", []byte(strings.Replace(string(pdf), "/Root 1 0 R", "/Root 1 0 R /Encrypt << /Filter /Standard >>", 1)), "encrypted"},
		{"no text pdf", "a.pdf", makePDF(t, [][]string{{}}), "no extractable text (scanned pages without a text layer?); OCR it first (ocrmypdf"},
		{"binary txt", "a.txt", []byte("abc\x00\x01\x02"), "binary"},
		{"pdf named txt", "a.txt", pdf, "binary"},
		{"control bytes txt", "a.txt", []byte("\x01\x02\x03\x04\x05\x06\x81\x8d\x8f\x90 abc"), "not valid UTF-8 or Latin-1"},
		{"utf16 garbage", "a.txt", []byte("\xff\xfe\x01\x00\x02\x00\x03\x00"), "not valid UTF-16"},
		{"empty md", "a.md", []byte(" \n\n"), "empty"},
		{"not epub", "a.epub", []byte("hello"), "not an EPUB"},
		{"corrupt epub", "a.epub", []byte("PK\x03\x04garbage"), "corrupt EPUB"},
		{"zip slip epub", "a.epub", makeEPUB(t, map[string]string{"+../../evil.txt": "x"}), "unsafe path"},
		{"drm epub", "a.epub", makeEPUB(t, map[string]string{"+META-INF/encryption.xml": "<encryption/>"}), "encrypted"},
		{"unknown ext", "a.exe", []byte("MZ"), "unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract(tt.file, tt.data)
			se, ok := err.(*SkipError)
			if !ok {
				t.Fatalf("err = %v (%T), want a SkipError", err, err)
			}
			if !strings.Contains(se.Reason, tt.reason) {
				t.Fatalf("reason %q, want it to mention %q", se.Reason, tt.reason)
			}
		})
	}
}

func TestExtractDecodesUTF16AndLatin1(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	utf16be := []byte{0xFE, 0xFF}
	for _, r := range "# Café\n\nCrème brûlée – naïve\n" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
		utf16be = append(utf16be, byte(r>>8), byte(r))
	}
	for name, data := range map[string][]byte{
		"utf16le.md": utf16le,
		"utf16be.md": utf16be,
		"latin1.md":  []byte("# Caf\xe9\n\nCr\xe8me br\xfbl\xe9e \x96 na\xefve\n"), // 0x96: en dash in Windows-1252
	} {
		doc, err := Extract(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Title != "Café" || !strings.Contains(doc.Text, "Crème brûlée – naïve") {
			t.Errorf("%s: title %q text %q", name, doc.Title, doc.Text)
		}
	}
}

func TestExtractEPUBSpineOrder(t *testing.T) {
	doc, err := Extract("book.epub", makeEPUB(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "The Pager Book" {
		t.Fatalf("title %q", doc.Title)
	}
	first, second := strings.Index(doc.Text, "First Chapter"), strings.Index(doc.Text, "Second Chapter")
	if first < 0 || second < 0 || first > second {
		t.Fatalf("spine order not kept: %q", doc.Text)
	}
	if strings.Contains(doc.Text, "evil") {
		t.Fatal("script text extracted")
	}
	if len(doc.Sections) != 2 || doc.Sections[0].Title != "First Chapter" {
		t.Fatalf("sections %+v", doc.Sections)
	}
}

func TestExtractHTML(t *testing.T) {
	src := `<!--{"Title": "The Spec"}--><html><head><title>T</title><style>x{}</style></head><body>
<nav>menu</nav><h2 id="a">Statements</h2><p>Intro   text <b>bold</b>.</p><h3>Select statements</h3><p>A select picks a case.</p>
<pre>code  line1
  line2</pre></body></html>`
	doc, err := Extract("spec.html", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "The Spec" {
		t.Fatalf("title %q", doc.Title)
	}
	if strings.Contains(doc.Text, "menu") || strings.Contains(doc.Text, "x{}") {
		t.Fatalf("nav/style leaked: %q", doc.Text)
	}
	if !strings.Contains(doc.Text, "Intro text bold.") || !strings.Contains(doc.Text, "code  line1\n  line2") {
		t.Fatalf("text: %q", doc.Text)
	}
	last := doc.Sections[len(doc.Sections)-1]
	if last.Path != "Statements > Select statements" {
		t.Fatalf("breadcrumb %q", last.Path)
	}
}

func TestMarkdownSections(t *testing.T) {
	md := "preamble\n# Title\nintro\n## A {#a}\naaa\n```\n# not a heading\n```\n### A1\nx\n## B\ny\n"
	secs := MarkdownSections(md)
	var got []string
	for _, s := range secs {
		got = append(got, s.ID+"="+s.Path)
	}
	want := "section-001=|title-002=Title|a-003=Title > A|a1-004=Title > A > A1|b-005=Title > B"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	// Sections tile the text.
	for i := 1; i < len(secs); i++ {
		if secs[i].Start != secs[i-1].End {
			t.Fatal("sections do not tile the text")
		}
	}
	// Headings with nothing under them are dropped (a repeated chapter
	// title, an empty section), unless they are the parent of subsections.
	got = nil
	for _, s := range MarkdownSections("# About\n\n# About\n\nbody\n## Empty\n\n## Sub\ntext\n# Parent\n## Child\ntext\n") {
		got = append(got, s.Path)
	}
	if want := "About|About > Sub|Parent|Parent > Child"; strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if s := MarkdownSections("no headings"); len(s) != 1 || s[0].ID != "section-001" || s[0].Title != "Full Document" {
		t.Fatalf("%+v", s)
	}
}

func TestTextSections(t *testing.T) {
	text := strings.Join([]string{
		"Table of Contents",
		"Introduction ........ 1",
		"Rollback Procedures ..... 3",
		"   10.16. Misuse of Access Token to Impersonate Resource",
		"          Owner in Implicit Flow ...............................67",
		"   Appendix B. Use of application/x-www-form-urlencoded Media Type ...74",
		"",
		"",
		"",
		"INTRODUCTION",
		"",
		"The pager is described here in enough words to be prose, not a heading at all.",
		"",
		"Chapter 2 Rollback Procedures",
		"",
		"Rollback restores pages.",
		"F(1, 20) = 3.2",
		"II",
		"x; y; z",
	}, "\n")
	got := sectionTitles(TextSections(text))
	if !strings.Contains(got, "INTRODUCTION") || !strings.Contains(got, "Chapter 2 Rollback Procedures") {
		t.Fatalf("headings missed: %q", got)
	}
	for _, bad := range []string{"F(1, 20)", "II", "x; y", "Introduction ........ 1", "The pager", "Misuse", "Appendix B"} {
		if strings.Contains(got, bad) {
			t.Fatalf("%q detected as a heading: %q", bad, got)
		}
	}
}

// sectionTitles joins the sections' titles with "|".
func sectionTitles(secs []Section) string {
	titles := make([]string, len(secs))
	for i, s := range secs {
		titles[i] = s.Title
	}
	return strings.Join(titles, "|")
}

// Papers set their standard sections as bare lines, often with no blank
// lines around them in PDF text; affiliation lists are not headings.
func TestTextSectionsPaper(t *testing.T) {
	text := strings.Join([]string{
		"A Study of Pagers",
		"1.  Institute of Paging, Harvard Medical School, Boston, Massachusetts, USA",
		"2.  EyeNexo LLC , Boston, Massachusetts, United States of America",
		"Abstract ",
		"We study pagers and their rollback behaviour in some detail here.",
		"Introduction  ",
		"Pagers roll back the journal when a transaction fails, which we measure.",
		"Materials and Methods",
		"We built twelve pagers and crashed each of them many times over.",
		"References",
		"[1] A. Author. Paging. 2020.",
	}, "\n")
	if got, want := sectionTitles(TextSections(text)), "|Abstract|Introduction|Materials and Methods|References"; got != want {
		t.Fatalf("sections %q, want %q", got, want)
	}
}

func TestPDFRunningHeadsAndTitle(t *testing.T) {
	var pages [][]string
	for i := 1; i <= 5; i++ {
		page := []string{"RFC 9999 Pager Protocol March 2030", "", itoa(i) + ". Section " + itoa(i)}
		for j := 0; j < 8; j++ {
			page = append(page, "Body text of section "+itoa(i)+" line "+itoa(j)+" explains the pager.")
		}
		pages = append(pages, append(page, "", "Author Standards Track [Page "+itoa(i)+"]"))
	}
	doc, err := Extract("rfc9999.pdf", makePDF(t, pages))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "Standards Track") || strings.Contains(doc.Text, "March 2030") {
		t.Fatalf("running lines kept: %q", doc.Text)
	}
	if !strings.Contains(doc.Text, "Body text of section 3") || doc.Title != "rfc9999" {
		t.Fatalf("title %q text %q", doc.Title, doc.Text)
	}
	for i := 1; i < 5; i++ { // pages in order
		if strings.Index(doc.Text, "section "+itoa(i)+" line 0") > strings.Index(doc.Text, "section "+itoa(i+1)+" line 0") {
			t.Fatalf("page %d after page %d: %q", i, i+1, doc.Text)
		}
	}
	doc, err = Extract("paper.pdf", makePDF(t, [][]string{{"The light box offers a rep-", "resentation of the training-", "free method for mice, and a", "training-free baseline."}}))
	if err != nil || !strings.Contains(doc.Text, "a representation of the training-free method") {
		t.Fatalf("line-end hyphen not rejoined: %q (%v)", doc.Text, err)
	}
	if got := TextSections("Contents\n\n1. Intro ........ 3\n\nBody\n\n2. Next .......... 9\n"); len(got) != 1 {
		t.Fatalf("dot-leader TOC lines became sections: %+v", got)
	}
}

// joinLineHyphens joins only at the breaks pageText marked (M): a word
// broken before a lower-case letter loses its hyphen, unless the document
// writes the compound whole; a capital or a digit keeps the break; a soft
// hyphen goes before any letter; an unmarked break stays.
func TestJoinLineHyphens(t *testing.T) {
	const M = hyphenBreak
	for in, want := range map[string]string{
		"a rep-" + M + "\nresentation":                       "a representation",
		"a rep- " + M + "\n  resentation":                    "a representation",
		"co-" + M + "\noperate and re-" + M + "\n\tenter":    "cooperate and reenter",
		"a training-" + M + "\nfree method, training-free":   "a training-free method, training-free",
		"state-of-the-" + M + "\nart; state-of-the-art":      "state-of-the-art; state-of-the-art",
		"see RFC-" + M + "\nSection 4":                       "see RFC-\nSection 4", // capital: a new sentence or a name
		"range 1-" + M + "\n2":                               "range 1-\n2",
		"item 7-" + M + "\n9 kept":                           "item 7-\n9 kept",
		"-" + M + "\nx":                                      "-\nx",
		"naïve-" + M + "\nété":                               "naïveété",
		"com\u00AD" + M + "\nputes, Ob\u00AD" + M + "\nJect": "computes, ObJect",
		"unmarked rep-\nresentation":                         "unmarked rep-\nresentation",
		"stray " + M + "mark":                                "stray mark",
		"no hyphen here\nat all":                             "no hyphen here\nat all",
		"icon \uE000 a rep-" + M + "\nresentation":           "icon \uE000 a representation", // a private-use glyph is text
		M: "",
	} {
		if got := joinLineHyphens(in); got != want {
			t.Errorf("joinLineHyphens(%q) = %q, want %q", in, got, want)
		}
	}
}
