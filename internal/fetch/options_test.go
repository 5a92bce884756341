package fetch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
)

// The original's [limits] fetch_timeout was accepted and ignored; it sets
// the page timeout unless [fetch] timeout is given.
func TestOptionsFromConfigFetchTimeout(t *testing.T) {
	for body, want := range map[string]time.Duration{
		"":                              20 * time.Second,
		"[limits]\nfetch_timeout = 7\n": 7 * time.Second,
		"[limits]\nfetch_timeout = 7\n[fetch]\ntimeout = 9\n": 9 * time.Second,
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(func(k string) string {
			if k == "ASKY_HOME" {
				return home
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := OptionsFromConfig(cfg).Timeout; got != want {
			t.Errorf("%q: timeout %s, want %s", body, got, want)
		}
	}
}
