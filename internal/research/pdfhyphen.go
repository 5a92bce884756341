package research

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Words hyphenated at a line end. pageText marks the breaks that may
// split a word (hyphenBreak); joinLineHyphens decides on the text.

// joinLineHyphens rejoins words broken at a line end where pageText
// marked the break as one inside a paragraph (hyphenBreak): "rep-" /
// "resentation" becomes "representation" when a letter precedes the
// hyphen and a lower-case letter starts the next line; an upper-case
// letter or a digit there keeps the hyphen and the break (a name, a
// range). A compound the document also writes whole on one line
// ("state-of-the-" / "art" when "state-of-the-art" occurs) keeps its
// hyphen. After a soft hyphen (U+00AD) the break and the soft hyphen both
// go before any letter. Spaces and tabs around the break go with it; the
// marks go everywhere.
func joinLineHyphens(text string) string {
	if !strings.Contains(text, hyphenBreak) {
		return text
	}
	var compounds map[string]bool // "state-of-the-art", lower case, seen inside a line
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for at := 0; ; {
		k := strings.Index(text[at:], hyphenBreak)
		if k < 0 {
			break
		}
		mark := at + k
		at = mark + len(hyphenBreak)
		// The mark stands at the line end, after the hyphen (and any
		// trailing spaces).
		h := mark - 1
		for h >= 0 && (text[h] == ' ' || text[h] == '\t') {
			h--
		}
		n := at
		for n < len(text) && (text[n] == ' ' || text[n] == '\t') {
			n++
		}
		if n >= len(text) || text[n] != '\n' {
			b.WriteString(text[last:mark]) // a stray mark: drop it
			last = at
			continue
		}
		n++
		for n < len(text) && (text[n] == ' ' || text[n] == '\t') {
			n++
		}
		soft := h+1 >= len(softHyphen) && strings.HasSuffix(text[:h+1], softHyphen)
		end := h // before a hyphen
		if soft {
			end = h + 1 - len(softHyphen)
		} else if h < 0 || text[h] != '-' {
			b.WriteString(text[last:mark])
			last = at
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(text[:end])
		after, _ := utf8.DecodeRuneInString(text[n:])
		if !unicode.IsLetter(before) || !unicode.IsLower(after) && !(soft && unicode.IsLetter(after)) {
			b.WriteString(text[last:mark])
			last = at
			continue
		}
		if !soft {
			if compounds == nil {
				compounds = inlineCompounds(text)
			}
			ws := strings.LastIndexFunc(text[:end], func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) + 1
			we := n + strings.IndexFunc(text[n:], func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
			if we < n {
				we = len(text)
			}
			if compounds[strings.ToLower(text[ws:end]+"-"+text[n:we])] {
				end = h + 1 // the document writes it with its hyphen
			}
		}
		b.WriteString(text[last:end])
		last = n
	}
	b.WriteString(text[last:])
	return b.String()
}

// reCompound is a hyphenated compound inside a line.
// reCompound is compiled when a hyphen join is found, not at every start.
var reCompound = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\pL+(?:-\pL+)+`) })

func inlineCompounds(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range reCompound().FindAllString(text, -1) {
		out[strings.ToLower(m)] = true
	}
	return out
}

// hyphenBreak marks, at a line end after a hyphen, a break pageText found
// inside a paragraph: the next line follows in the same column at the
// usual line spacing. A control character (the unit separator), which
// page text never holds (pageText drops them from the items): a private-use
// one could be a real glyph of an icon font. Removed by joinLineHyphens.
const hyphenBreak = "\x1f"

const softHyphen = "\u00AD"

// regionLeading returns the widest baseline step that still reads as the
// next line of a paragraph in a region: a little over the region's median
// step, so a paragraph gap (or a heading's space) is wider; 1.7 font
// sizes when the region has too few lines to tell.
func regionLeading(region []pdfItem) func(size float64) float64 {
	var steps []float64
	for i := 1; i < len(region); i++ {
		tol := math.Max(region[i].FontSize*0.4, 1)
		if dy := region[i-1].Y - region[i].Y; dy > tol {
			steps = append(steps, dy)
		}
	}
	if len(steps) < 3 {
		return func(size float64) float64 { return 1.7 * size }
	}
	m := medianOf(steps)
	return func(size float64) float64 { return m*1.3 + 0.1*size }
}

// endsWithHyphen reports a line ending with a hyphen or a soft hyphen,
// trailing spaces aside.
func endsWithHyphen(line string) bool {
	line = strings.TrimRight(line, " \t")
	return strings.HasSuffix(line, "-") || strings.HasSuffix(line, softHyphen)
}
