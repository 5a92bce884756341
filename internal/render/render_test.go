package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"plain\ttext\n":                   "plain\ttext\n",
		"evil\x1b]52;c;ZXZpbA==\x07 clip": "evil]52;c;ZXZpbA== clip",
		"bidi \u202eabc":                  "bidi abc",
		"c1 \u009b31m":                    "c1 31m",
		"héllo 世界":                        "héllo 世界",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLastBoundary(t *testing.T) {
	cases := []struct {
		text string
		want string // committed prefix
	}{
		{"# Title\n\nPara one.\n\nPara t", "# Title\n\nPara one.\n\n"},
		{"no boundary yet", ""},
		{"intro\n\n```go\nx := 1\n\ny := 2\n", "intro\n\n"},
		{"intro\n\n```go\nx := 1\n\ny := 2\n```\nafter", "intro\n\n```go\nx := 1\n\ny := 2\n```\n"},
	}
	for _, c := range cases {
		b := lastBoundary(c.text, 0)
		if got := c.text[:b]; got != c.want {
			t.Errorf("lastBoundary(%q) commits %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStreamCommitsBlocksAndFinishes(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(&out, 80, 24, NoColor)
	for _, piece := range []string{"# Hel", "lo\n\nFirst ", "paragraph.\n", "\nSecond ", "paragraph."} {
		s.Write(piece)
	}
	s.Finish()
	got := out.String()
	// The raw tail is erased with ANSI sequences; the rendered blocks
	// remain in order.
	clean := stripCSI(got)
	for _, want := range []string{"Hello", "First paragraph.", "Second paragraph."} {
		if !strings.Contains(clean, want) {
			t.Fatalf("output lacks %q:\n%s", want, clean)
		}
	}
	if strings.Index(clean, "First") > strings.LastIndex(clean, "Second") {
		t.Errorf("blocks out of order:\n%s", clean)
	}
}

func TestStreamDiscardForgetsTail(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(&out, 80, 24, NoColor)
	s.Write("Let me look that up")
	s.Discard()
	s.Write("# Answer\n\nDone.")
	s.Finish()
	if s.lines("a\nb") != 2 {
		t.Fatal("lines")
	}
	last := out.String()[strings.LastIndex(out.String(), "\x1b[K")+3:]
	if strings.Contains(last, "Let me look") {
		t.Errorf("discarded text was re-rendered:\n%q", out.String())
	}
}

// stripCSI removes erase/cursor sequences the way a terminal would apply
// them well enough for assertions: everything of a line before \r\x1b[K is
// dropped.
func stripCSI(s string) string {
	s = strings.ReplaceAll(s, "\x1b[A", "")
	s = strings.ReplaceAll(s, "\x1b[K", "")
	return s
}

func TestMarkdownFallsBackToRaw(t *testing.T) {
	got := Markdown("# Title\n\ntext", 80, NoColor)
	if !strings.Contains(got, "Title") || !strings.Contains(got, "text") {
		t.Fatalf("got %q", got)
	}
}

// A style that does not load must neither drop the rendering nor let raw
// escape sequences from the answer through to the terminal.
func TestMarkdownBadStyleIsSanitized(t *testing.T) {
	got := Markdown("# Title\n\nclip \x1b]52;c;ZXZpbA==\x07 done", 80, "no-such-style")
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("escape sequence passed through: %q", got)
	}
	if !strings.Contains(got, "Title") || !strings.Contains(got, "done") {
		t.Fatalf("got %q", got)
	}
}

func TestChooseStyle(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GLAMOUR_STYLE" {
				return v
			}
			return ""
		}
	}
	light := func() bool { return false }
	dark := func() bool { return true }
	for _, tc := range []struct {
		name       string
		color      bool
		glamour    string
		configured string
		dark       func() bool
		want       string
	}{
		{"no color", false, "dracula", "light", light, "notty"},
		{"light terminal", true, "", "", light, "light"},
		{"light terminal, auto", true, "", "auto", light, "light"},
		{"dark terminal", true, "", "", dark, "dark"},
		{"unknown background", true, "", "", nil, "dark"},
		{"config wins over detection", true, "", "dracula", light, "dracula"},
		{"GLAMOUR_STYLE wins over config", true, "pink", "dracula", light, "pink"},
		{"GLAMOUR_STYLE=auto detects", true, "auto", "", light, "light"},
	} {
		if got := ChooseStyle(tc.color, env(tc.glamour), tc.configured, tc.dark); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLightStyleRendersDifferently(t *testing.T) {
	md := "# Title\n\nsome `code` and **bold**"
	if Markdown(md, 80, "light") == Markdown(md, 80, "dark") {
		t.Error("light and dark styles render the same")
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines\t here", 20, "two lines here"},
		{"héllo wörld", 5, "héll…"},
		{"\x1b]52;c;aGk=\x07copied", 20, "]52;c;aGk=copied"},
	} {
		if got := Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
