package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// env is a factory over a temp ASKY_HOME with captured streams.
type env struct {
	f                  *cmdutil.Factory
	ios                *iostreams.IOStreams
	in, stdout, stderr *bytes.Buffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	f := cmdutil.New(ios)
	home := t.TempDir()
	f.Getenv = func(k string) string {
		if k == "ASKY_HOME" {
			return home
		}
		return ""
	}
	t.Cleanup(f.Close)
	return &env{f: f, ios: ios, in: in, stdout: out, stderr: errOut}
}

// run executes `asky memory <args…>` and returns the error.
func (e *env) run(t *testing.T, args ...string) error {
	t.Helper()
	e.stdout.Reset()
	e.stderr.Reset()
	cmd := NewCmdMemory(e.f)
	cmd.SetArgs(args)
	cmd.SetIn(e.in)
	cmd.SetOut(e.stderr)
	cmd.SetErr(e.stderr)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.ExecuteContext(context.Background())
}

func (e *env) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	if err := e.run(t, args...); err != nil {
		t.Fatalf("memory %v: %v\nstderr: %s", args, err, e.stderr)
	}
	return e.stdout.String()
}

func (e *env) store(t *testing.T) *store.Store {
	t.Helper()
	st, err := e.f.Store()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func exitCode(err error) int {
	var ce *cmdutil.Error
	var fe *cmdutil.FlagError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &fe):
		return cmdutil.ExitUsage
	case errors.As(err, &ce):
		return ce.Code
	}
	return 1
}

func TestAddAndList(t *testing.T) {
	e := newEnv(t)
	if out := e.mustRun(t, "list"); out != "" || !strings.Contains(e.stderr.String(), "no memories yet") {
		t.Errorf("empty list: stdout %q stderr %q", out, e.stderr)
	}
	if out := e.mustRun(t, "add", "I", "live", "in", "Lisbon", "--tag", "home,Place", "--tag", "home"); out != "saved memory 1\n" {
		t.Errorf("add = %q", out)
	}
	if out := e.mustRun(t, "add", "i live in lisbon."); out != "updated memory 1\n" || !strings.Contains(e.stderr.String(), "same as memory 1") {
		t.Errorf("duplicate add = %q / %q", out, e.stderr)
	}
	e.in.WriteString("My manager is Ana\n")
	if out := e.mustRun(t, "add", "--tag", "work"); out != "saved memory 2\n" {
		t.Errorf("add from stdin = %q", out)
	}
	e.mustRun(t, "add", "Prefers tabs\tover spaces", "--json")
	var added map[string]any
	if err := json.Unmarshal(e.stdout.Bytes(), &added); err != nil || added["status"] != "saved" || added["memory_id"] != float64(3) || added["deduplicated"] != false {
		t.Errorf("add --json = %s", e.stdout)
	}

	// Piped: TSV, complete rows, tabs in text flattened.
	want := "1\tglobal\ti live in lisbon.\thome,place\n2\tglobal\tMy manager is Ana\twork\n3\tglobal\tPrefers tabs over spaces\t\n"
	if out := e.mustRun(t, "list"); out != want {
		t.Errorf("list =\n%s\nwant\n%s", out, want)
	}
	// Terminal: aligned with a header.
	e.ios.SetTTY(false, true, false)
	out := e.mustRun(t, "list")
	e.ios.SetTTY(false, false, false)
	if lines := strings.Split(out, "\n"); !strings.HasPrefix(lines[0], "ID  SCOPE   MEMORY") || !strings.HasPrefix(lines[1], "1   global  i live in lisbon.") {
		t.Errorf("tty list =\n%s", out)
	}

	if err := e.run(t, "add", strings.Repeat("word ", 300)); exitCode(err) != 2 || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long add: %v (exit %d)", err, exitCode(err))
	}
	if err := e.run(t, "add"); exitCode(err) != 2 {
		t.Errorf("add without text: %v", err)
	}
}

func TestListScopes(t *testing.T) {
	e := newEnv(t)
	e.mustRun(t, "add", "I live in Lisbon")
	st := e.store(t)
	for _, name := range []string{"trip", "work"} {
		if _, err := st.DB().Exec(`INSERT INTO sessions(name, created_at, last_used_at) VALUES(?, 'x', 'x')`, name); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, m := range []*store.Memory{{SessionID: 1, Text: "Travels by train"}, {SessionID: 2, Text: "Team uses Go"}} {
		if _, err := st.SaveMemory(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []int64 {
		var out struct{ Memories []memoryJSON }
		if err := json.Unmarshal(e.stdout.Bytes(), &out); err != nil {
			t.Fatalf("bad json %s: %v", e.stdout, err)
		}
		var ids []int64
		for _, m := range out.Memories {
			ids = append(ids, m.ID)
		}
		return ids
	}
	e.mustRun(t, "list", "--json")
	if got := ids(); !slices.Equal(got, []int64{1}) {
		t.Errorf("default list = %v", got)
	}
	e.mustRun(t, "list", "--json", "--session", "trip")
	if got := ids(); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("--session trip = %v", got)
	}
	e.mustRun(t, "list", "--all", "--json")
	if got := ids(); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("--all = %v", got)
	}
	if out := e.mustRun(t, "list", "--session", "S2"); !strings.Contains(out, "3\tsession 2 (work)\tTeam uses Go") {
		t.Errorf("session rows are not marked:\n%s", out)
	}
	var j struct{ Memories []memoryJSON }
	e.mustRun(t, "list", "--json", "--session", "2")
	_ = json.Unmarshal(e.stdout.Bytes(), &j)
	if m := j.Memories[1]; m.Scope != "session" || m.SessionID == nil || *m.SessionID != 2 || m.SessionName != "work" {
		t.Errorf("session memory json = %+v", m)
	}
	if m := j.Memories[0]; m.Scope != "global" || m.SessionID != nil {
		t.Errorf("global memory json = %+v", m)
	}
	if err := e.run(t, "list", "--session", "nope"); exitCode(err) != 1 || !strings.Contains(err.Error(), `no session matches "nope"`) {
		t.Errorf("unknown session: %v", err)
	}
	if err := e.run(t, "list", "--all", "--session", "trip"); exitCode(err) != 2 {
		t.Errorf("--all with --session: %v", err)
	}

	// A shell bound to a session lists that session's memories too.
	var captured *ListOptions
	cmd := NewCmdList(e.f, func(_ context.Context, o *ListOptions) error { captured = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	captured.Bound = func(context.Context) (int64, error) { return 1, nil }
	e.stdout.Reset()
	if err := listRun(ctx, captured); err != nil {
		t.Fatal(err)
	}
	if out := e.stdout.String(); !strings.Contains(out, "Travels by train") || strings.Contains(out, "Team uses Go") {
		t.Errorf("bound list =\n%s", out)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	for _, m := range []string{"I live in Lisbon", "I drink tea", "I use Neovim"} {
		e.mustRun(t, "add", m)
	}
	if out := e.mustRun(t, "delete", "1"); out != "deleted memory 1\n" {
		t.Errorf("delete = %q", out)
	}
	err := e.run(t, "delete", "2,3", "9")
	if out := e.stdout.String(); out != "deleted memories 2, 3\n" {
		t.Errorf("delete list = %q", out)
	}
	if exitCode(err) != 1 || err.Error() != "no memory 9" {
		t.Errorf("missing id: %v", err)
	}
	if n, _ := e.store(t).CountMemories(context.Background(), store.MemoryScope{All: true}); n != 0 {
		t.Errorf("%d memories left", n)
	}
	for _, bad := range [][]string{{"delete"}, {"delete", "x"}, {"delete", "0"}, {"delete", ","}} {
		if err := e.run(t, bad...); exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d)", bad, err, exitCode(err))
		}
	}
}

func TestClear(t *testing.T) {
	e := newEnv(t)
	if e.mustRun(t, "clear"); !strings.Contains(e.stderr.String(), "no memories to clear") {
		t.Errorf("empty clear: %q", e.stderr)
	}
	e.mustRun(t, "add", "I live in Lisbon")
	e.mustRun(t, "add", "I drink tea")
	count := func() int {
		n, _ := e.store(t).CountMemories(context.Background(), store.MemoryScope{All: true})
		return n
	}

	// Not a terminal and no --yes: refuse, delete nothing.
	err := e.run(t, "clear")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "refusing to delete 2 memories") || count() != 2 {
		t.Errorf("non-tty clear: %v (exit %d), %d left", err, exitCode(err), count())
	}
	// On a terminal: ask; anything but yes keeps them.
	e.ios.SetTTY(true, false, true)
	e.in.WriteString("n\n")
	if err := e.run(t, "clear"); !errors.Is(err, cmdutil.ErrSilent) || count() != 2 {
		t.Errorf("declined clear: %v, %d left", err, count())
	}
	if !strings.Contains(e.stderr.String(), "Delete all 2 memories (2 global, 0 in sessions)? This cannot be undone. [y/N]") {
		t.Errorf("prompt = %q", e.stderr)
	}
	e.in.WriteString("YES\n")
	if out := e.mustRun(t, "clear"); out != "deleted 2 memories\n" || count() != 0 {
		t.Errorf("confirmed clear = %q, %d left", out, count())
	}
	e.ios.SetTTY(false, false, false)
	e.mustRun(t, "add", "I drink tea")
	if out := e.mustRun(t, "clear", "--yes"); out != "deleted 1 memory\n" {
		t.Errorf("clear --yes = %q", out)
	}
}

// lexicalOnly configures the hash-v1 embedder, which memory does not use:
// similarity is memory's own lexical measure.
func (e *env) lexicalOnly(t *testing.T) {
	t.Helper()
	home := e.f.Getenv("ASKY_HOME")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[research.embedding]\nmodel = \"hash-v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSearchRecallsParaphrasesWithTheDefaultEmbedder(t *testing.T) {
	e := newEnv(t)
	for _, m := range []string{"I cycle to work", "My dog is called Rex", "I drink tea", "I live in Lisbon"} {
		e.mustRun(t, "add", m)
	}
	out := e.mustRun(t, "search", "how do I commute")
	if !strings.Contains(out, "\tI cycle to work") || strings.Count(out, "\n") != 1 {
		t.Errorf("search = %q, want only the paraphrased fact", out)
	}
	lex := newEnv(t)
	lex.lexicalOnly(t)
	lex.mustRun(t, "add", "I cycle to work")
	if out := lex.mustRun(t, "search", "how do I commute"); out != "" {
		t.Errorf("lexical search found %q", out)
	}
}

func TestSearch(t *testing.T) {
	e := newEnv(t)
	e.lexicalOnly(t)
	for _, m := range []string{"I live in Lisbon", "Lisbon trams are my favourite thing about home", "I drink tea"} {
		e.mustRun(t, "add", m)
	}
	out := e.mustRun(t, "search", "where", "do", "I", "live")
	if out != "1\t0.71\tglobal\tI live in Lisbon\t\n" {
		t.Errorf("search =\n%s", out)
	}
	e.mustRun(t, "search", "I live in Lisbon", "--json")
	var res struct{ Results []memoryJSON }
	if err := json.Unmarshal(e.stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].ID != 1 || *res.Results[0].Score != 1 || *res.Results[1].Score >= 1 || *res.Results[1].Score <= 0 {
		t.Errorf("search --json = %s", e.stdout)
	}
	if out := e.mustRun(t, "search", "kubernetes"); out != "" || !strings.Contains(e.stderr.String(), "no memory is similar") {
		t.Errorf("no match: %q / %q", out, e.stderr)
	}
	e.mustRun(t, "search", "--json", "kubernetes")
	if strings.TrimSpace(e.stdout.String()) != "{\n  \"results\": []\n}" {
		t.Errorf("empty json = %s", e.stdout)
	}
	if err := e.run(t, "search"); exitCode(err) != 2 {
		t.Errorf("search without text: %v", err)
	}
	if err := e.run(t, "search", "x", "--limit", "0"); exitCode(err) != 2 {
		t.Errorf("--limit 0: %v", err)
	}
}

func TestStrictGroup(t *testing.T) {
	e := newEnv(t)
	if err := e.run(t, "banana"); exitCode(err) != 2 {
		t.Errorf("unknown verb: %v", err)
	}
	for _, args := range [][]string{{"list", "foo"}, {"clear", "all"}} {
		if err := e.run(t, args...); exitCode(err) != 2 {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// A memory the model saved after reading a page is listed as unconfirmed
// with what the turn had read, until `memory confirm` keeps it.
func TestConfirmUnconfirmedMemory(t *testing.T) {
	e := newEnv(t)
	st := e.store(t)
	id, err := st.SaveMemory(context.Background(), &store.Memory{Text: "The user's bank is \x1b]52;c;ZXZpbA==\x07evil-bank.example",
		Provenance: "get_url_content https://blog.example/post", Unconfirmed: true})
	if err != nil {
		t.Fatal(err)
	}
	out := e.mustRun(t, "list")
	if !strings.Contains(out, "global, unconfirmed") || !strings.Contains(e.stderr.String(), "https://blog.example/post") ||
		!strings.Contains(e.stderr.String(), "asky memory confirm 1") {
		t.Fatalf("list:\n%s\nstderr:\n%s", out, e.stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("escape sequence printed raw: %q", out)
	}
	js := e.mustRun(t, "list", "--json")
	if !strings.Contains(js, `"confirmed": false`) || !strings.Contains(js, `"provenance": "get_url_content https://blog.example/post"`) {
		t.Fatalf("json: %s", js)
	}
	if out := e.mustRun(t, "confirm", "1"); out != "confirmed memory 1\n" {
		t.Fatalf("confirm: %q", out)
	}
	if m, _ := st.GetMemory(context.Background(), id); m.Unconfirmed {
		t.Fatal("still unconfirmed")
	}
	if out := e.mustRun(t, "list"); strings.Contains(out, "unconfirmed") {
		t.Fatalf("list after confirm:\n%s", out)
	}
	if out := e.mustRun(t, "confirm", "1"); out != "memory 1 was already confirmed\n" {
		t.Fatalf("confirm again: %q", out)
	}
	if err := e.run(t, "confirm", "9"); exitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "no memory 9") {
		t.Fatalf("unknown id: %v", err)
	}
}
