package corpus

import (
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
