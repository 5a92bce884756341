package research

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"time"

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
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		var b strings.Builder
		pageText(&b, p)
		pages = append(pages, strings.ReplaceAll(b.String(), "\uFFFD", ""))
	}
	text := strings.Join(dropRunningLines(pages), "\n")
	// A word broken at the line end ("training-" / "free") is rejoined
	// with its hyphen: without a dictionary the hyphen cannot be told from
	// a soft one, and keeping it never glues two words together.
	text = reLineHyphen.ReplaceAllString(text, "$1-$2")
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

// reLineHyphen matches a hyphen ending a line before a lower-case word.
var reLineHyphen = regexp.MustCompile(`(\pL)-[ \t]*\n[ \t]*(\p{Ll})`)

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
