package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

func TestResearchExtensionPreloadsCorpus(t *testing.T) {
	home := t.TempDir()
	docs := filepath.Join(t.TempDir(), "papers")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "pager.md"), []byte("# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, f, cfg := researchFactory(t, home)
	// `asky -r ~/papers how does rollback work` arrives with the pointer as
	// the first word.
	opts := &Options{IO: ios, Config: f.Config, Store: f.Store, Factory: f, ResearchSet: true, Words: []string{docs, "how", "does", "rollback", "work"}}
	req := &turn.Request{Query: joinWords(opts.Words)}
	reg := tools.NewRegistry(&tools.Tool{Name: "get_link_summaries"})
	if err := researchExtension(context.Background(), opts, cfg, req, reg); err != nil {
		t.Fatal(err)
	}
	if req.Query != "how does rollback work" {
		t.Fatalf("pointer not removed from the question: %q", req.Query)
	}
	if _, ok := reg.Get(tools.ToolGetRelevantContent); !ok || len(req.Preloaders) != 1 {
		t.Fatalf("tools %v preloaders %d", reg.Names(), len(req.Preloaders))
	}
	req.Tools = reg
	if err := req.Preloaders[0].Preload(context.Background(), req, func(turn.Event) {}); err != nil {
		t.Fatal(err)
	}
	ctxText := strings.Join(req.Context, "\n")
	if !strings.Contains(ctxText, "Local knowledge base preloaded") || !strings.Contains(ctxText, "Bootstrap retrieval evidence") ||
		!strings.Contains(ctxText, "rolls back the journal") || !strings.Contains(ctxText, "corpus://cache/1") {
		t.Fatalf("context: %s", ctxText)
	}
	if strings.Contains(ctxText, docs) || strings.Contains(strings.Join(req.SystemExtra, " "), docs) {
		t.Fatal("local path visible to the model")
	}
	for _, gone := range []string{"get_link_summaries", tools.ToolGetFullContent} {
		if _, ok := reg.Get(gone); ok {
			t.Fatalf("%s not removed with a preloaded corpus", gone)
		}
	}
	if len(req.Sources) != 1 || req.Sources[0].URL != "corpus://cache/1" {
		t.Fatalf("sources %+v", req.Sources)
	}

	// A pointer that does not resolve is an error with a hint; a plain
	// first word is part of the question.
	bad := &Options{IO: ios, Config: f.Config, Store: f.Store, Factory: f, ResearchSet: true, Research: "/no/such/dir"}
	if err := researchExtension(context.Background(), bad, cfg, &turn.Request{}, tools.NewRegistry()); err == nil {
		t.Fatal("missing pointer accepted")
	}
	plain := &Options{IO: ios, Config: f.Config, Store: f.Store, Factory: f, ResearchSet: true, Words: []string{"what", "is", "wal"}}
	req = &turn.Request{Query: "what is wal"}
	if err := researchExtension(context.Background(), plain, cfg, req, tools.NewRegistry()); err != nil || req.Query != "what is wal" || len(req.Preloaders) != 0 {
		t.Fatalf("%v %q", err, req.Query)
	}
}

// A question that comes through the daemon never makes asky read local
// paths: not a session's -r default, not a path as its first word.
func TestRemoteQuestionNeverReadsLocalPaths(t *testing.T) {
	home := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secrets")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "key.md"), []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, f, cfg := researchFactory(t, home)
	for name, opts := range map[string]*Options{
		"session default pointer": {Research: secret, Words: []string{"what is in it"}},
		"path as first word":      {Words: []string{secret, "what", "is", "in", "it"}},
	} {
		opts.IO, opts.Config, opts.Store, opts.Factory, opts.ResearchSet, opts.Remote = ios, f.Config, f.Store, f, true, true
		req := &turn.Request{Query: joinWords(opts.Words)}
		err := researchExtension(context.Background(), opts, cfg, req, tools.NewRegistry())
		if name == "path as first word" {
			// Not a pointer at all: the path stays part of the question.
			if err != nil || len(req.Preloaders) != 0 || req.Query != joinWords(opts.Words) {
				t.Errorf("%s: %v, %d preloaders, query %q", name, err, len(req.Preloaders), req.Query)
			}
			continue
		}
		if err != nil || len(req.Preloaders) != 0 || len(req.Notices) != 1 || req.Notices[0] != tools.RemotePathsRefused {
			t.Errorf("%s: %v, %d preloaders, notices %v", name, err, len(req.Preloaders), req.Notices)
		}
	}
}

// researchFactory is a factory over an empty ASKY_HOME, with its config.
func researchFactory(t *testing.T, home string) (*iostreams.IOStreams, *cmdutil.Factory, *config.Config) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := cmdutil.New(ios)
	f.Getenv = func(k string) string { return map[string]string{"ASKY_HOME": home}[k] }
	t.Cleanup(f.Close)
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	return ios, f, cfg
}
