package cmdutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/askygo/asky/internal/iostreams"
)

func TestMarkdownStyle(t *testing.T) {
	for _, tc := range []struct {
		name, config, glamour string
		color, dark           bool
		want                  string
	}{
		{"light terminal gets the light style", "", "", true, false, "light"},
		{"dark terminal", "", "", true, true, "dark"},
		{"config", "[general]\nmarkdown_style = \"dracula\"\n", "", true, false, "dracula"},
		{"GLAMOUR_STYLE wins", "[general]\nmarkdown_style = \"dracula\"\n", "pink", true, false, "pink"},
		{"no color", "", "", false, false, "notty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			io.SetColorEnabled(tc.color)
			home := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"ASKY_HOME": home, "HOME": home, "GLAMOUR_STYLE": tc.glamour}
			f := New(io)
			f.Getenv = func(k string) string { return env[k] }
			asked := 0
			f.DarkBackground = func() bool { asked++; return tc.dark }
			if got := f.MarkdownStyle(); got != tc.want {
				t.Errorf("style %q, want %q", got, tc.want)
			}
			f.MarkdownStyle()
			if asked > 1 {
				t.Errorf("asked the terminal %d times", asked)
			}
		})
	}
}
