package compose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	core, cfg := testCore(t, home)
	// `asky -r ~/papers how does rollback work` arrives with the pointer as
	// the first word.
	q := &Request{ResearchSet: true, Question: docs + " how does rollback work"}
	req := &turn.Request{Query: q.Question}
	reg := tools.NewRegistry(&tools.Tool{Name: "get_link_summaries"})
	if err := researchExtension(context.Background(), &composer{Core: core, cfg: cfg, q: q}, req, reg); err != nil {
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
	bad := &composer{Core: core, cfg: cfg, q: &Request{ResearchSet: true, Research: "/no/such/dir"}}
	if err := researchExtension(context.Background(), bad, &turn.Request{}, tools.NewRegistry()); err == nil {
		t.Fatal("missing pointer accepted")
	}
	plain := &composer{Core: core, cfg: cfg, q: &Request{ResearchSet: true, Question: "what is wal"}}
	req = &turn.Request{Query: "what is wal"}
	if err := researchExtension(context.Background(), plain, req, tools.NewRegistry()); err != nil || req.Query != "what is wal" || len(req.Preloaders) != 0 {
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
	core, cfg := testCore(t, home)
	cfg.Research.LocalDocumentRoots = []string{root}
	for name, tc := range map[string]struct {
		q         *Request
		preloads  int
		refusedNo int
	}{
		"session default pointer outside the roots": {&Request{Research: secret, Question: "what is in it"}, 0, 1},
		"symlink in a root leading out":             {&Request{Research: filepath.Join(root, "escape"), Question: "what"}, 0, 1},
		"pointer inside a root":                     {&Request{Research: root, Question: "how does the pager work"}, 1, 0},
		"path as first word":                        {&Request{Question: secret + " what is in it"}, 0, 0},
	} {
		q := tc.q
		q.ResearchSet, q.Remote = true, true
		question := q.Question
		req := &turn.Request{Query: question}
		if err := researchExtension(context.Background(), &composer{Core: core, cfg: cfg, q: q}, req, tools.NewRegistry()); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(req.Preloaders) != tc.preloads || len(req.Notices) != tc.refusedNo || req.Query != question {
			t.Errorf("%s: %d preloaders, notices %v, query %q", name, len(req.Preloaders), req.Notices, req.Query)
		}
		for _, n := range req.Notices {
			if strings.Contains(n, base) {
				t.Errorf("%s: the refused path was echoed to the remote client: %s", name, n)
			}
		}
	}
}
