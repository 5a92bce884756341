package research

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"
)

// EPUB limits: an EPUB is a zip, so entry count and sizes are capped and
// every entry is read through a LimitReader (headers can lie).
const (
	epubMaxEntries    = 5000
	epubMaxEntryBytes = 16 << 20
	epubMaxTotalBytes = 128 << 20
)

// extractEPUB reads the spine documents in order and converts each to
// markdown-like text.
func extractEPUB(data []byte) (*Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, skipf("corrupt EPUB (%v)", err)
	}
	if len(zr.File) > epubMaxEntries {
		return nil, skipf("EPUB has too many entries (%d > %d)", len(zr.File), epubMaxEntries)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		name := f.Name
		if strings.Contains(name, "..") || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
			return nil, skipf("EPUB entry with an unsafe path %q", name)
		}
		if f.Flags&0x1 != 0 {
			return nil, skipf("encrypted EPUB entry %q", name)
		}
		files[name] = f
	}
	if _, ok := files["META-INF/encryption.xml"]; ok {
		return nil, skipf("encrypted EPUB (DRM)")
	}
	total := 0
	read := func(name string) ([]byte, error) {
		f, ok := files[name]
		if !ok {
			return nil, skipf("corrupt EPUB: missing %s", name)
		}
		if f.UncompressedSize64 > epubMaxEntryBytes {
			return nil, skipf("EPUB entry %s too large", name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, skipf("corrupt EPUB entry %s (%v)", name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, epubMaxEntryBytes+1))
		if err != nil {
			return nil, skipf("corrupt EPUB entry %s (%v)", name, err)
		}
		if len(b) > epubMaxEntryBytes {
			return nil, skipf("EPUB entry %s too large", name)
		}
		total += len(b)
		if total > epubMaxTotalBytes {
			return nil, skipf("EPUB expands beyond %d MB", epubMaxTotalBytes>>20)
		}
		return b, nil
	}
	cont, err := read("META-INF/container.xml")
	if err != nil {
		return nil, err
	}
	var c struct {
		Rootfiles []struct {
			FullPath string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(cont, &c); err != nil || len(c.Rootfiles) == 0 {
		return nil, skipf("corrupt EPUB: bad container.xml")
	}
	opfPath := c.Rootfiles[0].FullPath
	opfData, err := read(opfPath)
	if err != nil {
		return nil, err
	}
	var opf struct {
		Title    []string `xml:"metadata>title"`
		Manifest []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			MediaType  string `xml:"media-type,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"manifest>item"`
		Spine struct {
			TOC   string `xml:"toc,attr"`
			Items []struct {
				IDRef string `xml:"idref,attr"`
			} `xml:"itemref"`
		} `xml:"spine"`
	}
	if err := xml.Unmarshal(opfData, &opf); err != nil {
		return nil, skipf("corrupt EPUB: bad package document (%v)", err)
	}
	hrefs := map[string]string{}
	dir := path.Dir(opfPath)
	var navPath, ncxPath string
	for _, it := range opf.Manifest {
		hrefs[it.ID] = it.Href
		full := path.Clean(path.Join(dir, unescapeHref(it.Href)))
		if strings.Contains(" "+it.Properties+" ", " nav ") {
			navPath = full
		} else if it.MediaType == "application/x-dtbncx+xml" && (ncxPath == "" || it.ID == opf.Spine.TOC) {
			ncxPath = full
		}
	}
	// The table of contents nests the chapters (each file's headings start
	// at h1) under their parts.
	depths := epubTOCDepths(navPath, ncxPath, read)
	var b strings.Builder
	for _, ref := range opf.Spine.Items {
		href, ok := hrefs[ref.IDRef]
		if !ok {
			continue
		}
		href = strings.SplitN(href, "#", 2)[0]
		name := path.Clean(path.Join(dir, unescapeHref(href)))
		raw, err := read(name)
		if err != nil {
			return nil, err
		}
		t, _ := htmlToText(raw)
		if strings.TrimSpace(t) == "" {
			continue
		}
		if d, ok := depths[name]; ok {
			t = shiftHeadings(t, d)
		}
		b.WriteString(strings.TrimSpace(t))
		b.WriteString("\n\n")
	}
	if strings.TrimSpace(b.String()) == "" {
		return nil, skipf("EPUB has no readable text")
	}
	text := b.String()
	title := ""
	if len(opf.Title) > 0 {
		title = opf.Title[0]
	}
	return &Document{Text: text, Title: title, Sections: MarkdownSections(text)}, nil
}

func unescapeHref(h string) string {
	if !strings.Contains(h, "%") {
		return h
	}
	var out strings.Builder
	for i := 0; i < len(h); i++ {
		if h[i] == '%' && i+2 < len(h) {
			var v byte
			if _, err := fmt.Sscanf(h[i+1:i+3], "%02x", &v); err == nil {
				out.WriteByte(v)
				i += 2
				continue
			}
		}
		out.WriteByte(h[i])
	}
	return out.String()
}
