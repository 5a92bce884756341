package xmpp

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestStyled(t *testing.T) {
	for in, want := range map[string]string{
		"**bold** and *it* and __b2__":       "*bold* and _it_ and *b2*",
		"# Title\ntext":                      "*Title*\ntext",
		"see [docs](https://x.org/a)":        "see docs (https://x.org/a)",
		"~~old~~ new":                        "~old~ new",
		"- one\n* two":                       "• one\n• two",
		"`**kept**` **b**":                   "`**kept**` *b*",
		"```go\n**x**\n```":                  "```\n**x**\n```",
		"2 * 3 * 4":                          "2 * 3 * 4",
		"| a | bb |\n|---|---|\n| ccc | d |": "```\na   | bb\n----+---\nccc | d\n```",
	} {
		if got := Styled(in); got != want {
			t.Errorf("Styled(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// Markdown with a heading also goes as XHTML-IM (XEP-0071): headings as
// bold paragraphs, emphasis and code as elements, every text escaped.
func TestXHTML(t *testing.T) {
	if xhtml("no heading, **bold**") != nil {
		t.Fatal("XHTML-IM without a heading")
	}
	md := "# The *answer* <b>\n\nSome **bold**, *em* and `a<b` & more.\n\n- item\n\nSetext\n===\n\n```\nx < y\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"
	b, err := xml.Marshal(xhtml(md))
	if err != nil {
		t.Fatal(err)
	}
	want := `<html xmlns="http://jabber.org/protocol/xhtml-im"><body xmlns="http://www.w3.org/1999/xhtml">` +
		`<p><strong>The answer &lt;b&gt;</strong></p>` +
		`<p>Some <strong>bold</strong>, <em>em</em> and <code>a&lt;b</code> &amp; more.</p>` +
		`<p>• item</p><p><strong>Setext</strong></p><pre>x &lt; y</pre><pre>a | b` + "\n--+--\n" + `1 | 2</pre></body></html>`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	// __bold__ (Python's __init__ outside backticks) once crashed the daemon.
	b, err = xml.Marshal(xhtml("# H\n\n__init__ and **x**"))
	if err != nil || !strings.Contains(string(b), "<p><strong>init</strong> and <strong>x</strong></p>") {
		t.Fatalf("%s %v", b, err)
	}
}
