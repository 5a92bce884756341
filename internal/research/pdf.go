package research

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// pdfTimeout bounds one PDF's parse; a hostile file cannot hang ingest.
const pdfTimeout = 60 * time.Second

// extractPDF extracts page text in content-stream order with
// ledongthuc/pdf. That library was chosen over dslipak/pdf (a fork with the
// same row grouping, which loses line breaks on RFC-style text) and
// rsc.io/pdf (drops inter-word spaces and panicked on the UDHR); stream
// order with our own line and space reconstruction read a single-column
// paper, an RFC and the UDHR correctly. Parser panics are recovered and
// the parse runs under a time budget.
func extractPDF(data []byte) (*Document, error) {
	type result struct {
		doc *Document
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: skipf("corrupt PDF (%v)", r)}
			}
		}()
		d, err := parsePDF(data)
		ch <- result{d, err}
	}()
	select {
	case r := <-ch:
		return r.doc, r.err
	case <-time.After(pdfTimeout):
		return nil, &SkipError{Reason: errPDFTimeout.Error()}
	}
}

func parsePDF(data []byte) (*Document, error) {
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "encrypt") || strings.Contains(err.Error(), "password") {
			return nil, skipf("encrypted PDF (password protected)")
		}
		return nil, skipf("corrupt PDF (%v)", err)
	}
	if r.Trailer().Key("Encrypt").Kind() != pdf.Null {
		return nil, skipf("encrypted PDF (password protected)")
	}
	var pages []string
	for _, p := range pdfPages(r) {
		var b strings.Builder
		pageText(&b, p)
		pages = append(pages, strings.ReplaceAll(b.String(), "\uFFFD", ""))
	}
	text := strings.Join(dropRunningLines(pages), "\n")
	// A word broken at the line end ("training-" / "free") is rejoined
	// with its hyphen: without a dictionary the hyphen cannot be told from
	// a soft one, and keeping it never glues two words together.
	text = joinLineHyphens(text)
	if strings.TrimSpace(text) == "" {
		return nil, skipf("PDF has no extractable text (scanned images?)")
	}
	// The metadata title is kept only when the document shows it: tools
	// often leave their own name there ("Enscript Output", "Microsoft Word
	// - draft.docx"). Otherwise the file name is the title.
	title := ""
	if info := r.Trailer().Key("Info"); info.Kind() == pdf.Dict {
		title = strings.TrimSpace(info.Key("Title").Text())
	}
	head := text
	if len(head) > 4000 {
		head = head[:4000]
	}
	if title != "" && !strings.Contains(NormalizeForMatch(head), NormalizeForMatch(title)) {
		title = ""
	}
	doc := &Document{Text: text, Title: title, Sections: TextSections(text)}
	return doc, nil
}

// pdfPages lists the pages in document order with one walk of the page
// tree (the library's Page(i) walks it again for every page: quadratic on
// long documents). Depth and count are bounded, so a page tree with a
// cycle cannot loop forever.
func pdfPages(r *pdf.Reader) []pdf.Page {
	var out []pdf.Page
	limit := r.NumPage()
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		kids := node.Key("Kids")
		for i := 0; i < kids.Len() && len(out) < limit; i++ {
			kid := kids.Index(i)
			switch kid.Key("Type").Name() {
			case "Pages":
				if depth < 32 {
					walk(kid, depth+1)
				}
			case "Page":
				out = append(out, pdf.Page{V: kid})
			}
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return out
}

// joinLineHyphens removes the line break after a hyphen that ends a line
// between a letter and a lower-case letter ("training-\nfree" becomes
// "training-free"); spaces and tabs around the break go too.
func joinLineHyphens(text string) string {
	if !strings.Contains(text, "-") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		h := i - 1
		for h >= 0 && (text[h] == ' ' || text[h] == '\t') {
			h--
		}
		if h < 1 || text[h] != '-' {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(text[:h])
		n := i + 1
		for n < len(text) && (text[n] == ' ' || text[n] == '\t') {
			n++
		}
		after, _ := utf8.DecodeRuneInString(text[n:])
		if !unicode.IsLetter(before) || !unicode.IsLower(after) {
			continue
		}
		b.WriteString(text[last : h+1])
		last = n
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// reDigits normalises page numbers in running heads and feet.
var reDigits = regexp.MustCompile(`\d+`)

// dropRunningLines removes running headers and footers: lines among the
// first or last two of a page that recur (digits ignored) on at least
// three pages and a fifth of all pages ("RFC 6749 OAuth 2.0 October 2012",
// "Hardt Standards Track [Page 12]").
func dropRunningLines(pages []string) []string {
	if len(pages) < 3 {
		return pages
	}
	key := func(l string) string { return reDigits.ReplaceAllString(strings.Join(strings.Fields(l), " "), "#") }
	edges := func(lines []string) []int {
		var idx []int
		var nonEmpty []int
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				nonEmpty = append(nonEmpty, i)
			}
		}
		if len(nonEmpty) < 8 {
			return nil // too short to tell a running line from the body
		}
		for k, i := range nonEmpty {
			if k < 2 || k >= len(nonEmpty)-2 {
				idx = append(idx, i)
			}
		}
		return idx
	}
	count := map[string]int{}
	split := make([][]string, len(pages))
	for p, text := range pages {
		split[p] = strings.Split(text, "\n")
		seen := map[string]bool{}
		for _, i := range edges(split[p]) {
			k := key(split[p][i])
			if !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	min := max(3, len(pages)/5)
	out := make([]string, len(pages))
	for p, lines := range split {
		drop := map[int]bool{}
		for _, i := range edges(lines) {
			if count[key(lines[i])] >= min {
				drop[i] = true
			}
		}
		kept := lines[:0:0]
		for i, l := range lines {
			if !drop[i] {
				kept = append(kept, l)
			}
		}
		out[p] = strings.Join(kept, "\n")
	}
	return out
}

// pageText writes text items in stream order, starting a line when the
// baseline moves and inserting a space when the horizontal gap is wider
// than a fraction of the font size.
func pageText(b *strings.Builder, p pdf.Page) {
	txt := p.Content().Text
	var prevY, prevEnd float64
	for i, t := range txt {
		if i > 0 {
			tol := math.Max(t.FontSize*0.4, 1)
			if math.Abs(t.Y-prevY) > tol {
				b.WriteByte('\n')
			} else if t.X-prevEnd > t.FontSize*0.15 && t.S != " " {
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.S)
		prevY, prevEnd = t.Y, t.X+t.W
	}
	b.WriteByte('\n')
}
