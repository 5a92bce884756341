package research

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Document is extracted text with its sections.
type Document struct {
	Title    string
	Format   string
	Text     string
	Sections []Section
}

// SkipError explains why a file was not ingested (bad input, not a bug).
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

func skipf(format string, args ...any) error { return &SkipError{Reason: fmt.Sprintf(format, args...)} }

// Formats maps file extensions to format names.
var formats = map[string]string{
	".txt": "txt", ".text": "txt", ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
	".xhtml": "html", ".json": "json", ".csv": "csv", ".pdf": "pdf", ".epub": "epub", ".tmpl": "txt",
}

// FormatOf returns the format for path's extension, or "". Files without
// an extension or with a numeric one (LICENSE, COPYING, GPL-3, MPL-2.0)
// are "txt" candidates; Extract and SniffText still refuse binary content.
func FormatOf(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := formats[ext]; ok {
		return f
	}
	if plainName(path) {
		return "txt"
	}
	return ""
}

// plainName reports a file name whose extension is empty or only digits.
func plainName(path string) bool {
	ext := filepath.Ext(path)
	if ext == "" {
		return true
	}
	for _, r := range ext[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return len(ext) > 1
}

// SniffText reports whether the first bytes of a file look like UTF-8 text.
func SniffText(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if checkText(head) == nil {
		return true
	}
	// A multi-byte rune may be cut at the end of the sample.
	for i := 1; i < 4 && i < len(head); i++ {
		if checkText(head[:len(head)-i]) == nil {
			return true
		}
	}
	return false
}

// SupportedExtensions lists the extensions ingest accepts.
func SupportedExtensions() []string {
	return []string{".txt", ".md", ".markdown", ".html", ".htm", ".json", ".csv", ".pdf", ".epub"}
}

// Extract turns file bytes into a Document. Types are sniffed by magic as
// well as extension: a PDF named .txt is refused, not indexed as garbage.
func Extract(name string, data []byte) (*Document, error) {
	format := FormatOf(name)
	if format == "" {
		return nil, skipf("unsupported file type %q (supported: %s)", filepath.Ext(name), strings.Join(SupportedExtensions(), " "))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, skipf("empty file")
	}
	base := filepath.Base(name)
	if !plainName(name) {
		base = strings.TrimSuffix(base, filepath.Ext(name))
	}
	var doc *Document
	var err error
	switch format {
	case "pdf":
		if !bytes.HasPrefix(data, []byte("%PDF-")) {
			return nil, skipf("not a PDF file (no %%PDF- header)")
		}
		doc, err = extractPDF(data)
	case "epub":
		if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
			return nil, skipf("not an EPUB file (not a zip archive)")
		}
		doc, err = extractEPUB(data)
	default:
		text, err := decodeText(data)
		if err != nil {
			return nil, err
		}
		text = strings.TrimPrefix(text, "\uFEFF")
		text = strings.ReplaceAll(text, "\r\n", "\n")
		switch format {
		case "md":
			doc = &Document{Text: text, Sections: MarkdownSections(text), Title: firstMarkdownH1(text)}
		case "html":
			t, title := htmlToText([]byte(text))
			doc = &Document{Text: t, Title: title, Sections: MarkdownSections(t)}
		case "txt":
			doc = &Document{Text: text, Sections: TextSections(text)}
		default: // json, csv: no headings
			doc = &Document{Text: text, Sections: buildSections(text, nil)}
		}
	}
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(doc.Text) == "" {
		return nil, skipf("no extractable text")
	}
	doc.Format = format
	doc.Title = strings.TrimSpace(CollapseSpace(doc.Title))
	if doc.Title == "" {
		doc.Title = base
	}
	return doc, nil
}

// checkText refuses binary content (NUL bytes, known binary formats).
func checkText(data []byte) error {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return skipf("binary content (NUL bytes) in a text file")
	}
	for _, m := range [][]byte{[]byte("%PDF-"), []byte("PK\x03\x04"), []byte("\x7fELF"), []byte("\x89PNG"), []byte("\xff\xd8\xff")} {
		if bytes.HasPrefix(data, m) {
			return skipf("binary content with a text extension")
		}
	}
	return nil
}

func firstMarkdownH1(text string) string {
	for _, line := range strings.SplitN(text, "\n", 200) {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "# ") {
			return strings.TrimSpace(t[2:])
		}
	}
	return ""
}

// glyphReplacer expands typographic ligatures, which PDF fonts (a Type1
// font's /fi glyph) and some e-books emit as one code point: "ﬁrst" is a
// word no query types, and search tokenizes it as is. Soft hyphens (U+00AD,
// HTML's &shy;) only mark where a word may break; left in, they cut the
// word in two search tokens ("check­pointer"). A strings.Replacer is safe
// for concurrent use and never changes.
var glyphReplacer = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl",
	"\uFB05", "st", "\uFB06", "st", "\u00AD", "",
)

// cleanGlyphs expands ligatures and drops soft hyphens (see glyphReplacer).
func cleanGlyphs(s string) string {
	if !strings.ContainsAny(s, "\uFB00\uFB01\uFB02\uFB03\uFB04\uFB05\uFB06\u00AD") {
		return s
	}
	return glyphReplacer.Replace(s)
}

var errPDFTimeout = errors.New("PDF parsing took too long")
