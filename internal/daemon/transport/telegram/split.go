package telegram

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// utf16Len is a text's length as the Bot API counts it: in UTF-16 code
// units, so a character outside the BMP (most emoji) counts twice.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// cost is what a markdown part takes against MaxMessage: the larger of
// its HTML (tags and escapes counted too, stricter than the API, which
// counts the text after entity parsing) and the markdown itself (sent
// as is when Telegram refuses the HTML).
func cost(md string) int { return max(utf16Len(HTML(md)), utf16Len(md)) }

// splitMessage cuts markdown into parts whose cost is at most limit. It
// cuts between paragraphs where it can, else between lines, else at a
// space outside inline markup, else between characters (never inside a
// surrogate pair or before a combining mark). A code block cut in two is
// closed at the end of one part and opened again, with its language, at
// the start of the next, so each part renders on its own.
func splitMessage(md string, limit int) []string {
	md = strings.TrimSpace(strings.ReplaceAll(md, "\r\n", "\n"))
	if md == "" {
		return nil
	}
	if cost(md) <= limit {
		return []string{md}
	}
	lines := strings.Split(md, "\n")
	var parts []string
	open := "" // the fence line of a code block the next part starts in
	for len(lines) > 0 {
		k := fitLines(open, lines, limit)
		if k == 0 {
			// The first line alone is too long: cut it.
			head, tail := cutLine(open, lines[0], limit)
			lines = append([]string{head, tail}, lines[1:]...)
			k = 1
		} else if k < len(lines) {
			k = preferBreak(open, lines, k)
		}
		if p := strings.TrimSpace(render(open, lines[:k])); p != "" && p != "```" {
			parts = append(parts, p)
		}
		open = fenceAfter(open, lines[:k])
		lines = lines[k:]
		for open == "" && len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
			lines = lines[1:]
		}
	}
	return parts
}

// render is the part made of lines, opened with the code fence it
// starts in and closed if it ends inside one.
func render(open string, lines []string) string {
	var b strings.Builder
	if open != "" {
		b.WriteString(open + "\n")
	}
	b.WriteString(strings.Join(lines, "\n"))
	if fenceAfter(open, lines) != "" {
		b.WriteString("\n```")
	}
	return b.String()
}

// isFence tells a line that opens or closes a code block, as HTML does.
func isFence(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "```") }

// fenceAfter is the fence line of the code block open after lines, or
// "" outside one.
func fenceAfter(open string, lines []string) string {
	for _, l := range lines {
		if !isFence(l) {
			continue
		}
		if open == "" {
			open = strings.TrimSpace(l)
		} else {
			open = ""
		}
	}
	return open
}

// fitLines is the most leading lines that fit in one part.
func fitLines(open string, lines []string, limit int) int {
	// Parts are never shorter than their markdown, which bounds the search.
	n, size := 0, utf16Len(open)
	for n < len(lines) && size+utf16Len(lines[n])+1 <= limit+1 {
		size += utf16Len(lines[n]) + 1
		n++
	}
	if n > 0 && cost(render(open, lines[:n])) <= limit {
		return n // the usual case: the markdown's length is the bound
	}
	return sort.Search(n, func(k int) bool { return cost(render(open, lines[:k+1])) > limit })
}

// preferBreak moves a cut after k lines back to the end of a paragraph
// outside code, else to before a code block, when one is in the part's
// second half.
func preferBreak(open string, lines []string, k int) int {
	outside := make([]bool, k+1) // outside[j]: no code block open after lines[:j]
	for j := range outside {
		outside[j] = open == ""
		if j < k && isFence(lines[j]) {
			if open == "" {
				open = lines[j]
			} else {
				open = ""
			}
		}
	}
	for j := k; j > k/2; j-- {
		if outside[j] && strings.TrimSpace(lines[j]) == "" {
			return j
		}
	}
	for j := k; j > k/2; j-- {
		if outside[j] && isFence(lines[j]) {
			return j
		}
	}
	return k
}

// cutLine cuts a line too long for one part into a head that fits and
// the rest.
func cutLine(open, line string, limit int) (head, tail string) {
	fits := func(i int) bool { return cost(render(open, []string{line[:i]})) <= limit }
	code := open != "" || isFence(line)
	// A head is never shorter than its markdown, which bounds the search.
	end, n := len(line), 0
	for i, r := range line {
		if n += utf16Len(string(r)); n > limit {
			end = i
			break
		}
	}
	for _, cuts := range [][]int{spaceCuts(line[:end], !code), spaceCuts(line[:end], false), charCuts(line[:end+min(len(line)-end, 4)])} {
		// The last cut that fits (cuts are in order, fit is monotone).
		i := len(cuts)
		if i > 0 && !fits(cuts[i-1]) {
			i = sort.Search(len(cuts), func(i int) bool { return !fits(cuts[i]) })
		}
		if i > 0 && cuts[i-1] > 0 {
			c := cuts[i-1]
			if code {
				return line[:c], line[c:]
			}
			return strings.TrimRight(line[:c], " "), strings.TrimLeft(line[c:], " ")
		}
	}
	// Not even one character fits (limit below a few units).
	_, size := utf8.DecodeRuneInString(line)
	return line[:size], line[size:]
}

// spaceCuts are the byte offsets of the spaces in line; with markup set,
// only those outside `code`, **bold**, ~~strike~~ and [links](…), so a
// cut never leaves half a span in each part.
func spaceCuts(line string, markup bool) []int {
	var cuts []int
	tick, bold, strike, link := false, false, false, 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '`':
			tick = !tick
		case tick:
		case strings.HasPrefix(line[i:], "**"):
			bold = !bold
			i++
		case strings.HasPrefix(line[i:], "~~"):
			strike = !strike
			i++
		case c == '[' && link == 0:
			link = 1
		case c == ']' && link == 1 && strings.HasPrefix(line[i+1:], "("):
			link = 2
			i++
		case c == ']' && link == 1:
			link = 0
		case c == ')' && link == 2:
			link = 0
		case c == ' ':
			if !markup || (!bold && !strike && link == 0) {
				cuts = append(cuts, i)
			}
		}
	}
	return cuts
}

// charCuts are the byte offsets between characters where a cut does not
// split one: not before a combining mark, variation selector, emoji
// modifier or joiner, nor after a joiner.
func charCuts(line string) []int {
	var cuts []int
	prev := rune(0)
	for i, r := range line {
		if i > 0 && prev != '\u200d' && !extends(r) {
			cuts = append(cuts, i)
		}
		prev = r
	}
	return cuts
}

func extends(r rune) bool {
	return unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r) ||
		r == '\u200d' || (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0x1F3FB && r <= 0x1F3FF) || (r >= 0xE0020 && r <= 0xE007F)
}
