package telegram

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// checkParts fails unless every part fits MaxMessage in UTF-16 units, as
// HTML and as plain text, and the Bot API accepts its HTML.
func checkParts(t *testing.T, parts []string) {
	t.Helper()
	for i, p := range parts {
		if n := utf16Len(HTML(p)); n > MaxMessage {
			t.Errorf("part %d: HTML is %d units", i, n)
		}
		if n := utf16Len(p); n > MaxMessage {
			t.Errorf("part %d: text is %d units", i, n)
		}
		if _, err := parseText(HTML(p), "HTML"); err != "" {
			t.Errorf("part %d refused: %s", i, err)
		}
	}
}

func TestSplitCountsUTF16AndKeepsCharactersWhole(t *testing.T) {
	// 5000 emoji are 10000 UTF-16 units: three parts, none splitting a
	// surrogate pair (a byte count would give 5 parts of 1024).
	emoji := strings.Repeat("😀", 5000)
	parts := splitMessage(emoji, MaxMessage)
	checkParts(t, parts)
	if len(parts) != 3 || strings.Join(parts, "") != emoji {
		t.Fatalf("%d parts", len(parts))
	}
	// Cyrillic counts one unit a letter (two bytes): 6000 letters in two
	// parts, cut at a space.
	word := "слово "
	cyr := strings.TrimSpace(strings.Repeat(word, 1000))
	parts = splitMessage(cyr, MaxMessage)
	checkParts(t, parts)
	if len(parts) != 2 || strings.Join(parts, " ") != cyr {
		t.Fatalf("%d parts", len(parts))
	}
	// A family emoji is one character of 7 code points joined by ZWJ:
	// never cut inside it.
	family := "👨\u200d👩\u200d👧\u200d👦"
	parts = splitMessage(strings.Repeat(family, 1000), MaxMessage)
	checkParts(t, parts)
	for i, p := range parts {
		if strings.Count(p, family)*len(family) != len(p) {
			t.Fatalf("part %d cuts a family emoji: %q…%q", i, p[:12], p[len(p)-12:])
		}
	}
}

func TestSplitReopensCodeBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("Here is the program:\n\n```go\n")
	for i := range 300 {
		fmt.Fprintf(&b, "\tfmt.Println(%d, a < b && c > d) // line %d\n", i, i)
	}
	b.WriteString("```\n\nThat is all.")
	parts := splitMessage(b.String(), MaxMessage)
	checkParts(t, parts)
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	pre := regexp.MustCompile(`(?s)<pre>.*?</pre>`)
	var code int
	for i, p := range parts {
		if strings.Count(p, "```")%2 != 0 {
			t.Fatalf("part %d has an unclosed code block:\n%s", i, p)
		}
		if i > 0 && i < len(parts)-1 && !strings.HasPrefix(p, "```go\n") {
			t.Fatalf("part %d does not reopen the block: %.40q", i, p)
		}
		for _, block := range pre.FindAllString(HTML(p), -1) {
			code += strings.Count(block, "fmt.Println(")
		}
	}
	if code != 300 {
		t.Fatalf("%d of 300 code lines rendered as code", code)
	}
	if !strings.HasSuffix(parts[len(parts)-1], "That is all.") {
		t.Fatalf("last part %q", parts[len(parts)-1])
	}
}

func TestSplitLongLineOutsideMarkup(t *testing.T) {
	// One paragraph with no newline: cut at a space, never inside
	// **bold**, `code` or a [link](…).
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "see **bold words %d** and `x < %d` and [the site](https://e.org/%d) ", i, i, i)
	}
	parts := splitMessage(b.String(), MaxMessage)
	checkParts(t, parts)
	if len(parts) < 5 {
		t.Fatalf("%d parts", len(parts))
	}
	for i, p := range parts {
		if strings.Count(p, "**")%2 != 0 || strings.Count(p, "`")%2 != 0 || strings.Count(p, "[") != strings.Count(p, "](") {
			t.Fatalf("part %d cuts a span: …%q", i, p[len(p)-60:])
		}
	}
}

func TestSplitWithEscapesFitsAsHTML(t *testing.T) {
	// "<&>" is 3 characters but 13 in HTML: the part is cut by its HTML.
	text := strings.TrimSpace(strings.Repeat("<&> ", 3000))
	parts := splitMessage(text, MaxMessage)
	checkParts(t, parts)
	if got := strings.Join(parts, " "); got != text {
		t.Fatal("text lost in the split")
	}
	if splitMessage(" \n ", MaxMessage) != nil {
		t.Fatal("blank text has parts")
	}
}
