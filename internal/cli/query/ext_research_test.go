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

// A question that comes through the daemon reads local paths only inside
// [research] local_document_roots: not a session's -r default elsewhere,
// not a symlink out of a root, and never a path given as its first word.
func TestRemoteQuestionReadsOnlyDocumentRoots(t *testing.T) {
	home := t.TempDir()
	base := t.TempDir()
	root, secret := filepath.Join(base, "docs"), filepath.Join(base, "secrets")
	for dir, body := range map[string]string{root: "# Pager\n\nThe pager rolls back.\n", secret: "PRIVATE KEY\n"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	ios, f, cfg := researchFactory(t, home)
	cfg.Research.LocalDocumentRoots = []string{root}
	for name, tc := range map[string]struct {
		opts      *Options
		preloads  int
		refusedNo int
	}{
		"session default pointer outside the roots": {&Options{Research: secret, Words: []string{"what is in it"}}, 0, 1},
		"symlink in a root leading out":             {&Options{Research: filepath.Join(root, "escape"), Words: []string{"what"}}, 0, 1},
		"pointer inside a root":                     {&Options{Research: root, Words: []string{"how does the pager work"}}, 1, 0},
		"path as first word":                        {&Options{Words: []string{secret, "what", "is", "in", "it"}}, 0, 0},
	} {
		opts := tc.opts
		opts.IO, opts.Config, opts.Store, opts.Factory, opts.ResearchSet, opts.Remote = ios, f.Config, f.Store, f, true, true
		req := &turn.Request{Query: joinWords(opts.Words)}
		if err := researchExtension(context.Background(), opts, cfg, req, tools.NewRegistry()); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(req.Preloaders) != tc.preloads || len(req.Notices) != tc.refusedNo || req.Query != joinWords(opts.Words) {
			t.Errorf("%s: %d preloaders, notices %v, query %q", name, len(req.Preloaders), req.Notices, req.Query)
		}
		for _, n := range req.Notices {
			if strings.Contains(n, base) {
				t.Errorf("%s: the refused path was echoed to the remote client: %s", name, n)
			}
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
