package research

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures under testdata/extract are written by gen.py there; each
// reproduces a defect seen on a real document with `make eval-extract`.

// checkSections compares sections, as "level:path", with want.
func checkSections(t *testing.T, name string, secs []Section, want ...string) {
	t.Helper()
	var got []string
	for _, s := range secs {
		got = append(got, itoa(s.Level)+":"+s.Path)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s sections\n got %q\nwant %q", name, got, want)
	}
}

func extractFixture(t *testing.T, name string) *Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "extract", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Extract(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A bioRxiv page ends with a three-line licence footer, and the UDHR's
// "Article N" headings start most pages: the footer goes entirely, the
// headings (which also recur inside pages) all stay.
func TestPDFRunningFooterOfThreeLinesAndRecurringHeadings(t *testing.T) {
	doc := extractFixture(t, "running-lines.pdf")
	for _, s := range []string{"International license", "peer review", "bioRxiv preprint"} {
		if strings.Contains(doc.Text, s) {
			t.Errorf("running footer line %q kept", s)
		}
	}
	for i := 1; i <= 12; i++ {
		if !strings.Contains(doc.Text, "Article "+itoa(i)+"\n") {
			t.Errorf("heading Article %d dropped as a running line", i)
		}
	}
	if !strings.Contains(doc.Text, "journal slavery 12.3 by the checkpointer.") {
		t.Fatalf("body lost: %q", doc.Text)
	}
}

// Ligature glyphs become their letters, a soft hyphen at a line end joins
// the word, and a newline character drawn inside a word does not split it.
func TestPDFLigaturesSoftHyphensAndInlineNewlines(t *testing.T) {
	doc := extractFixture(t, "glyphs.pdf")
	for _, want := range []string{"The first flow", "efficient and reflects", "the checkpointer computes the frames", "promotes respect for locks", "Specific pages"} {
		if !strings.Contains(CollapseSpace(doc.Text), want) {
			t.Errorf("missing %q in %q", want, doc.Text)
		}
	}
	if strings.ContainsAny(doc.Text, "\uFB01\uFB02\uFB03\u00AD") {
		t.Errorf("ligature or soft hyphen left: %q", doc.Text)
	}
}

// A PDF outline names the sections: its titles (a wrapped one included)
// become the sections with their levels, and a broken body line is not
// taken for a heading.
func TestPDFOutlineSections(t *testing.T) {
	doc := extractFixture(t, "outline.pdf")
	checkSections(t, "outline.pdf", doc.Sections,
		"1:Pager Handbook",
		"2:Pager Handbook > Preface",
		"2:Pager Handbook > Rollback journal",
		"2:Pager Handbook > Write-ahead log and checkpoints",
		"1:Index of terms",
	)
	for _, s := range doc.Sections {
		body := doc.Text[s.Start:s.End]
		if s.Title == "Rollback journal" && !strings.Contains(body, "interrupted transaction") {
			t.Errorf("section %q does not hold its text: %q", s.Title, body)
		}
	}
	chunks, err := ChunkDocument(doc, Chunker{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if strings.Contains(c.Text, "interrupted transaction") && c.Section != "Pager Handbook > Rollback journal" {
			t.Errorf("chunk section %q", c.Section)
		}
	}
}

// E-books hyphenate with soft hyphens (&shy;): they are dropped, so the
// word is one token for search; ligatures become letters.
func TestEPUBSoftHyphensAndLigatures(t *testing.T) {
	doc := extractFixture(t, "soft-hyphen.epub")
	for _, want := range []string{"The checkpointer copies", "its efficiency depends on the file system"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("missing %q in %q", want, doc.Text)
		}
	}
	if len(doc.Sections) == 0 || doc.Sections[0].Title != "Checkpoints" {
		t.Errorf("sections %+v", doc.Sections)
	}
}

// RFC-style numbered headings in a PDF nest by their numbers, so a chunk
// of 3.1.2 carries the breadcrumb of 3 and 3.1.
func TestPDFNumberedSectionLevels(t *testing.T) {
	text := strings.Join([]string{
		"Abstract", "", "The protocol in brief, as prose that is long enough.", "",
		"3.  Protocol Endpoints", "", "Endpoints are described here in some words.", "",
		"3.1.  Authorization Endpoint", "", "The endpoint interacts with the owner.", "",
		"3.1.2.  Redirection Endpoint", "", "The server redirects the user-agent back.", "",
		"4.  Obtaining Authorization", "", "Access tokens are obtained by grants.", "",
		"Appendix A.  Augmented Backus-Naur Form", "", "Syntax is given in ABNF here.", "",
		"A.1.  client_id Syntax", "", "The client_id element is defined.",
	}, "\n")
	checkSections(t, "numbered", textSections(text, true, nil),
		"1:Abstract",
		"1:3. Protocol Endpoints",
		"2:3. Protocol Endpoints > 3.1. Authorization Endpoint",
		"3:3. Protocol Endpoints > 3.1. Authorization Endpoint > 3.1.2. Redirection Endpoint",
		"1:4. Obtaining Authorization",
		"1:Appendix A. Augmented Backus-Naur Form",
		"2:Appendix A. Augmented Backus-Naur Form > A.1. client_id Syntax",
	)
}

func TestPDFNumberedSectionsNestThroughExtract(t *testing.T) {
	doc, err := Extract("rfc.pdf", makePDF(t, [][]string{{
		"3.  Protocol Endpoints", "", "Endpoints are described here in some words.", "",
		"3.1.  Authorization Endpoint", "", "The endpoint interacts with the owner.",
	}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Sections[len(doc.Sections)-1].Path; got != "3. Protocol Endpoints > 3.1. Authorization Endpoint" {
		t.Fatalf("path %q", got)
	}
}

// With no info title, the single top outline entry that the first page
// shows is the document's title (the UDHR was listed as "udhr").
func TestPDFTitleFromOutline(t *testing.T) {
	doc := extractFixture(t, "outline-title.pdf")
	if doc.Title != "Universal Pager Declaration" {
		t.Fatalf("title %q", doc.Title)
	}
	if last := doc.Sections[len(doc.Sections)-1]; last.Path != "Universal Pager Declaration > Article 2" {
		t.Fatalf("sections %+v", doc.Sections)
	}
}

// Papers set their titles in a bold font: bold lines become sections
// (a wrapped title is one), subsections nest under the standard section
// before them, and a bold figure caption is not a heading.
func TestPDFBoldHeadings(t *testing.T) {
	doc := extractFixture(t, "bold-headings.pdf")
	checkSections(t, "bold-headings.pdf", doc.Sections,
		"1:Assessment of Pager Function in Databases Using Journals and Write-Ahead Logs",
		"1:Abstract",
		"1:Results",
		"2:Results > Enhanced durability of journal-based rollback versus checkpoints alone",
		"1:Methods",
		"2:Methods > Pager instrumentation",
		"1:References",
	)
}

// Chapter files all start at h1; the table of contents (NCX or nav) puts
// them under their part, so the part is a section and the breadcrumbs
// read "Part One > Chapter A > Details".
func TestEPUBTableOfContentsLevels(t *testing.T) {
	want := []string{
		"1:Part One",
		"2:Part One > Chapter A",
		"3:Part One > Chapter A > Details",
		"2:Part One > Chapter B",
	}
	for _, name := range []string{"toc-ncx.epub", "toc-nav.epub"} {
		checkSections(t, name, extractFixture(t, name).Sections, want...)
	}
}
