package research

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Section is a titled slice of a document's text. Start and End are byte
// offsets into Document.Text; Path is the breadcrumb of enclosing headings
// ("Statements > Select statements").
type Section struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Level int    `json:"level"`
	Path  string `json:"path"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// heading is a detected heading line.
type heading struct {
	title string
	level int
	start int // offset of the heading line
	body  int // offset after the heading line
}

// MarkdownSections finds ATX headings ("## Title") outside code fences.
// HTML and EPUB are converted to this form before sectioning.
func MarkdownSections(text string) []Section {
	var hs []heading
	fence := false
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		} else if !fence && strings.HasPrefix(t, "#") {
			lvl := 0
			for lvl < len(t) && t[lvl] == '#' {
				lvl++
			}
			if lvl <= 6 && lvl < len(t) && t[lvl] == ' ' {
				title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[lvl:]), "#"))
				title = strings.TrimSpace(reHeadingAttr.ReplaceAllString(title, ""))
				if title != "" {
					hs = append(hs, heading{title: title, level: lvl, start: off, body: off + len(line)})
				}
			}
		}
		off += len(line)
	}
	return buildSections(text, hs)
}

// paperSections are the standard section names of papers and reports
// (normalized: lower case, single spaces).
var paperSections = map[string]bool{
	"abstract": true, "introduction": true, "background": true, "related work": true,
	"method": true, "methods": true, "methodology": true, "materials and methods": true,
	"experiments": true, "experimental setup": true, "evaluation": true, "results": true,
	"results and discussion": true, "discussion": true, "conclusion": true, "conclusions": true,
	"limitations": true, "future work": true, "acknowledgements": true, "acknowledgments": true,
	"references": true, "bibliography": true, "appendix": true, "summary": true,
	"executive summary": true, "preface": true, "foreword": true, "glossary": true,
}

var (
	reNumberPrefix = regexp.MustCompile(`^[0-9 ]+`)
	reRoman        = regexp.MustCompile(`(?i)^[ivxlcdm]+\.?$`)
	reStat         = regexp.MustCompile(`\b[A-Za-z]+\(\d`)
	reNumbered     = regexp.MustCompile(`^(?:[1-9]\d*(?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*\.?|Appendix [A-Z]\.?)\s+[\pL(]`)
	reChapter      = regexp.MustCompile(`(?i)^(chapter|part|section|book|article)\b`)
	reTOCLine      = regexp.MustCompile(`(?i)^\s*(table of )?contents\s*$`)
	reTOCPage      = regexp.MustCompile(`[\s.·…]*\d+\s*$`)
	reTOCLeader    = regexp.MustCompile(`(\.{3,}|…|\s{2,})\s*\d+\s*$`)
	reSlugStrip    = regexp.MustCompile(`[^a-z0-9]+`)
	reDotLeader    = regexp.MustCompile(`(\.\s?){4,}\s*\d*\s*$`)
	// reHeadingAttr matches a trailing "{#id}" attribute on a heading.
	reHeadingAttr = regexp.MustCompile(`\s*\{[#.][^}]*\}\s*$`)
)

// TextSections detects headings in plain text and PDF text with the
// original's line heuristics (asky-behavior.md §5.13): short lines scored
// on chapter/part prefixes, numbering, upper- and title-case ratios, blank
// lines around them and presence in a table of contents. All are level 1.
func TextSections(text string) []Section { return textSections(text, false, nil) }

// textSections is TextSections; with nest, numbered headings are nested by
// their numbers (numberedLevel). PDFs nest: RFCs and papers read better
// with breadcrumbs. Plain text does not: on the license texts of the
// retrieval eval, nested paths cost a hit. bold holds the PDF lines set
// entirely in a bold font (boldKey), which are headings (boldTitle).
func textSections(text string, nest bool, bold map[string]bool) []Section {
	lines := strings.SplitAfter(text, "\n")
	toc := tocEntries(lines)
	tocFrom, tocTo := tocRange(lines)
	var hs []heading
	off := 0
	var bs boldState
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		start := off
		off += len(line)
		t := strings.TrimSpace(line)
		if i >= tocFrom && i < tocTo {
			continue
		}
		if bold != nil && t != "" && bold[boldKey(t)] {
			if title, n, level, ok := bs.heading(lines[i:], bold); ok {
				for k := 1; k < n; k++ {
					off += len(lines[i+k])
				}
				i += n - 1
				if nest && level == 1 {
					level = numberedLevel(title)
				}
				hs = append(hs, heading{title: title, level: level, start: start, body: off})
				continue
			}
		}
		s := headingScore(t, i, lines, toc)
		if s < 0.52 {
			continue
		}
		title := strings.Join(strings.Fields(t), " ")
		// The same title within 400 chars is one heading (wrapped or repeated).
		if n := len(hs); n > 0 && strings.EqualFold(hs[n-1].title, title) && start-hs[n-1].start < 400 {
			continue
		}
		level := 1
		if nest {
			level = numberedLevel(title)
		}
		hs = append(hs, heading{title: title, level: level, start: start, body: off})
	}
	return buildSections(text, canonical(text, hs))
}

// reSectionNumber is the number of a numbered heading: "3.1.2." or "A.1".
var reSectionNumber = regexp.MustCompile(`^(?:\d+|[A-Z])((?:\.\d+)*)\.?\s`)

// numberedLevel nests numbered headings by their number ("3.1.2. Redirection
// Endpoint" is level 3 under "3.1." under "3."), so breadcrumbs read as in
// the document's table of contents; other headings are level 1.
func numberedLevel(title string) int {
	m := reSectionNumber.FindStringSubmatch(title)
	if m == nil || !reNumbered.MatchString(title) {
		return 1
	}
	return 1 + strings.Count(m[1], ".")
}

// outlineEntry is one title of a document's outline (PDF bookmarks) with
// its depth.
type outlineEntry struct {
	title string
	level int
}

// outlineSections places the outline's titles, in order, on the text lines
// that show them (a title wrapped over two lines too; a table of contents
// is passed over), keeping the outline's nesting. Entries not found are
// left out. It returns nil, leaving headings to TextSections, when fewer
// than two or than half of the entries are found: that outline does not
// describe this text.
func outlineSections(text string, entries []outlineEntry) []Section {
	if len(entries) < 2 {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l)
	}
	tocFrom, tocTo := tocRange(lines)
	// at maps a normalized title to the lines that show it, ascending; a
	// negative entry -(i+1) is a title wrapped over lines i and i+1.
	at := map[string][]int{}
	for i, l := range lines {
		if i >= tocFrom && i < tocTo || len(l) > 240 {
			continue
		}
		if k := normTitle(l); k != "" {
			at[k] = append(at[k], i)
			if i+1 < len(lines) && len(lines[i+1]) <= 240 && strings.TrimSpace(lines[i+1]) != "" {
				k2 := normTitle(l + " " + lines[i+1])
				at[k2] = append(at[k2], -(i + 1))
			}
		}
	}
	var hs []heading
	next := 0 // first line a title may be on
	for _, e := range entries {
		line, span := -1, 1
		for _, v := range at[normTitle(e.title)] {
			i, n := v, 1
			if v < 0 {
				i, n = -v-1, 2
			}
			if i >= next && (line < 0 || i < line) {
				line, span = i, n
			}
		}
		if line < 0 {
			continue
		}
		hs = append(hs, heading{title: e.title, level: e.level, start: offs[line], body: offs[line+span]})
		next = line + span
	}
	if len(hs) < 2 || len(hs)*2 < len(entries) {
		return nil
	}
	return buildSections(text, hs)
}

// tocRange returns the line range [from, to) of the table of contents
// block (a "contents" line within the first 500 lines and the short lines
// after it), whose entries must not become headings themselves.
func tocRange(lines []string) (int, int) {
	for j := 0; j < len(lines) && j < 500; j++ {
		if !reTOCLine.MatchString(lines[j]) {
			continue
		}
		blank, k := 0, j+1
		for ; k < len(lines) && k-j < 800; k++ {
			t := strings.TrimSpace(lines[k])
			if t == "" {
				if blank++; blank >= 3 {
					break
				}
				continue
			}
			blank = 0
			if !reTOCPage.MatchString(t) && !wrappedTOCEntry(lines, k) {
				break
			}
		}
		return j, k
	}
	return 0, 0
}

// wrappedTOCEntry reports whether line k is the first part of a TOC entry
// too long for one line: short, and one of the next two non-blank lines
// ends with leaders and the page number.
func wrappedTOCEntry(lines []string, k int) bool {
	if len(strings.TrimSpace(lines[k])) > 100 {
		return false
	}
	for n, m := 0, k+1; m < len(lines) && n < 2; m++ {
		t := strings.TrimSpace(lines[m])
		if t == "" {
			continue
		}
		if reTOCLeader.MatchString(t) {
			return true
		}
		n++
	}
	return false
}

func tocEntries(lines []string) map[string]bool {
	toc := map[string]bool{}
	for j := 0; j < len(lines) && j < 500; j++ {
		if !reTOCLine.MatchString(lines[j]) {
			continue
		}
		blank := 0
		for k := j + 1; k < len(lines) && len(toc) < 400; k++ {
			t := strings.TrimSpace(lines[k])
			if t == "" {
				if blank++; blank >= 3 {
					break
				}
				continue
			}
			blank = 0
			if len(t) > 120 {
				break
			}
			e := strings.TrimSpace(reTOCPage.ReplaceAllString(t, ""))
			if e != "" {
				toc[normTitle(e)] = true
			}
		}
		break
	}
	return toc
}

func normTitle(s string) string { return strings.Join(Tokens(s), " ") }

func headingScore(t string, i int, lines []string, toc map[string]bool) float64 {
	words := strings.Fields(t)
	if len(t) < 5 || len(t) > 220 || len(words) < 1 || len(words) > 26 {
		return 0
	}
	if reRoman.MatchString(t) || strings.Contains(t, ";") || reDotLeader.MatchString(t) {
		return 0 // roman numerals, clauses, and TOC entries with dot leaders
	}
	if len(words) <= 3 && reStat.MatchString(t) {
		return 0
	}
	if strings.Count(t, ",") >= 3 {
		return 0 // an address or a list (a paper's affiliations), not a title
	}
	// Sentences are not headings: a trailing comma, or a period after more
	// than a few words; neither are lines opening with punctuation.
	last := t[len(t)-1]
	if last == ',' || last == '.' && (len(words) > 4 || !reNumbered.MatchString(t)) {
		return 0
	}
	if first, _ := utf8.DecodeRuneInString(t); !unicode.IsLetter(first) && !unicode.IsDigit(first) {
		return 0
	}
	if len(words) == 1 {
		for _, r := range t {
			if r > unicode.MaxASCII && !toc[normTitle(t)] {
				return 0
			}
		}
	}
	var s float64
	if reChapter.MatchString(t) {
		s += 0.45
	}
	// Papers and reports set their standard sections as short lines of
	// their own, often without blank lines around them in PDF text.
	if len(words) <= 5 && paperSections[strings.TrimSpace(reNumberPrefix.ReplaceAllString(normTitle(t), ""))] {
		s += 0.3
	}
	if reNumbered.MatchString(t) && len(words) <= 14 {
		s += 0.3
	}
	letters, upper, alpha, titled := 0, 0, 0, 0
	for _, w := range words {
		rs := []rune(w)
		if unicode.IsLetter(rs[0]) {
			alpha++
			if unicode.IsUpper(rs[0]) || (len(w) <= 3 && alpha > 1) {
				titled++
			}
		}
		for _, r := range rs {
			if unicode.IsLetter(r) {
				letters++
				if unicode.IsUpper(r) {
					upper++
				}
			}
		}
	}
	// Formulas, numbers and tables are not headings: most of a heading's
	// visible characters are letters.
	if letters == 0 || letters*2 < len([]rune(strings.Join(words, ""))) {
		return 0
	}
	ur := float64(upper) / float64(letters)
	switch {
	case ur >= 0.75:
		s += 0.32
	case ur >= 0.55:
		s += 0.18
	}
	if alpha > 0 {
		tr := float64(titled) / float64(alpha)
		switch {
		case tr >= 0.85:
			s += 0.24
		case tr >= 0.65:
			s += 0.12
		}
	}
	before := i == 0 || strings.TrimSpace(lines[i-1]) == ""
	after := i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == ""
	switch {
	case before && after:
		s += 0.2
	case before || after:
		s += 0.1
	}
	if len(toc) > 0 && toc[normTitle(t)] {
		s += 0.2
	}
	return min(s, 1.0)
}

// canonical keeps, for titles detected more than once, only the largest
// occurrence (the others are running heads or TOC aliases).
func canonical(text string, hs []heading) []heading {
	size := func(k int) int {
		if k+1 < len(hs) {
			return hs[k+1].start - hs[k].body
		}
		return len(text) - hs[k].body
	}
	best := map[string]int{}
	for k, h := range hs {
		n := normTitle(h.title)
		if b, ok := best[n]; !ok || size(k) > size(b) {
			best[n] = k
		}
	}
	var out []heading
	for k, h := range hs {
		if best[normTitle(h.title)] == k {
			out = append(out, h)
		}
	}
	return out
}

// dropEmptyHeadings removes headings with nothing under them: no text
// before the next heading, which is a repeat of the same title (converted
// e-books often emit the chapter title twice) or not a subsection. Empty
// parents of subsections stay: they are part of the breadcrumbs.
func dropEmptyHeadings(text string, hs []heading) []heading {
	empty := func(h heading, k int) bool { return k < len(hs) && strings.TrimSpace(text[h.body:hs[k].start]) == "" }
	out := make([]heading, 0, len(hs))
	for k := 0; k < len(hs); k++ {
		h := hs[k]
		for empty(h, k+1) && normTitle(hs[k+1].title) == normTitle(h.title) {
			h.body = hs[k+1].body // keep the first, absorb the repeat
			k++
		}
		if empty(h, k+1) && hs[k+1].level <= h.level && len(out) > 0 {
			continue // its line joins the previous section
		}
		out = append(out, h)
	}
	return out
}

// buildSections turns headings into sections with breadcrumbs. Text before
// the first heading becomes an untitled leading section; no headings at
// all gives one "Full Document" section.
func buildSections(text string, hs []heading) []Section {
	hs = dropEmptyHeadings(text, hs)
	if len(hs) == 0 {
		return []Section{{ID: "section-001", Title: "Full Document", Level: 1, Start: 0, End: len(text)}}
	}
	var out []Section
	if strings.TrimSpace(text[:hs[0].start]) != "" {
		out = append(out, Section{Title: "", Level: 0, Start: 0, End: hs[0].start})
	}
	var stack []heading
	for k, h := range hs {
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		titles := make([]string, len(stack))
		for i, s := range stack {
			titles[i] = s.title
		}
		end := len(text)
		if k+1 < len(hs) {
			end = hs[k+1].start
		}
		out = append(out, Section{Title: h.title, Level: h.level, Path: strings.Join(titles, " > "), Start: h.start, End: end})
	}
	for i := range out {
		slug := strings.Trim(reSlugStrip.ReplaceAllString(strings.ToLower(out[i].Title), "-"), "-")
		if len(slug) > 48 {
			slug = strings.TrimRight(slug[:48], "-")
		}
		if slug == "" {
			slug = "section"
		}
		out[i].ID = fmt.Sprintf("%s-%03d", slug, i+1)
	}
	return out
}
