package userprompt

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(home, "review.md"), []byte("Review this code carefully.\n"), 0o600)
	os.WriteFile(filepath.Join(home, "big.md"), []byte(strings.Repeat("x", 20000)), 0o600)
	os.WriteFile(filepath.Join(home, "bin.md"), []byte{0xff, 0xfe, 0x00}, 0o600)
	os.WriteFile(filepath.Join(home, "empty.md"), nil, 0o600)
	os.WriteFile(filepath.Join(outside, "x.md"), []byte("secret"), 0o600)
	os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(home, "link.md"))
	e := &Expander{
		Home: home,
		Prompts: map[string]string{
			"wh":     "Explain what happened in:",
			"deep":   "Be thorough. /wh",
			"loop":   "again /loop",
			"review": "file://" + filepath.Join(home, "review.md"),
			"tilde":  "file://~/review.md",
			"big":    "file://" + filepath.Join(home, "big.md"),
			"bin":    "file://" + filepath.Join(home, "bin.md"),
			"empty":  "file://" + filepath.Join(home, "empty.md"),
			"out":    "file://" + filepath.Join(outside, "x.md"),
			"link":   "file://" + filepath.Join(home, "link.md"),
			"gone":   "file://" + filepath.Join(home, "nope.md"),
		},
		Clipboard: func() (string, error) { return "clip text", nil },
	}
	for _, tc := range []struct{ in, want, warn string }{
		{"/wh the build", "Explain what happened in: the build", ""},
		{"/deep x", "Be thorough. Explain what happened in: x", ""},
		{"/wh /wh", "Explain what happened in: Explain what happened in:", ""},
		{"path /usr/wh stays", "path /usr/wh stays", ""},
		{"a/wh b", "a/wh b", ""},
		{"/unknown stays", "/unknown stays", ""},
		{"/review main.go", "Review this code carefully. main.go", ""},
		{"/tilde", "Review this code carefully.", ""},
		{"fix /cp", "fix clip text", ""},
		{"/big", "/big", "larger than"},
		{"/bin", "/bin", "not UTF-8"},
		{"/empty", "/empty", "empty"},
		{"/out", "/out", "outside your home"},
		{"/link", "/link", "outside your home"},
		{"/gone", "/gone", "does not exist"},
	} {
		got, warns := e.Expand(tc.in)
		if got != tc.want {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
		if (tc.warn == "") != (len(warns) == 0) || (tc.warn != "" && !strings.Contains(warns[0], tc.warn)) {
			t.Errorf("%q: warnings %v, want %q", tc.in, warns, tc.warn)
		}
	}
	// Recursion stops at MaxDepth.
	got, _ := e.Expand("/loop")
	if strings.Count(got, "again") != MaxDepth {
		t.Errorf("loop: %q", got)
	}
	// [limits] query_expansion_max_depth sets the bound.
	e.MaxDepth = 2
	if got, _ := e.Expand("/loop"); strings.Count(got, "again") != 2 {
		t.Errorf("loop with MaxDepth 2: %q", got)
	}
	e.MaxDepth = 0
	e.Clipboard = func() (string, error) { return "", errors.New("no clipboard tool") }
	if got, w := e.Expand("/cp"); got != "/cp" || len(w) != 1 {
		t.Errorf("cp failure: %q %v", got, w)
	}
}

func TestLone(t *testing.T) {
	e := &Expander{Prompts: map[string]string{"wh": "x", "what": "y"}}
	for in, want := range map[string]bool{"/": true, "/w": true, "/zz": true, "/wh": false, "/usr/bin": false, "/tmp x": false, "hello": false, "/cp": false} {
		if _, ok := e.Lone(in); ok != want {
			t.Errorf("%q: %v", in, ok)
		}
	}
	if _, ok := (&Expander{}).Lone("/tmp"); ok {
		t.Error("with no prompts configured /tmp is a question")
	}
	if got := Matching(e.Prompts, "w"); !reflect.DeepEqual(got, []string{"wh", "what"}) && !reflect.DeepEqual(got, []string{"what", "wh"}) {
		t.Errorf("matching %v", got)
	}
}

func TestExpandPreset(t *testing.T) {
	presets := map[string]string{
		"tr":   `-L "translate $1 to $2:"`,
		"all":  "summarize $* briefly",
		"none": "-m fast explain",
		"gap":  "compare $1 and $3",
	}
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{`\tr`, "hello", "french"}, []string{"-L", "translate hello to french:"}},
		{[]string{`\tr`, "a", "b", "extra"}, []string{"-L", "translate a to b:", "extra"}},
		{[]string{`\all`, "x", "y"}, []string{"summarize", "x", "y", "briefly"}},
		{[]string{`\none`, "tcp", "vs", "udp"}, []string{"-m", "fast", "explain", "tcp", "vs", "udp"}},
		{[]string{`\gap`, "a"}, []string{"compare", "a", "and"}},
	} {
		got, err := ExpandPreset(presets, tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %q %v want %q", tc.in, got, err, tc.want)
		}
	}
	var ue *UnknownPresetError
	if _, err := ExpandPreset(presets, []string{`\nope`}); !errors.As(err, &ue) {
		t.Errorf("unknown: %v", err)
	}
}
