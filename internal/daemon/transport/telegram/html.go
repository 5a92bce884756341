package telegram

import (
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
	reTag    = regexp.MustCompile(`<(/?)([a-z]+)[^>]*>`)
	reLang   = regexp.MustCompile(`^[\w+#.-]{1,32}$`)
	// escText escapes the three characters Telegram's HTML reserves, and
	// escAttr a quote too; html.EscapeString's &#39; and &#34; are
	// valid but longer, and count against the message's length.
	escText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	escAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

// HTML converts the model's markdown to the HTML subset Telegram
// accepts: <b> <i> <s> <code> <pre> <a href>, properly nested. Everything
// else is text, with &, < and > escaped (and quotes inside href), so a
// model writing "a < b" or raw tags cannot break the message.
func HTML(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var out []string
	var code []string
	inCode, lang := false, ""
	pre := func() {
		body := escText.Replace(strings.Join(code, "\n"))
		if lang != "" {
			// Telegram labels (and colours) a block with its language.
			body = `<code class="language-` + lang + `">` + body + "</code>"
		}
		out = append(out, "<pre>"+body+"</pre>")
		code = nil
	}
	for _, l := range lines {
		if f := strings.TrimSpace(l); strings.HasPrefix(f, "```") {
			if inCode {
				pre()
			} else {
				lang = ""
				if reLang.MatchString(f[3:]) {
					lang = f[3:]
				}
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
		pre()
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
			b.WriteString("<code>" + escText.Replace(p) + "</code>")
			continue
		}
		var links []string
		p = reLink.ReplaceAllStringFunc(p, func(m string) string {
			sm := reLink.FindStringSubmatch(m)
			links = append(links, `<a href="`+escAttr.Replace(sm[2])+`">`+escText.Replace(sm[1])+"</a>")
			return "\x02" + string(rune('0'+len(links)-1)) + "\x02"
		})
		p = escText.Replace(p)
		p = reBold.ReplaceAllString(p, "\x01$1$2\x03")
		p = reItalic.ReplaceAllString(p, "$1<i>$2</i>$3")
		p = boldTags.Replace(p)
		p = reStrike.ReplaceAllString(p, "<s>$1</s>")
		for i, l := range links {
			p = strings.Replace(p, "\x02"+string(rune('0'+i))+"\x02", l, 1)
		}
		b.WriteString(balance(p))
	}
	return b.String()
}

// balance nests the tags the span patterns put in, which overlap when
// the markdown does ("**a *b** c*"): Telegram refuses overlapping tags,
// so a tag closed over an inner one closes that one too and opens it
// again after. Text outside tags was escaped, so every tag is ours.
func balance(s string) string {
	var b strings.Builder
	var open []string // the open tags, as written
	last := 0
	for _, m := range reTag.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		tag, name := s[m[0]:m[1]], s[m[4]:m[5]]
		if m[3] == m[2] { // an opening tag
			open = append(open, tag)
			b.WriteString(tag)
			continue
		}
		i := len(open) - 1
		for i >= 0 && tagName(open[i]) != name {
			i--
		}
		if i < 0 {
			continue // closes nothing open
		}
		for j := len(open) - 1; j >= i; j-- {
			b.WriteString("</" + tagName(open[j]) + ">")
		}
		for _, t := range open[i+1:] {
			b.WriteString(t)
		}
		open = append(open[:i], open[i+1:]...)
	}
	b.WriteString(s[last:])
	for j := len(open) - 1; j >= 0; j-- {
		b.WriteString("</" + tagName(open[j]) + ">")
	}
	return b.String()
}

func tagName(tag string) string { return reTag.FindStringSubmatch(tag)[2] }
