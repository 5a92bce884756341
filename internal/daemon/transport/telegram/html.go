package telegram

import (
	"html"
	"regexp"
	"strings"
)

var (
	reHeader = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	reBold   = regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*|__(\S(?:.*?\S)?)__`)
	reItalic = regexp.MustCompile(`(^|[^*\w])[*_](\S(?:[^*_]*?\S)?)[*_]([^*\w]|$)`)
	reStrike = regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`)
	reLink   = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^\s)]+)\)`)
	reBullet = regexp.MustCompile(`^(\s*)[*+-]\s+`)
	// boldTags puts the bold tags in after italics are matched (built
	// once: a Replacer is costly to build and safe to share).
	boldTags = strings.NewReplacer("\x01", "<b>", "\x03", "</b>")
)

// HTML converts the model's markdown to the HTML subset Telegram
// accepts: <b> <i> <s> <code> <pre> <a href>. Everything else is text,
// with &, < and > escaped (and quotes inside href), so a model writing
// "a < b" or raw tags cannot break the message.
func HTML(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var out []string
	var code []string
	inCode := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if inCode {
				out = append(out, "<pre>"+html.EscapeString(strings.Join(code, "\n"))+"</pre>")
				code = nil
			}
			inCode = !inCode
			continue
		}
		if inCode {
			code = append(code, l)
			continue
		}
		if m := reHeader.FindStringSubmatch(l); m != nil {
			out = append(out, "<b>"+inline(m[1])+"</b>")
			continue
		}
		if m := reBullet.FindStringSubmatch(l); m != nil {
			l = m[1] + "• " + l[len(m[0]):]
		}
		out = append(out, inline(l))
	}
	if inCode {
		out = append(out, "<pre>"+html.EscapeString(strings.Join(code, "\n"))+"</pre>")
	}
	return strings.Join(out, "\n")
}

// inline converts spans outside `code`; the text is escaped first, so
// the markup added here is the only markup.
func inline(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unmatched backtick is text.
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		var links []string
		p = reLink.ReplaceAllStringFunc(p, func(m string) string {
			sm := reLink.FindStringSubmatch(m)
			links = append(links, `<a href="`+html.EscapeString(sm[2])+`">`+html.EscapeString(sm[1])+"</a>")
			return "\x02" + string(rune('0'+len(links)-1)) + "\x02"
		})
		p = html.EscapeString(p)
		p = reBold.ReplaceAllString(p, "\x01$1$2\x03")
		p = reItalic.ReplaceAllString(p, "$1<i>$2</i>$3")
		p = boldTags.Replace(p)
		p = reStrike.ReplaceAllString(p, "<s>$1</s>")
		for i, l := range links {
			p = strings.Replace(p, "\x02"+string(rune('0'+i))+"\x02", l, 1)
		}
		b.WriteString(p)
	}
	return b.String()
}
