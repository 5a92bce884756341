package termbg

import "testing"

func TestParseOSC11(t *testing.T) {
	for _, c := range []struct {
		in       string
		dark, ok bool
	}{
		{"\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[5;1R", true, true},
		{"\x1b]11;rgb:ffff/ffff/ffff\x07", false, true},
		{"\x1b]11;rgb:fd/f6/e3\x07", false, true}, // solarized light, 2 digits
		{"\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\", true, true},
		{"\x1b]11;rgb:ffff/ffff\x07", false, false},
		{"\x1b]11;rgb:zzzz/ffff/ffff\x07", false, false},
		{"\x1b]11;rgb:ffff/ffff/ffff", false, false}, // unterminated
		{"\x1b[5;1R", false, false},                  // no OSC 11 support
	} {
		dark, ok := parseOSC11([]byte(c.in))
		if dark != c.dark || ok != c.ok {
			t.Errorf("parseOSC11(%q) = %v, %v; want %v, %v", c.in, dark, ok, c.dark, c.ok)
		}
	}
}

func TestColorFGBG(t *testing.T) {
	for _, c := range []struct {
		in       string
		dark, ok bool
	}{
		{"15;0", true, true},
		{"0;15", false, true},
		{"0;default;15", false, true},
		{"12;4", true, true},
		{"", false, false},
		{"15;x", false, false},
	} {
		dark, ok := colorFGBG(c.in)
		if dark != c.dark || ok != c.ok {
			t.Errorf("colorFGBG(%q) = %v, %v; want %v, %v", c.in, dark, ok, c.dark, c.ok)
		}
	}
}

// Multiplexers and dumb terminals are never asked; $COLORFGBG wins.
func TestDarkWithoutAsking(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	if !Dark(nil, env(map[string]string{"TERM": "tmux-256color"})) {
		t.Error("tmux: want the dark default")
	}
	if Dark(nil, env(map[string]string{"TERM": "xterm", "COLORFGBG": "0;15"})) {
		t.Error("COLORFGBG 0;15: want light")
	}
}
