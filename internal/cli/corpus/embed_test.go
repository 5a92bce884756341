package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbedDeepTierOff(t *testing.T) {
	e := newEnv(t, "[research.deep]\nprovider = \"off\"\n")
	err := e.run(t, "embed")
	if err == nil || !strings.Contains(err.Error(), "the deep tier is off") {
		t.Fatalf("embed with the deep tier off: %v", err)
	}
}

// hash-v1 stands in for a slow deep model: the CLI flow is the same.
func TestEmbedFillsTheDeepTier(t *testing.T) {
	e := newEnv(t, "[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n")
	if err := e.run(t, "ingest", "--no-deep", docs(t)); err != nil {
		t.Fatal(err)
	}
	// --no-deep leaves the pass to corpus embed and says so.
	if got := e.err.String(); !strings.Contains(got, "the deep tier (builtin hash-v1) has 3 of 3 chunks to embed; run `asky corpus embed`") {
		t.Fatalf("ingest note: %q", got)
	}
	if err := e.run(t, "embed"); err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); !strings.Contains(got, "deep tier: embedded 3 chunks in ") || !strings.Contains(got, "3/3 chunks have builtin hash-v1 vectors") {
		t.Fatalf("embed: %q", got)
	}
	if err := e.run(t, "embed"); err != nil || !strings.Contains(e.out.String(), "embedded 0 chunks") {
		t.Fatalf("a second embed: %q, %v", e.out.String(), err)
	}
	if err := e.run(t, "query", "pager rollback"); err != nil {
		t.Fatal(err)
	}
	if e.out.String() == "" {
		t.Fatal("no results with the deep tier filled")
	}
	// Reindexing the main space keeps the deep vectors.
	if err := e.run(t, "reindex"); err != nil {
		t.Fatal(err)
	}
	if err := e.run(t, "embed"); err != nil || !strings.Contains(e.out.String(), "embedded 0 chunks") {
		t.Fatalf("embed after reindex: %q, %v", e.out.String(), err)
	}
}

// A finished ingest leaves the corpus fully searchable, in a script too:
// without a terminal the deep pass runs without a bar and says what it did.
func TestIngestFillsTheDeepTierWithoutATerminal(t *testing.T) {
	e := newEnv(t, "[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n")
	if err := e.run(t, "ingest", docs(t)); err != nil {
		t.Fatal(err)
	}
	if got := e.err.String(); !strings.Contains(got, "deep tier (builtin hash-v1): embedded 3 chunks in ") || strings.Contains(got, "\r") {
		t.Fatalf("ingest: %q", got)
	}
	if err := e.run(t, "embed"); err != nil || !strings.Contains(e.out.String(), "embedded 0 chunks") {
		t.Fatalf("embed after ingest: %q, %v", e.out.String(), err)
	}
}

// TestRemoveKeepsSnapshotsCurrent checks that `corpus remove` brings the
// vector snapshots current itself (the deep one re-stamped, a removed
// source's rows gone), so the next query rewrites neither, and that a
// source named twice is removed once.
func TestRemoveKeepsSnapshotsCurrent(t *testing.T) {
	e := newEnv(t, "[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n")
	if err := e.run(t, "ingest", docs(t)); err != nil {
		t.Fatal(err)
	}
	snaps, _ := filepath.Glob(filepath.Join(e.home, "cache", "vectors-*.snap"))
	if len(snaps) != 2 {
		t.Fatalf("snapshots %v, want the main and the deep one", snaps)
	}
	if err := e.run(t, "remove", "pager.md", "pager.md"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(e.out.String(), "removed "); got != 1 {
		t.Fatalf("removed %d times: %q", got, e.out.String())
	}
	before := map[string]os.FileInfo{}
	for _, p := range snaps {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = fi
	}
	if err := e.run(t, "query", "--json", "pager rollback"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.out.String(), "pager.md") {
		t.Fatal("removed source still returned")
	}
	for p, fi := range before {
		now, err := os.Stat(p)
		if err != nil || !os.SameFile(fi, now) || !now.ModTime().Equal(fi.ModTime()) {
			t.Fatalf("the query after the removal rewrote %s", filepath.Base(p))
		}
	}
}
