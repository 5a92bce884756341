package history

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/MakeNowJust/heredoc"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/termlines"
)

func TestNewCmdShow(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var got *ShowOptions
	cmd := NewCmdShow(&cmdutil.Factory{IO: io}, func(_ context.Context, o *ShowOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"3", "~1", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Selector, " ") != "3 ~1" || !got.JSON {
		t.Fatalf("opts = %+v", got)
	}
	cmd = NewCmdShow(&cmdutil.Factory{IO: io}, func(context.Context, *ShowOptions) error { t.Fatal("ran without a selector"); return nil })
	cmd.SetArgs(nil)
	cmd.SetOut(io.ErrOut)
	cmd.SetErr(io.ErrOut)
	if err := cmd.Execute(); exitCode(err) != 2 {
		t.Fatalf("no selector: err %v, want exit 2", err)
	}
}

func seedShow(t *testing.T, st *store.Store) {
	t.Helper()
	save(t, st, time.Hour, store.Turn{Model: "gpt-4o", Query: "capital of France?", Answer: "# Paris\n\nParis is the capital.",
		Sources: []store.Source{{URL: "https://example.org/fr", Title: "France"}},
		Messages: []store.Message{
			{Role: "user", Content: "capital of France?"},
			{Role: "assistant", ToolCalls: `[{"id":"c1","name":"web_search","arguments":"{\"q\":\"capital france\"}"},{"id":"c2","name":"read_url","arguments":"not json"}]`},
			{Role: "tool", ToolCallID: "c1", Name: "web_search", Content: "<tool_result tool=\"web_search\">\nresults\n</tool_result>"},
			{Role: "tool", ToolCallID: "c2", Name: "read_url", Content: "<tool_result tool=\"read_url\">\nError: arguments are not valid JSON\n</tool_result>"},
			{Role: "assistant", Content: "# Paris\n\nParis is the capital."},
		},
		Calls: []store.LLMCall{{Purpose: "main", Model: "gpt-4o", PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.001}, {Purpose: "main", Model: "gpt-4o", PromptTokens: 200, CompletionTokens: 20}},
	})
	save(t, st, time.Minute, store.Turn{Model: "sonnet", Query: "two\nlines", Status: store.StatusError, Error: "rate limited (429)"})
}

func runShow(t *testing.T, st *store.Store, tty bool, json bool, sel ...string) (string, string, error) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	io.SetTTY(false, tty, tty)
	err := showRun(context.Background(), &ShowOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Style: (&cmdutil.Factory{IO: io}).MarkdownStyle, Selector: sel, JSON: json})
	return out.String(), errOut.String(), err
}

func TestShowRunRaw(t *testing.T) {
	st := newStore(t)
	seedShow(t, st)
	out, _, err := runShow(t, st, false, false, "1,~1")
	if err != nil {
		t.Fatal(err)
	}
	want := heredoc.Doc(`
		<!-- asky history 1 · 2026-11-22T11:00:00Z · gpt-4o -->
		> capital of France?

		# Paris

		Paris is the capital.

		---

		<!-- asky history 2 · 2026-11-22T11:59:00Z · sonnet · error -->
		> two
		> lines

		_error: rate limited (429)_
	`)
	if out != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", out, want)
	}
}

func TestShowRunTTY(t *testing.T) {
	st := newStore(t)
	seedShow(t, st)
	out, _, err := runShow(t, st, true, false, "1-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#1 · 1h ago", "gpt-4o", "> capital of France?", "Paris is the capital.", "─────", "#2 · 1m ago", "[error]", "error: rate limited (429)", "(no answer was saved)"} {
		if !strings.Contains(out, want) {
			t.Errorf("TTY output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\n  Paris is the capital.") {
		t.Errorf("answer was not rendered by glamour (no margin):\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("ANSI codes with color disabled:\n%q", out)
	}
}

func TestShowRunJSON(t *testing.T) {
	st := newStore(t)
	seedShow(t, st)
	out, _, err := runShow(t, st, false, true, "1")
	if err != nil {
		t.Fatal(err)
	}
	var got []showTurn
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d turns", len(got))
	}
	g := got[0]
	if g.ID != 1 || g.Answer != "# Paris\n\nParis is the capital." || g.Model != "gpt-4o" || len(g.Messages) != 5 || len(g.Calls) != 2 {
		t.Fatalf("turn = %+v", g)
	}
	if g.Usage.PromptTokens != 300 || g.Usage.CompletionTokens != 30 || len(g.Sources) != 1 || g.Sources[0].URL != "https://example.org/fr" {
		t.Fatalf("usage/sources = %+v %+v", g.Usage, g.Sources)
	}
	if len(g.ToolCalls) != 2 || g.ToolCalls[0].Name != "web_search" || !g.ToolCalls[0].OK || compact(g.ToolCalls[0].Arguments) != `{"q":"capital france"}` ||
		g.ToolCalls[1].OK || string(g.ToolCalls[1].Arguments) != `"not json"` {
		t.Fatalf("tool calls = %+v", g.ToolCalls)
	}
}

func TestShowRunMissingIsReported(t *testing.T) {
	st := newStore(t)
	seedShow(t, st)
	out, _, err := runShow(t, st, false, false, "1", "99", "~7")
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "99, ~7") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(out, "capital of France?") {
		t.Fatalf("existing turn not printed: %q", out)
	}
}

func TestShowRunBadSelector(t *testing.T) {
	st := newStore(t)
	for _, sel := range []string{"~0", "abc", "~-1", "99999999999999999999", "/home/me"} {
		_, _, err := runShow(t, st, false, false, sel)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "invalid history selector") {
			t.Fatalf("%s: err = %v, want usage error", sel, err)
		}
	}
	_, _, err := runShow(t, st, false, false, "/home/me")
	if ce, ok := err.(*cmdutil.Error); !ok || !strings.Contains(ce.Hint, "quote it") {
		t.Fatalf("expanded ~0 hint missing: %v", err)
	}
	_, _, err = runShow(t, st, false, false, "~0")
	if ce, ok := err.(*cmdutil.Error); !ok || !strings.Contains(ce.Hint, "~N for the N-th most recent") {
		t.Fatalf("hint does not list the forms: %v", err)
	}
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Input sent beside the question is labelled by what it was: piped stdin,
// -tl terminal lines, or both.
func TestShowRunInputKind(t *testing.T) {
	st := openStore(t)
	term := termlines.Block("$ make\nerror: disk full", 2)
	save(t, st, 3*time.Minute, store.Turn{Query: "why?", Answer: "a", Input: term})
	save(t, st, 2*time.Minute, store.Turn{Query: "why?", Answer: "a", Input: "Input from stdin:\n```\nlog\n```\n\n" + term})
	save(t, st, time.Minute, store.Turn{Query: "why?", Answer: "a", Input: "Input from stdin:\n```\nlog\n```"})
	for sel, want := range map[string]string{"1": "KB of terminal lines;", "2": "KB of piped input and terminal lines;", "3": "KB of piped input;"} {
		out, _, err := runShow(t, st, true, false, sel)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: want %q in\n%s (%v)", sel, want, out, err)
		}
	}
}
