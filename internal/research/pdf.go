package research

import (
	"bytes"
	"math"
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
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		pageText(&b, p)
		b.WriteString("\n")
	}
	text := strings.ReplaceAll(b.String(), "\uFFFD", "")
	if strings.TrimSpace(text) == "" {
		return nil, skipf("PDF has no extractable text (scanned images?)")
	}
	title := ""
	if info := r.Trailer().Key("Info"); info.Kind() == pdf.Dict {
		title = info.Key("Title").Text()
	}
	if title == "" {
		for _, line := range strings.SplitN(text, "\n", 20) {
			if t := strings.TrimSpace(line); len(t) > 8 && len(t) < 160 {
				title = t
				break
			}
		}
	}
	doc := &Document{Text: text, Title: title, Sections: TextSections(text)}
	return doc, nil
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
