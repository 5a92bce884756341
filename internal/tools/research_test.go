package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

func researchEnv(t *testing.T) (*ResearchEnv, int64) {
	t.Helper()
	body := "# Pager\n\n## Rollback\n\n" + strings.Repeat("The pager rolls back the journal when a transaction fails. ", 8) + "\n\n## Locks\n\nShared locks allow readers.\n"
	st, ix, id := ingestOne(t, "pager.md", body, research.Chunker{})
	pre := []int64{id}
	session := int64(7)
	env := &ResearchEnv{Index: ix, Store: st, Preloaded: &pre, SessionID: func() int64 { return session },
		Summarize: func(_ context.Context, title, text, detail string) (string, error) {
			return "summary of " + title + " (" + detail + ")", nil
		}}
	return env, id
}

// ingestOne ingests one document into a fresh store and returns the
// store, the index and the document's source id.
func ingestOne(t *testing.T, name, body string, chunker research.Chunker) (*store.Store, *research.Index, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := &research.Index{St: st, Emb: research.HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25}
	in := &research.Ingester{Index: ix, Chunker: chunker}
	targets, _ := in.Collect([]string{dir})
	res, err := in.Ingest(ctx, targets)
	if err != nil || len(res) != 1 {
		t.Fatalf("%v %v", res, err)
	}
	return st, ix, res[0].ID
}

func call(t *testing.T, reg *Registry, name, args string) (Result, error) {
	t.Helper()
	tool, ok := reg.Get(name)
	if !ok {
		t.Fatalf("tool %s missing", name)
	}
	return tool.Run(context.Background(), json.RawMessage(args))
}

func TestResearchTools(t *testing.T) {
	env, id := researchEnv(t)
	reg := NewRegistry(ResearchTools(env)...)
	h := research.Handle(id)

	res, err := call(t, reg, ToolGetRelevantContent, `{"query":"how does rollback work"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "rolls back the journal") || !strings.Contains(res.Content, `"source":"`+h+`"`) || len(res.Sources) != 1 || res.Sources[0].URL != h {
		t.Fatalf("%s %+v", res.Content, res.Sources)
	}
	if strings.Contains(res.Content, "/tmp/") || strings.Contains(res.Content, "pager.md") {
		t.Fatalf("local path leaked to the model: %s", res.Content)
	}
	if _, err := call(t, reg, ToolGetRelevantContent, `{"query":"x","sources":["/etc/passwd"]}`); err == nil {
		t.Fatal("a local path was accepted as a source")
	}
	if _, err := call(t, reg, ToolGetRelevantContent, `{"query":"x","sources":"oops"}`); err == nil {
		t.Fatal("bad arguments accepted")
	}

	res, err = call(t, reg, ToolListSections, `{"source":"`+h+`"}`)
	if err != nil || !strings.Contains(res.Content, `#section=rollback-002`) {
		t.Fatalf("%s %v", res.Content, err)
	}
	res, err = call(t, reg, ToolGetFullContent, `{"sources":["`+h+`#section=locks-003"]}`)
	if err != nil || !strings.Contains(res.Content, "Shared locks") || strings.Contains(res.Content, "rolls back") {
		t.Fatalf("%s %v", res.Content, err)
	}
	res, err = call(t, reg, ToolGetRelevantContent, `{"query":"journal readers","section_ref":"`+h+`#section=locks-003"}`)
	if err != nil || strings.Contains(res.Content, "rolls back") {
		t.Fatalf("section filter: %s %v", res.Content, err)
	}
	res, err = call(t, reg, ToolSummarizeSection, `{"source":"`+h+`","section_query":"Rollback","detail":"compact"}`)
	if err != nil || !strings.Contains(res.Content, "summary of Pager › Rollback (compact)") {
		t.Fatalf("%s %v", res.Content, err)
	}
	if _, err := call(t, reg, ToolSummarizeSection, `{"source":"`+h+`","section_id":"locks-003"}`); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("short section: %v", err)
	}

	if _, err := call(t, reg, ToolSaveFinding, `{"finding":"The pager uses a rollback journal","source_url":"`+h+`","tags":["storage"]}`); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, reg, ToolSaveFinding, `{"finding":"Bread needs forty minutes"}`); err != nil {
		t.Fatal(err)
	}
	res, err = call(t, reg, ToolQueryResearchMemory, `{"query":"rollback journal","limit":1}`)
	if err != nil || !strings.Contains(res.Content, "rollback journal") || strings.Contains(res.Content, "Bread") || !strings.Contains(res.Content, `"count":1`) {
		t.Fatalf("%s %v", res.Content, err)
	}
	// Findings are scoped to the session.
	other := *env
	other.SessionID = func() int64 { return 8 }
	res, err = call(t, NewRegistry(ResearchTools(&other)...), ToolQueryResearchMemory, `{"query":"rollback"}`)
	if err != nil || !strings.Contains(res.Content, `"count":0`) {
		t.Fatalf("other session saw findings: %s", res.Content)
	}
}

// A source no passage matches still shows the model its start, 2000
// chars of it (asky-behavior.md §4.3), instead of an empty result.
func TestRelevantContentPreviewWithoutMatch(t *testing.T) {
	env, id := researchEnv(t)
	env.MinRelevance = 0.99 // nothing passes
	reg := NewRegistry(ResearchTools(env)...)
	h := research.Handle(id)
	res, err := call(t, reg, ToolGetRelevantContent, `{"query":"zebra migration routes","sources":["`+h+`"]}`)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Results []struct {
			ContentPreview string `json:"content_preview"`
			Chunks         []any
			Fallback       bool
		}
	}
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || !strings.HasPrefix(out.Results[0].ContentPreview, "# Pager") || len(out.Results[0].Chunks) != 0 || out.Results[0].Fallback {
		t.Fatalf("%s", res.Content)
	}
	if len(res.Sources) != 1 || res.Sources[0].URL != h {
		t.Errorf("sources %+v", res.Sources)
	}
}

// Passages that nearly repeat one already selected are skipped, so the
// chunks returned say different things (asky-behavior.md §5.4).
func TestRelevantContentSkipsNearDuplicates(t *testing.T) {
	boiler := "Warning: the rollback journal must never be deleted while a transaction is open, or the database is corrupted."
	body := "# Notes\n\n" + boiler + "\n\nThe weather section talks about rain in April and sun in May, unrelated.\n\n" +
		strings.Replace(boiler, "is corrupted", "gets corrupted", 1) + "\n\nAnother unrelated line about gardening and tomatoes in the summer.\n\n" +
		strings.Replace(boiler, "Warning:", "Note:", 1) + "\n"
	st, ix, id := ingestOne(t, "notes.md", body, research.Chunker{Size: 30, Overlap: 4})
	pre := []int64{id}
	reg := NewRegistry(ResearchTools(&ResearchEnv{Index: ix, Store: st, Preloaded: &pre})...)
	res, err := call(t, reg, ToolGetRelevantContent, `{"query":"rollback journal deleted transaction","max_chunks":3}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Content, "must never be deleted"); n != 1 {
		t.Errorf("the repeated warning came back %d times: %s", n, res.Content)
	}
}
