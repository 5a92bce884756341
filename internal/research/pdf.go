package research

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"

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
				ch <- result{err: skipf("corrupt PDF (%s)", oneLine(r))}
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

func parsePDF(data []byte) (doc *Document, err error) {
	// A PDF encrypted with an empty user password (only the owner's
	// permissions are locked: common for published papers and statements)
	// opens in any viewer without asking, so it is read here too: the
	// library decrypts it with the empty password (RC4, AES-128), and
	// decryptAESV3 what the library does not (AES-256).
	r, err := pdf.NewReader(pdfHeader(data), int64(len(data)))
	encrypted := false
	if err != nil && strings.Contains(err.Error(), "encryption") {
		plain, derr := decryptAESV3(data)
		switch {
		case derr == nil:
			encrypted = true
			r, err = pdf.NewReader(pdfHeader(plain), int64(len(plain)))
		case errors.Is(derr, errNeedsPassword):
			return nil, skipf("%s", needsPasswordMsg)
		case !errors.Is(derr, errNotAESV3):
			return nil, skipf("encrypted PDF with an encryption asky cannot read (%v); %s", derr, decryptHint)
		}
	}
	if err != nil {
		return nil, pdfOpenError(err)
	}
	if encrypted || r.Trailer().Key("Encrypt").Kind() != pdf.Null {
		// A stream that does not decode after decryption means the
		// decryption was wrong, not that the file is damaged: say so,
		// rather than "corrupt PDF (zlib: invalid header)".
		defer func() {
			if p := recover(); p != nil {
				doc, err = nil, skipf("encrypted PDF that asky could not decrypt (%s); %s", oneLine(p), decryptHint)
			}
		}()
	}
	var pages []string
	fonts := fontStats{boldLines: map[string]bool{}}
	for _, p := range pdfPages(r) {
		var b strings.Builder
		pageText(&b, pageItems(p), &fonts)
		b.WriteString(annotationText(p))
		pages = append(pages, strings.ReplaceAll(b.String(), "\uFFFD", ""))
	}
	text := strings.Join(dropRunningLines(pages), "\n")
	text = cleanGlyphs(joinLineHyphens(text))
	if fields := formFields(r); fields != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + fields
	}
	if strings.TrimSpace(text) == "" {
		return nil, skipf("PDF has no extractable text (scanned pages without a text layer?); OCR it first (ocrmypdf in.pdf out.pdf) and ingest the result")
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
	outline := pdfOutline(r)
	if title == "" {
		// Without an info title, an outline with one top entry (the UDHR's
		// "Universal Declaration of Human Rights") names the document.
		top := 0
		for _, e := range outline {
			if e.level == 1 {
				top++
			}
		}
		if top == 1 && outline[0].level == 1 {
			title = outline[0].title
		}
	}
	if title != "" && !strings.Contains(NormalizeForMatch(head), NormalizeForMatch(title)) {
		title = ""
	}
	// The outline (bookmarks), when the text shows its titles, names the
	// sections better than line heuristics can.
	secs := outlineSections(text, outline)
	if secs == nil {
		secs = textSections(text, true, fonts.headingLines())
	}
	return &Document{Text: text, Title: title, Sections: secs}, nil
}

// pdfHeader reads data as the PDF library will open it: a PDF 2.0 file
// ("%PDF-2.0", which the library refuses as not a PDF) reads as 1.7. What
// asky reads of a file, 2.0 changed little of; its AES-256 encryption is
// read by decryptAESV3.
func pdfHeader(data []byte) io.ReaderAt {
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		return header17{data}
	}
	return bytes.NewReader(data)
}

type header17 struct{ data []byte }

func (h header17) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(h.data)) {
		return 0, io.EOF
	}
	n := copy(p, h.data[off:])
	for i := 0; i < n; i++ {
		switch off + int64(i) {
		case 5:
			p[i] = '1'
		case 7:
			p[i] = '7'
		}
	}
	var err error
	if n < len(p) {
		err = io.EOF
	}
	return n, err
}

// Outline bounds: a hostile /Next or /First chain may loop.
const (
	maxOutlineNodes = 5000
	maxOutlineDepth = 8
)

// pdfOutline flattens the document outline (bookmarks) in reading order,
// each title with its depth (1 for the top entries).
func pdfOutline(r *pdf.Reader) []outlineEntry {
	var out []outlineEntry
	visits := 0
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		for c := node.Key("First"); c.Kind() == pdf.Dict && visits < maxOutlineNodes; c = c.Key("Next") {
			visits++
			if t := CollapseSpace(cleanGlyphs(c.Key("Title").Text())); t != "" {
				out = append(out, outlineEntry{title: t, level: depth})
			}
			if depth < maxOutlineDepth {
				walk(c, depth+1)
			}
		}
	}
	walk(r.Trailer().Key("Root").Key("Outlines"), 1)
	return out
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

// reDigits normalises page numbers in running heads and feet.
var reDigits = regexp.MustCompile(`\d+`)

// runningEdge is how many non-empty lines at the top and at the bottom of
// a page may be running heads or feet: bioRxiv sets a three-line licence
// footer, RFCs one line each.
const runningEdge = 4

// dropRunningLines removes running headers and footers: lines among the
// first or last runningEdge of a page that recur there (digits ignored) on
// at least three pages and a fifth of all pages ("RFC 6749 OAuth 2.0
// October 2012", "Hardt Standards Track [Page 12]"). A line that recurs as
// often inside pages is content, not a running line: the UDHR's "Article
// 6" opens a page as other articles open paragraphs. Running lines are
// peeled from each edge inwards, so a body line that happens to match
// stays.
func dropRunningLines(pages []string) []string {
	if len(pages) < 3 {
		return pages
	}
	key := func(l string) string { return reDigits.ReplaceAllString(strings.Join(strings.Fields(l), " "), "#") }
	nonEmpty := func(lines []string) []int {
		var idx []int
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				idx = append(idx, i)
			}
		}
		return idx
	}
	edge, inside := map[string]int{}, map[string]int{}
	split := make([][]string, len(pages))
	for p, text := range pages {
		split[p] = strings.Split(text, "\n")
		idx := nonEmpty(split[p])
		if len(idx) < 2*runningEdge {
			continue // too short to tell a running line from the body
		}
		seen := map[string]bool{}
		for k, i := range idx {
			kk := key(split[p][i])
			if k >= runningEdge && k < len(idx)-runningEdge {
				inside[kk]++
			} else if !seen[kk] {
				seen[kk] = true
				edge[kk]++
			}
		}
	}
	min := max(3, len(pages)/5)
	running := func(l string) bool { k := key(l); return edge[k] >= min && inside[k]*4 < edge[k] }
	out := make([]string, len(pages))
	for p, lines := range split {
		idx := nonEmpty(lines)
		drop := map[int]bool{}
		for k := 0; k < len(idx) && k < runningEdge && running(lines[idx[k]]); k++ {
			drop[idx[k]] = true
		}
		for k := len(idx) - 1; k >= 0 && k >= len(idx)-runningEdge && !drop[idx[k]] && running(lines[idx[k]]); k-- {
			drop[idx[k]] = true
		}
		if len(drop) == 0 {
			out[p] = pages[p]
			continue
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

// pageText writes text items in reading order: stream order, or column
// by column on a page set in columns (see columnRegions). A line starts
// when the baseline moves or a region ends, and a space goes in when the
// horizontal gap is wider than a fraction of the font size. It tells fonts
// which lines are bold.
func pageText(b *strings.Builder, txt []pdfItem, fonts *fontStats) {
	var prevY, prevEnd float64
	first := true
	// A line with a gap of several characters is table cells, not a
	// title, even when all bold (a table's header row).
	lineStart, allBold, cells := 0, true, false
	endLine := func() {
		fonts.line(b.String()[lineStart:], allBold && !cells)
		lineStart, allBold, cells = b.Len(), true, false
	}
	for _, region := range columnRegions(txt) {
		newRegion := true
		leading := regionLeading(region)
		for _, t := range region {
			// OCR text layers (the UDHR's) draw newline characters inside
			// words ("res\npect"); line breaks come from the baseline, so
			// control characters carry nothing.
			if strings.ContainsFunc(t.S, unicode.IsControl) {
				t.S = strings.Map(dropControl, t.S)
				if t.S == "" {
					continue
				}
			}
			if !first {
				tol := math.Max(t.FontSize*0.4, 1)
				if newRegion || math.Abs(t.Y-prevY) > tol {
					// A hyphen ending a line followed, in the same
					// region, by the next line at the usual spacing (not
					// a paragraph gap) may be a broken word.
					dy := prevY - t.Y
					broken := !newRegion && dy > tol && dy <= leading(t.FontSize) && endsWithHyphen(b.String()[lineStart:])
					endLine()
					if broken {
						b.WriteString(hyphenBreak)
					}
					b.WriteByte('\n')
					lineStart = b.Len()
				} else if gap := t.X - prevEnd; gap > t.FontSize*0.15 && t.S != " " {
					// Word spacing widens a space glyph's advance, not the
					// glyph: the gap after it is no second space.
					if !strings.HasSuffix(b.String(), " ") {
						b.WriteByte(' ')
					}
					cells = cells || gap > t.FontSize*2
				}
			}
			b.WriteString(t.S)
			allBold = fonts.glyphs(t.S, t.Font) && allBold
			prevY, prevEnd = t.Y, t.X+t.W
			first, newRegion = false, false
		}
	}
	endLine()
	b.WriteByte('\n')
}

func dropControl(r rune) rune {
	if unicode.IsControl(r) {
		return -1
	}
	return r
}

// decryptHint is what to do with an encrypted PDF asky cannot read.
const decryptHint = "save a decrypted copy (qpdf --decrypt in.pdf out.pdf) and ingest that"

// needsPasswordMsg refuses a PDF that does not open with an empty user
// password.
const needsPasswordMsg = "encrypted PDF: it needs a password; save a decrypted copy (qpdf --decrypt --password=PW in.pdf out.pdf) and ingest that"

// pdfOpenError is the one-line skip reason for a PDF the library cannot
// open, with what to do for an encrypted one.
func pdfOpenError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(strings.ToLower(msg), "password"):
		return skipf("%s", needsPasswordMsg)
	case strings.Contains(msg, "encryption"):
		return skipf("encrypted PDF with an encryption asky cannot read (%s); %s", strings.TrimPrefix(strings.TrimPrefix(msg, "unsupported PDF: "), "malformed PDF: "), decryptHint)
	}
	return skipf("corrupt PDF (%s)", oneLine(err))
}

// oneLine shortens a parser's error for a skip reason: the library quotes
// the file around a bad token, binary and line breaks included.
func oneLine(v any) string {
	s := strings.ToValidUTF8(fmt.Sprint(v), "?")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}
