package research

import (
	"regexp"
	"strings"
	"unicode"
)

// fontStats gathers, over one PDF, the lines drawn entirely in a bold font
// and how much of the text is bold: papers set their section titles in
// bold at body size, where line heuristics see only a short line.
type fontStats struct {
	boldLines         map[string]bool
	total, boldGlyphs int
	lastFont          string // the font of the last glyphs, and whether it is bold:
	lastBold          bool   // a page draws runs of glyphs in one font
}

// glyphs counts the visible characters of one text item and reports
// whether they are bold (true for an item with none: spaces do not break a
// bold line).
func (f *fontStats) glyphs(s, font string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) && r != '\uFFFD' {
			n++
		}
	}
	if n == 0 {
		return true
	}
	f.total += n
	if font != f.lastFont {
		f.lastFont, f.lastBold = font, isBoldFont(font)
	}
	if !f.lastBold {
		return false
	}
	f.boldGlyphs += n
	return true
}

// line records a finished line of page text.
func (f *fontStats) line(s string, bold bool) {
	if !bold {
		return
	}
	if k := boldKey(s); k != "" {
		f.boldLines[k] = true
	}
}

// headingLines returns the bold lines, or nil when bold is the body font
// (more than a quarter of the text): then bold tells nothing.
func (f *fontStats) headingLines() map[string]bool {
	if len(f.boldLines) == 0 || f.boldGlyphs*4 > f.total {
		return nil
	}
	return f.boldLines
}

// isBoldFont tells a bold face by its PostScript name
// ("TimesNewRomanPS-BoldMT", "ABCDEF+Helvetica-Bold", "Arial,Black").
func isBoldFont(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy")
}

// boldKey is how a line is looked up among the bold lines: the extracted
// text gets the same cleaning as the page text (no U+FFFD, ligatures
// expanded) and collapsed space.
func boldKey(s string) string {
	return CollapseSpace(cleanGlyphs(strings.ReplaceAll(s, "\uFFFD", "")))
}

// reCaption matches figure and table captions, which papers start in bold
// ("Fig. 1.", "Table IV", "S1 Fig.").
var reCaption = regexp.MustCompile(`(?i)^(s\d+\s+(fig|figure|table)\b|(fig\.?|figure|table|tab\.)\s*[\dIVX\x{2160}-\x{216B}])`)

// boldState follows bold headings through a document: whether a standard
// paper section was seen (later bold titles are its subsections).
type boldState struct {
	paper bool
}

// heading decides whether the bold line lines[0] starts a heading. A long
// title wraps: following bold lines join it while it has at least six
// words, or ends on a word no title ends on ("… What" / "You Need"), and
// stays under 25. It returns the title, the number of lines it spans and
// its level: 1 for a standard paper section or before any, 2 for the
// subsections after one.
func (bs *boldState) heading(lines []string, bold map[string]bool) (string, int, int, bool) {
	title := boldKey(lines[0])
	if !boldTitle(title) {
		return "", 0, 0, false
	}
	n := 1
	for n < len(lines) && n < 3 && (len(strings.Fields(title)) >= 6 || endsOpen(title)) && !isPaperSection(title) {
		next := boldKey(lines[n])
		if next == "" || !bold[next] || !boldTitle(next) || isPaperSection(next) || len(strings.Fields(title+" "+next)) > 24 {
			break
		}
		title += " " + next
		n++
	}
	level := 1
	if isPaperSection(title) {
		bs.paper = true
	} else if bs.paper {
		level = 2
	}
	return title, n, level, true
}

// openEnds are words a title does not end on: a bold line ending on one
// was wrapped, and the next bold line is the rest of it.
var openEnds = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "for": true, "and": true, "or": true, "to": true,
	"in": true, "on": true, "with": true, "at": true, "by": true, "from": true, "via": true, "into": true,
	"as": true, "is": true, "are": true, "what": true, "how": true, "why": true, "when": true, "which": true,
	"that": true, "vs": true, "versus": true, "without": true, "through": true, "between": true,
}

// endsOpen reports a title line that ends on a word from openEnds.
func endsOpen(t string) bool {
	f := strings.Fields(t)
	return len(f) > 1 && openEnds[strings.ToLower(strings.TrimRight(f[len(f)-1], ":,;"))]
}

// boldTitle reports whether a bold line can be a title: not a caption,
// not a sentence end, not too long, mostly letters.
func boldTitle(t string) bool {
	words := strings.Fields(t)
	if len(words) == 0 || len(words) > 20 || reCaption.MatchString(t) {
		return false
	}
	if strings.HasSuffix(t, ".") && !reNumbered.MatchString(t) || strings.HasSuffix(t, ",") {
		return false
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3 && letters*2 >= len([]rune(t))
}

// isPaperSection reports a standard section name ("Abstract", "2 Methods").
func isPaperSection(t string) bool {
	return paperSections[strings.TrimSpace(reNumberPrefix.ReplaceAllString(normTitle(t), ""))]
}
