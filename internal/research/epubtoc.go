package research

import (
	"bytes"
	"encoding/xml"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// epubTOCEntries bounds the table of contents read from an EPUB.
const epubTOCEntries = 10000

// epubTOCDepths reads the book's table of contents (the EPUB 3 nav
// document, else the EPUB 2 NCX) and returns, for each content file it
// points to, the depth of its first entry (1 for the top). It returns nil
// when there is none or it cannot be read: a TOC only refines levels.
func epubTOCDepths(navPath, ncxPath string, read func(string) ([]byte, error)) map[string]int {
	depths := map[string]int{}
	add := func(base, href string, depth int) {
		href = strings.SplitN(href, "#", 2)[0]
		if href == "" || len(depths) >= epubTOCEntries {
			return
		}
		name := path.Clean(path.Join(path.Dir(base), unescapeHref(href)))
		if _, ok := depths[name]; !ok {
			depths[name] = depth
		}
	}
	if navPath != "" {
		if raw, err := read(navPath); err == nil {
			navDepths(raw, func(href string, depth int) { add(navPath, href, depth) })
		}
	}
	if len(depths) == 0 && ncxPath != "" {
		if raw, err := read(ncxPath); err == nil {
			var ncx struct {
				Points []ncxPoint `xml:"navMap>navPoint"`
			}
			if xml.Unmarshal(raw, &ncx) == nil {
				var walk func(ps []ncxPoint, depth int)
				walk = func(ps []ncxPoint, depth int) {
					for _, p := range ps {
						add(ncxPath, p.Content.Src, depth)
						if depth < 16 {
							walk(p.Points, depth+1)
						}
					}
				}
				walk(ncx.Points, 1)
			}
		}
	}
	if len(depths) == 0 {
		return nil
	}
	return depths
}

// ncxPoint is a navPoint of an EPUB 2 NCX.
type ncxPoint struct {
	Content struct {
		Src string `xml:"src,attr"`
	} `xml:"content"`
	Points []ncxPoint `xml:"navPoint"`
}

// navDepths calls fn with every link of the nav document's toc list and
// its depth (how many lists enclose it).
func navDepths(raw []byte, fn func(href string, depth int)) {
	z := html.NewTokenizer(bytes.NewReader(raw))
	inTOC, navDepth, ol := false, 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		var attrs map[string]string
		if tt == html.StartTagToken && hasAttr {
			attrs = map[string]string{}
			for {
				k, v, more := z.TagAttr()
				attrs[string(k)] = string(v)
				if !more {
					break
				}
			}
		}
		switch {
		case a == atom.Nav && tt == html.StartTagToken:
			navDepth++
			if !inTOC && strings.Contains(" "+attrs["epub:type"]+" ", " toc ") {
				inTOC, navDepth = true, 1
			}
		case a == atom.Nav && tt == html.EndTagToken && inTOC:
			if navDepth--; navDepth == 0 {
				return
			}
		case !inTOC:
		case a == atom.Ol && tt == html.StartTagToken:
			ol++
		case a == atom.Ol && tt == html.EndTagToken && ol > 0:
			ol--
		case a == atom.A && tt == html.StartTagToken && attrs["href"] != "" && ol > 0:
			fn(attrs["href"], ol)
		}
	}
}

// shiftHeadings moves a content file's markdown headings so that its top
// heading sits at depth, its TOC entry's depth: chapter files all start
// with h1, and the TOC says which part each belongs to. Levels stay
// within 1..6.
func shiftHeadings(text string, depth int) string {
	lines := strings.SplitAfter(text, "\n")
	top := 7
	for _, l := range lines {
		if n := headingMarks(l); n > 0 && n < top {
			top = n
		}
	}
	if top == 7 || top == depth {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(lines))
	for _, l := range lines {
		if n := headingMarks(l); n > 0 {
			lvl := min(6, max(1, n-top+depth))
			b.WriteString(strings.Repeat("#", lvl))
			b.WriteString(l[n:])
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// headingMarks returns the level of a markdown heading line ("## x" is 2),
// or 0.
func headingMarks(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(l) || l[n] != ' ' {
		return 0
	}
	return n
}
