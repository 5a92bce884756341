// Package render turns markdown and turn events into terminal output:
// glamour on a TTY, raw markdown on a pipe, one configuration for the CLI,
// history views and the TUI.
package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/glamour"
)

// MaxWidth caps wrapping so long lines stay readable on wide terminals.
const MaxWidth = 120

// NoColor is the style for output without color.
const NoColor = "notty"

// ChooseStyle picks the glamour style: "notty" without color, else
// $GLAMOUR_STYLE (glamour's own variable), else the configured
// [general] markdown_style, else — for "auto" or nothing — "light" or
// "dark" from the terminal's background, which dark reports (nil means
// dark). A style name or a JSON style file path is passed on as is.
func ChooseStyle(color bool, getenv func(string) string, configured string, dark func() bool) string {
	if !color {
		return NoColor
	}
	if s := getenv("GLAMOUR_STYLE"); s != "" && s != "auto" {
		return s
	}
	if configured != "" && configured != "auto" {
		return configured
	}
	if dark != nil && !dark() {
		return "light"
	}
	return "dark"
}

// NewRenderer builds a glamour renderer for width columns in style (see
// ChooseStyle).
func NewRenderer(width int, style string) (*glamour.TermRenderer, error) {
	if width <= 0 || width > MaxWidth {
		width = min(max(width, 40), MaxWidth)
	}
	if style == "" {
		style = NoColor
	}
	return glamour.NewTermRenderer(
		glamour.WithStylePath(style),
		glamour.WithWordWrap(width-2),
		glamour.WithEmoji(),
	)
}

// Markdown renders md for a terminal of width columns. A style that does
// not load ($GLAMOUR_STYLE=nonsense) falls back to the plain style, as the
// streaming renderer does; on any other error it returns the markdown
// unrendered so output is never lost, but sanitized like rendered output:
// the fallback must not let model text write to the terminal.
func Markdown(md string, width int, style string) string {
	md = Sanitize(md)
	r, err := NewRenderer(width, style)
	if err != nil {
		if r, err = NewRenderer(width, NoColor); err != nil {
			return md
		}
	}
	out, err := r.Render(md)
	if err != nil {
		return md
	}
	return out
}

// Sanitize removes terminal control sequences (C0 except \n and \t, C1,
// ESC) and bidi overrides from untrusted text before it reaches a terminal:
// model output and page titles must not be able to write the clipboard
// (OSC 52), retitle the window or hide text.
//
// Invalid UTF-8 becomes U+FFFD: a stray 0xC2 at the end of one string and
// 0x9B at the start of the next would otherwise print as the C1 CSI.
func Sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	clean := true
	for _, r := range s {
		if isUnsafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !isUnsafe(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SanitizeLine is Sanitize for text printed as one line or one table cell
// (titles, file names, URLs, notices): newlines, carriage returns and tabs
// become spaces too, so a hostile title cannot forge rows of its own.
func SanitizeLine(s string) string {
	s = Sanitize(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// Clip is SanitizeLine for a table cell of at most n characters: runs of
// white space become one space and a longer text ends in "…" (cut on a
// rune boundary, never inside a UTF-8 sequence).
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(SanitizeLine(s)), " ")
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func isUnsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
