package corpus

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/research"
)

// testEnv is an isolated ASKY_HOME with a factory over it.
type testEnv struct {
	home string
	f    *cmdutil.Factory
	out  interface{ String() string }
	err  interface{ String() string }
}

func newEnv(t *testing.T, configTOML string) *testEnv {
	t.Helper()
	return envAt(t, t.TempDir(), configTOML)
}

// envAt is a fresh process on home (config is read once per factory).
func envAt(t *testing.T, home, configTOML string) *testEnv {
	t.Helper()
	if configTOML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(configTOML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, out, errOut := iostreams.Test()
	f := cmdutil.New(ios)
	f.Getenv = func(k string) string {
		if k == "ASKY_HOME" {
			return home
		}
		return ""
	}
	t.Cleanup(f.Close)
	return &testEnv{home: home, f: f, out: out, err: errOut}
}

// run executes `asky corpus <args>` through the group (strict verbs,
// flag parsing) and returns the error.
func (e *testEnv) run(t *testing.T, args ...string) error {
	t.Helper()
	e.out.(interface{ Reset() }).Reset()
	e.err.(interface{ Reset() }).Reset()
	cmd := NewCmdCorpus(e.f)
	cmd.SetArgs(args)
	cmd.SetOut(e.f.IO.Out)
	cmd.SetErr(e.f.IO.ErrOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func docs(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pager.md"), "# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails. "+strings.Repeat("It restores every original page from the rollback journal before releasing the lock. ", 6)+"\n\n## Locking\n\nShared locks allow many readers.\n")
	writeFile(t, filepath.Join(dir, "notes", "wal.txt"), "Write-ahead logging appends changes to a separate WAL file.\n")
	return dir
}

func TestIngestListQueryRemove(t *testing.T) {
	e := newEnv(t, "")
	dir := docs(t)
	if err := e.run(t, "ingest", dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "ingested 2, unchanged 0, failed 0") {
		t.Fatalf("summary: %q", e.out.String())
	}
	if err := e.run(t, "ingest", dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "ingested 0, unchanged 2") {
		t.Fatalf("second run: %q", e.out.String())
	}

	if err := e.run(t, "list", "--json"); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Sources []struct {
			ID     int64
			Handle string
			Path   string
			Format string
			Chunks int
		}
	}
	if err := json.Unmarshal([]byte(e.out.String()), &list); err != nil {
		t.Fatalf("%v: %s", err, e.out.String())
	}
	if len(list.Sources) != 2 || list.Sources[1].Format != "md" || list.Sources[1].Chunks != 2 || list.Sources[0].Format != "txt" {
		t.Fatalf("list: %+v", list)
	}

	if err := e.run(t, "query", "--json", "how", "does", "the", "pager", `"roll back?`); err != nil {
		t.Fatal(err)
	}
	var q struct {
		Results []struct {
			Source, Title, Path, Section, Text string
			Score                              float64
		}
	}
	if err := json.Unmarshal([]byte(e.out.String()), &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Results) == 0 || q.Results[0].Section != "Pager > Rollback" || !strings.HasPrefix(q.Results[0].Source, "corpus://cache/") ||
		!strings.HasSuffix(q.Results[0].Path, "pager.md") || q.Results[0].Title != "Pager" {
		t.Fatalf("query: %+v", q)
	}

	// Human output and FTS syntax in the query never error.
	for _, text := range []string{"AND", "foo:bar", "near(x y)", "100%", "C++ vs Rust"} {
		if err := e.run(t, "query", text); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
	}
	if err := e.run(t, "query", "--source", "wal.txt", "pager"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.out.String(), "pager.md") {
		t.Fatalf("--source ignored: %s", e.out.String())
	}

	if err := e.run(t, "sections", "pager.md"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "Rollback  [rollback-002") {
		t.Fatalf("sections: %s", e.out.String())
	}

	if err := e.run(t, "remove", "pager.md"); err != nil {
		t.Fatal(err)
	}
	if err := e.run(t, "query", "--json", "pager rollback"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.out.String(), "pager.md") {
		t.Fatal("removed source still returned")
	}
	err := e.run(t, "remove", "nothing-like-this")
	if err == nil || !strings.Contains(err.Error(), "no such source") {
		t.Fatalf("remove unknown: %v", err)
	}
}

func TestIngestPartialFailureExitCode(t *testing.T) {
	e := newEnv(t, "")
	dir := docs(t)
	writeFile(t, filepath.Join(dir, "bad.txt"), "\x00\x01binary")
	err := e.run(t, "ingest", dir, filepath.Join(dir, "missing.pdf"))
	var ce *cmdutil.Error
	if err == nil || !asErr(err, &ce) || ce.Code != cmdutil.ExitError || !strings.Contains(err.Error(), "partial success: 2 of 4 files failed") {
		t.Fatalf("err = %v", err)
	}
	out := e.out.String()
	if !strings.Contains(out, "bad.txt: binary content") || !strings.Contains(out, "missing.pdf: no such file") || !strings.Contains(out, "ingested 2") {
		t.Fatalf("summary: %s", out)
	}
}

func asErr(err error, target **cmdutil.Error) bool {
	e, ok := err.(*cmdutil.Error)
	*target = e
	return ok
}

func TestEval(t *testing.T) {
	e := newEnv(t, "")
	if err := e.run(t, "ingest", docs(t)); err != nil {
		t.Fatal(err)
	}
	qs := filepath.Join(t.TempDir(), "q.jsonl")
	writeFile(t, qs, `{"query": "how does rollback work", "gold_any": ["rolls  BACK the journal"]}
{"query": "write ahead log", "gold_any": ["appends changes"]}
{"query": "quantum chromodynamics", "gold_any": ["gluon"]}
`)
	if err := e.run(t, "eval", "--json", qs); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pooled struct {
			Queries, Hits int
			Recall, MRR   float64
		}
	}
	if err := json.Unmarshal([]byte(e.out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Pooled.Queries != 3 || rep.Pooled.Hits != 2 || rep.Pooled.Recall < 0.66 || rep.Pooled.MRR <= 0 {
		t.Fatalf("eval: %+v", rep)
	}
	if err := e.run(t, "eval", qs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "recall@5 0.667 (2/3)") || !strings.Contains(e.out.String(), "miss: quantum chromodynamics") {
		t.Fatalf("eval text: %s", e.out.String())
	}
	// The miss line's top hit reads like corpus query's heading path.
	writeFile(t, qs, `{"query": "rollback journal restores pages", "gold_any": ["no such gold text"]}`+"\n")
	if err := e.run(t, "eval", qs); err != nil {
		t.Fatal(err)
	}
	if out := e.out.String(); !strings.Contains(out, "(top: Pager › Rollback)") {
		t.Errorf("eval top hit: %s", out)
	}
	writeFile(t, qs, "{not json}\n")
	if err := e.run(t, "eval", qs); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad file: %v", err)
	}
}

func TestStrictGroupAndUsage(t *testing.T) {
	e := newEnv(t, "")
	if err := e.run(t, "frobnicate"); err == nil {
		t.Fatal("unknown verb accepted")
	}
	if err := e.run(t, "query", "--top-k", "0", "x"); err == nil {
		t.Fatal("--top-k 0 accepted")
	}
}

// fakeLLM records the request and returns a canned summary.
type fakeLLM struct{ got llm.Request }

func (f *fakeLLM) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	f.got = req
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "The pager restores pages."}}, nil
}

func TestSummarize(t *testing.T) {
	e := newEnv(t, "[general]\nsummarization_model = \"sum\"\n[api.local]\nbase_url = \"http://127.0.0.1:1/v1\"\n[models.sum]\napi = \"local\"\nid = \"tiny\"\n")
	if err := e.run(t, "ingest", docs(t)); err != nil {
		t.Fatal(err)
	}
	fake := &fakeLLM{}
	cmd := NewCmdSummarize(e.f, func(ctx context.Context, o *SummarizeOptions) error {
		o.NewClient = func(m *config.ResolvedModel, _ *http.Client) (llm.Client, error) {
			if m.ID != "tiny" {
				t.Fatalf("model %s, want the summarization model", m.ID)
			}
			return fake, nil
		}
		return summarizeRun(ctx, o)
	})
	cmd.SetArgs([]string{"pager.md", "--section", "rollback"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "The pager restores pages.") {
		t.Fatalf("out %q", e.out.String())
	}
	user := fake.got.Messages[len(fake.got.Messages)-1].Content
	if !strings.Contains(user, "rolls back the journal") || strings.Contains(user, "Shared locks") {
		t.Fatalf("section text not isolated: %q", user)
	}
	// --json gives the summary with what was summarized.
	before := len(e.out.String())
	cmd = NewCmdSummarize(e.f, func(ctx context.Context, o *SummarizeOptions) error {
		o.NewClient = func(*config.ResolvedModel, *http.Client) (llm.Client, error) { return fake, nil }
		return summarizeRun(ctx, o)
	})
	cmd.SetArgs([]string{"pager.md", "--section", "rollback", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var got summaryJSON
	if err := json.Unmarshal([]byte(e.out.String()[before:]), &got); err != nil || got.Summary != "The pager restores pages." ||
		!strings.HasPrefix(got.Source, "corpus://cache/") || got.Model != "sum" || got.Section == "" {
		t.Fatalf("--json: %v %+v", err, got)
	}
	// Too-short sections are refused before any model call.
	cmd = NewCmdSummarize(e.f, func(ctx context.Context, o *SummarizeOptions) error {
		o.NewClient = func(*config.ResolvedModel, *http.Client) (llm.Client, error) {
			t.Fatal("model called")
			return nil, nil
		}
		return summarizeRun(ctx, o)
	})
	cmd.SetArgs([]string{"pager.md", "--section", "Locking"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("short section: %v", err)
	}
}

func TestReindexAfterEmbedderChange(t *testing.T) {
	e := newEnv(t, "")
	if err := e.run(t, "ingest", docs(t)); err != nil {
		t.Fatal(err)
	}
	if err := e.run(t, "reindex"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), "re-embedded 0 chunks; 3 chunks indexed with minilm-l6-static") {
		t.Fatalf("reindex: %q", e.out.String())
	}
	// An unreachable provider fails with the embedder named, not with
	// silently lexical-only results.
	if err := os.WriteFile(filepath.Join(e.home, "config.toml"), []byte("[research.embedding]\nprovider = \"ollama\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2 := &testEnv{home: e.home}
	ios, _, out, errOut := iostreams.Test()
	e2.f = cmdutil.New(ios)
	e2.f.Getenv = e.f.Getenv
	e2.out, e2.err = out, errOut
	defer e2.f.Close()
	err := e2.run(t, "query", "pager")
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("an unreachable embedder must fail clearly: %v", err)
	}
}

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := &progressBar{w: &b}
	p.draw(25, 100, 10*time.Second, "25/100 chunks")
	if got := b.String(); !strings.Contains(got, "[======                  ] 25/100 chunks  ETA 30s") {
		t.Fatalf("bar %q", got)
	}
	p.draw(50, 100, 20*time.Second, "50/100 chunks") // within 100 ms: skipped
	if strings.Contains(b.String(), "50/100") {
		t.Fatal("redrawn within 100 ms")
	}
	p.draw(100, 100, 40*time.Second, "100/100 chunks") // the end is always drawn
	if !strings.HasSuffix(b.String(), "[========================] 100/100 chunks  ETA 0s") {
		t.Fatalf("final bar %q", b.String())
	}
	p.clear()
	if !strings.HasSuffix(b.String(), "\r") {
		t.Fatal("not cleared")
	}
}

// The bar counts the unchanged files read again by a newer extractor,
// and says nothing of them when there are none.
func TestIngestCountsReextracted(t *testing.T) {
	pr := research.Progress{Files: 4, TotalFiles: 9, Bytes: 2e6, TotalBytes: 5e6, Chunks: 40}
	if got := ingestCounts(pr); got != "4/9 files  2.0/5.0 MB  40 chunks" {
		t.Fatalf("counts %q", got)
	}
	pr.Reextracted = 3
	if got := ingestCounts(pr); got != "4/9 files  2.0/5.0 MB  40 chunks  3 re-read (newer extractor)" {
		t.Fatalf("counts %q", got)
	}
}

// While one large file is read (no per-file update for many seconds),
// the heartbeat redraws the bar with the time spent, so it does not look
// hung; it stays quiet while updates come.
func TestProgressBarHeartbeat(t *testing.T) {
	var b iostreams.SyncBuffer
	p := &progressBar{w: &b, tick: 20 * time.Millisecond}
	p.draw(0, 100, 0, ingestCounts(research.Progress{TotalFiles: 1, TotalBytes: 19e6}))
	stop := p.heartbeat(time.Now().Add(-3 * time.Second))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(b.String(), "0/1 files  0.0/19.0 MB  0 chunks  (working, 3s)") {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("no heartbeat: %q", b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	n := len(b.String())
	time.Sleep(60 * time.Millisecond)
	if len(b.String()) != n {
		t.Fatal("drawn after stop")
	}
	p.clear()
}

// A document whose title and file name carry OSC 52 (clipboard write) and
// row-forging newlines must reach the terminal inert in list, query and
// sections.
func TestAttackOSC52InTitleAndFileName(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	name := filepath.Join(dir, "notes\x1b]52;c;ZXZpbA==\x07.md")
	writeFile(t, name, "# Pager \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 journal\n\n## Rollback \x1b[2J section\n\nThe pager rolls back \x1b]0;pwned\x07 the journal.\n")
	if err := e.run(t, "ingest", name); err != nil {
		t.Fatalf("ingest: %v\n%s", err, e.out.String())
	}
	for _, args := range [][]string{{"list"}, {"query", "pager journal rollback"}, {"sections", "corpus://cache/1"}} {
		if err := e.run(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if out := e.out.String() + e.err.String(); strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "Pager") {
			t.Errorf("%v printed a raw escape sequence:\n%q", args, out)
		}
	}
}

// Re-ingesting a directory drops the documents whose files were deleted
// from it, and says how many; other documents stay.
func TestReingestRemovesDeletedFiles(t *testing.T) {
	e := newEnv(t, "")
	dir, other := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "keep.md"), "# Keep\n\nThe pager keeps pages.\n")
	writeFile(t, filepath.Join(dir, "sub", "gone.md"), "# Gone\n\nThe journal is gone.\n")
	writeFile(t, filepath.Join(other, "gone.md"), "# Elsewhere\n\nNot under the directory.\n")
	if err := e.run(t, "ingest", dir, filepath.Join(other, "gone.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "sub", "gone.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(other, "gone.md")); err != nil {
		t.Fatal(err)
	}
	if err := e.run(t, "ingest", dir); err != nil {
		t.Fatal(err)
	}
	if out := e.out.String(); !strings.Contains(out, "removed 1 document whose files were deleted") || !strings.Contains(out, filepath.Join("sub", "gone.md")) {
		t.Fatalf("output:\n%s", out)
	}
	if err := e.run(t, "list", "--json"); err != nil {
		t.Fatal(err)
	}
	var got struct{ Sources []struct{ Path string } }
	if err := json.Unmarshal([]byte(e.out.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Sources) != 2 {
		t.Fatalf("sources %+v: want keep.md and the file outside the directory", got.Sources)
	}
	// The last file deleted too: re-ingesting the now-empty directory prunes.
	if err := os.Remove(filepath.Join(dir, "keep.md")); err != nil {
		t.Fatal(err)
	}
	if err := e.run(t, "ingest", dir); err != nil || !strings.Contains(e.out.String(), "removed 1 document") {
		t.Fatalf("%v\n%s", err, e.out.String())
	}
}
