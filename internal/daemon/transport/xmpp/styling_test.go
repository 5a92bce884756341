package xmpp

import "testing"

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
