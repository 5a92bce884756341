package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/iostreams"
)

// The daemon fills the deep tier of a corpus the CLI ingested, and does
// nothing (not even loading the model) once it is complete.
func TestDaemonFillsDeepTier(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.md": "# A\n\nThe pager rolls back a transaction.\n", "b.md": "# B\n\nThe zebra grazes.\n"} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, _, _ := iostreams.Test()
	f := cmdutil.New(ios)
	f.Getenv = func(k string) string {
		if k == "ASKY_HOME" {
			return home
		}
		return ""
	}
	defer f.Close()
	cmd := corpus.NewCmdCorpus(f)
	cmd.SetArgs([]string{"ingest", "--no-deep", docs})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx := context.Background()
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if msg := fillDeepOnce(ctx, f, cfg); !strings.HasPrefix(msg, "deep tier: embedded 2 chunks in ") {
		t.Fatalf("first pass: %q", msg)
	}
	if msg := fillDeepOnce(ctx, f, cfg); msg != "" {
		t.Fatalf("a complete deep tier: %q", msg)
	}
}
