package xmpp

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	reHeader = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	reBold   = regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*|__(\S(?:.*?\S)?)__`)
	reItalic = regexp.MustCompile(`(^|[^*\w])\*(\S(?:[^*]*?\S)?)\*([^*\w]|$)`)
	reStrike = regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`)
	reLink   = regexp.MustCompile(`\[([^\]]+)\]\((\S+?)\)`)
	reBullet = regexp.MustCompile(`^(\s*)[*+-]\s+`)
	reRule   = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)
)

// Styled converts the model's markdown to XEP-0393 message styling, the
// plain-text conventions XMPP clients render: *bold*, _italic_,
// ~strike~, `code` and ``` blocks. Headings become bold lines, links
// "text (url)" and pipe tables aligned text in a code block, since no
// client renders markdown tables.
func Styled(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var out []string
	inCode := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			out = append(out, "```")
			continue
		}
		if inCode {
			out = append(out, l)
			continue
		}
		if isTableRow(l) && i+1 < len(lines) && reRule.MatchString(lines[i+1]) {
			j := i
			var rows [][]string
			for ; j < len(lines) && isTableRow(lines[j]); j++ {
				if j == i+1 {
					continue // the separator row
				}
				rows = append(rows, cells(lines[j]))
			}
			out = append(out, "```")
			out = append(out, table(rows)...)
			out = append(out, "```")
			i = j - 1
			continue
		}
		if m := reHeader.FindStringSubmatch(l); m != nil {
			out = append(out, "*"+inline(m[1])+"*")
			continue
		}
		l = reBullet.ReplaceAllString(l, "${1}• ")
		out = append(out, inline(l))
	}
	if inCode {
		out = append(out, "```")
	}
	return strings.Join(out, "\n")
}

// inline converts spans outside inline code.
func inline(s string) string {
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 { // even parts are outside `code`
		p := parts[i]
		p = reLink.ReplaceAllString(p, "$1 ($2)")
		// Bold first, marked with \x01 so the italic pattern does not
		// take its stars.
		p = reBold.ReplaceAllString(p, "\x01$1$2\x01")
		p = reItalic.ReplaceAllString(p, "${1}_${2}_${3}")
		p = strings.ReplaceAll(p, "\x01", "*")
		p = reStrike.ReplaceAllString(p, "~$1~")
		parts[i] = p
	}
	return strings.Join(parts, "`")
}

func isTableRow(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

func cells(l string) []string {
	t := strings.Trim(strings.TrimSpace(l), "|")
	var out []string
	for _, c := range strings.Split(t, "|") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// table aligns rows into columns; the first row is the header.
func table(rows [][]string) []string {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var out []string
	for n, r := range rows {
		var b strings.Builder
		for i := range width {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if n == 0 {
			var sep []string
			for _, w := range width {
				sep = append(sep, strings.Repeat("-", w))
			}
			out = append(out, strings.Join(sep, "-+-"))
		}
	}
	return out
}
