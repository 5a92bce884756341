package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

// env is one test world: an asky home and a runtime dir shared by the
// "shells" created with shell().
type env struct {
	t       *testing.T
	home    string
	runtime string
	st      *store.Store
	cfg     *config.Config
}

func newEnv(t *testing.T, configTOML string) *env {
	e := &env{t: t, home: t.TempDir(), runtime: t.TempDir()}
	if configTOML != "" {
		os.WriteFile(filepath.Join(e.home, "config.toml"), []byte(configTOML), 0o600)
	}
	cfg, err := config.Load(e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	e.cfg = cfg
	st, err := store.Open(context.Background(), cfg.Paths.DB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.st = st
	return e
}

func (e *env) getenv(k string) string {
	switch k {
	case "ASKY_HOME":
		return e.home
	case "XDG_RUNTIME_DIR":
		return e.runtime
	case "HOME":
		return e.home
	}
	return ""
}

// shell returns options for a query typed in the shell with process id
// ppid, and its stderr.
func (e *env) shell(ppid int, words ...string) (*Options, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Getenv: e.getenv, Now: time.Now, Getppid: func() int { return ppid }}
	f.Config = sync.OnceValues(func() (*config.Config, error) { return e.cfg, nil })
	f.Store = func() (*store.Store, error) { return e.st, nil }
	return &Options{IO: ios, Config: f.Config, Store: f.Store, Factory: f, Now: time.Now, Words: words}, out, errOut
}

// fakeLLM answers every call with a fixed reply and records requests.
type fakeLLM struct {
	reply string
	reqs  []llm.Request
}

func (f *fakeLLM) Chat(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	f.reqs = append(f.reqs, req)
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: f.reply}}, nil
}

// ask runs one full turn (without a provider): beginSession, prepare, the
// engine, after. It returns the request the model saw.
func (e *env) ask(opts *Options, client *fakeLLM, ctxSize int) (*turn.Result, llm.Request) {
	e.t.Helper()
	ctx := context.Background()
	sx, done, err := beginSession(ctx, opts, e.cfg)
	if err != nil || done {
		e.t.Fatalf("beginSession: done=%v err=%v", done, err)
	}
	core := newCore(opts)
	core.Model = func(context.Context, string) (*config.ResolvedModel, llm.Client, error) {
		return &config.ResolvedModel{Alias: "m", ID: "m", ContextSize: ctxSize}, client, nil
	}
	q := coreRequest(opts, sx)
	res, err := core.Run(ctx, q, func(ev turn.Event) {
		if ev.Kind == turn.EventNotice {
			fmt.Fprintln(opts.IO.ErrOut, ev.Text)
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return res, client.reqs[len(client.reqs)-1]
}

func TestStickySessionsPerShell(t *testing.T) {
	e := newEnv(t, "")
	fake := &fakeLLM{reply: "Lisbon is lovely in May."}
	o, _, errOut := e.shell(100, "best", "month", "for", "lisbon")
	o.StickySession = "trip"
	res, _ := e.ask(o, fake, 100000)
	if res.SessionID == 0 || !strings.Contains(errOut.String(), "Created session 1 (trip)") {
		t.Fatalf("session %d, stderr %q", res.SessionID, errOut)
	}
	// Same shell: continues the session with the earlier turn as context.
	o, _, errOut = e.shell(100, "and", "june?")
	res, req := e.ask(o, fake, 100000)
	if res.SessionID != 1 || !strings.Contains(errOut.String(), "Resuming session 1 (trip)") {
		t.Fatalf("second turn: session %d, stderr %q", res.SessionID, errOut)
	}
	if len(req.Messages) != 4 || req.Messages[1].Content != "best month for lisbon" || req.Messages[2].Content != fake.reply {
		t.Fatalf("context not sent: %+v", req.Messages)
	}
	// Another shell is independent.
	o, _, errOut = e.shell(200, "unrelated")
	res, req = e.ask(o, fake, 100000)
	if res.SessionID != 0 || len(req.Messages) != 2 || strings.Contains(errOut.String(), "Resuming") {
		t.Fatalf("other shell joined the session: %d %q", res.SessionID, errOut)
	}
	// A binding to a deleted session is cleared with a notice.
	if _, err := e.st.DeleteSessions(context.Background(), []int64{1}); err != nil {
		t.Fatal(err)
	}
	o, _, errOut = e.shell(100, "hello")
	res, _ = e.ask(o, fake, 100000)
	if res.SessionID != 0 || !strings.Contains(errOut.String(), "cleared this shell's binding to deleted session 1") {
		t.Fatalf("stale binding: %d %q", res.SessionID, errOut)
	}
}

func TestSessionDefaultsPersist(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	// Flags alone without a session start one for this shell (§1.8):
	// unnamed_<unix time> until its first question names it.
	o, _, errOut := e.shell(7)
	o.Lean = true
	o.Now = func() time.Time { return time.Unix(1700000000, 0) }
	sx, done, err := beginSession(ctx, o, e.cfg)
	if !done || err != nil || sx.sess == nil || sx.sess.Name != "unnamed_1700000000" || !sx.sess.Defaults.PendingAutoName {
		t.Fatalf("flags without a session: %v %v %+v", done, err, sx.sess)
	}
	if !strings.HasPrefix(errOut.String(), "Session 1 updated with query defaults: lean; this shell now continues it") {
		t.Fatalf("stderr %q", errOut)
	}
	o, _, errOut = e.shell(7, "plan", "a", "lisbon", "weekend")
	if sx, _, err = beginSession(ctx, o, e.cfg); err != nil || sx.sess == nil || sx.sess.ID != 1 {
		t.Fatalf("first question: %v %+v", err, sx.sess)
	}
	if got, _ := e.st.GetSession(ctx, 1); got.Name != "plan-lisbon-weekend" || got.Defaults.PendingAutoName || !got.Defaults.Lean {
		t.Fatalf("named from the first question: %+v", got)
	}
	if !strings.Contains(errOut.String(), "Resuming session 1 (plan-lisbon-weekend)") {
		t.Fatalf("stderr %q", errOut)
	}
	// --tools reset has nothing to reset without a session.
	o, _, _ = e.shell(8)
	o.ToolsReset = true
	if _, done, err := beginSession(ctx, o, e.cfg); !done || err == nil || !strings.Contains(err.Error(), "no session to reset") {
		t.Fatalf("--tools reset without a session: %v %v", done, err)
	}
	// A placeholder session for this shell (as `asky -ss` or the idle
	// prompt's "new" make).
	ph := &store.Session{Defaults: store.SessionDefaults{PendingAutoName: true}}
	e.st.CreateSession(ctx, ph)
	bindShell(e, 7, ph.ID)
	// Defaults-only invocation: updates the session and says so.
	o, _, errOut = e.shell(7)
	o.Turns, o.Lean, o.ToolOff = 3, true, []string{"web_search"}
	sx, done, err = beginSession(ctx, o, e.cfg)
	if err != nil || !done || sx.sess == nil {
		t.Fatalf("defaults-only: %v %v", done, err)
	}
	if !strings.Contains(errOut.String(), "updated with query defaults: lean, 3 turns, tools off: web_search") {
		t.Fatalf("stderr %q", errOut)
	}
	// A later plain question gets them back.
	o, _, _ = e.shell(7, "what", "now")
	sx2, _, err := beginSession(ctx, o, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := coreRequest(o, sx2)
	compose.ApplySessionDefaults(&q, sx2.sess)
	if q.MaxTurns != 3 || !q.Lean || len(q.ToolOff) != 1 {
		t.Fatalf("defaults not applied: %+v", q)
	}
	// A flag given again overrides and is stored.
	o, _, _ = e.shell(7, "x")
	o.Turns = 9
	beginSession(ctx, o, e.cfg)
	s, _ := e.st.GetSession(ctx, sx.sess.ID)
	if s.MaxTurns != 9 || !s.Defaults.Lean {
		t.Fatalf("stored %+v", s)
	}
	// The placeholder session was named from its first question ("what
	// now") and keeps that name.
	fake := &fakeLLM{reply: "ok"}
	o, _, _ = e.shell(7, "Plan", "a", "Lisbon", "weekend")
	e.ask(o, fake, 100000)
	s, _ = e.st.GetSession(ctx, sx.sess.ID)
	if s.Name != "now" || s.Defaults.PendingAutoName {
		t.Fatalf("auto name: %+v", s)
	}
}

func TestContinueSelectors(t *testing.T) {
	ctx := context.Background()
	fake := &fakeLLM{reply: "ok"}
	var e *env
	for _, tc := range []struct {
		cont  string
		words []string
		want  string // first context message
		query string
	}{
		{"~1", []string{"2", "more"}, "second q", "more"},
		{"~1", []string{"tell", "me", "more"}, "third q", "tell me more"},
		{"1,~2", []string{"go"}, "first q", "go"},
		{"why", []string{"so"}, "third q", "why so"}, // a non-selector value is the question
	} {
		e = newEnv(t, "")
		for _, q := range []string{"first q", "second q", "third q"} {
			e.st.SaveTurn(ctx, &store.Turn{Query: q, Answer: "answer to " + q})
		}
		o, _, errOut := e.shell(1, tc.words...)
		o.Continue = tc.cont
		_, req := e.ask(o, fake, 100000)
		last := req.Messages[len(req.Messages)-1].Content
		if req.Messages[1].Content != tc.want || last != tc.query || !strings.Contains(errOut.String(), "Loaded context from history") {
			t.Errorf("-c %s %v: context %q, query %q, stderr %q", tc.cont, tc.words, req.Messages[1].Content, last, errOut)
		}
	}
	// A bare number without -c is a question, not a lookup.
	o, _, _ := e.shell(1, "42")
	_, req := e.ask(o, fake, 100000)
	if len(req.Messages) != 2 || req.Messages[1].Content != "42" {
		t.Errorf("bare number: %+v", req.Messages)
	}
}

func TestSessionCompactionBeforeRequest(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	s := &store.Session{Name: "long"}
	e.st.CreateSession(ctx, s)
	for i := 0; i < 5; i++ {
		e.st.SaveTurn(ctx, &store.Turn{SessionID: s.ID, Query: "question", Answer: strings.Repeat("word ", 200)})
	}
	o, _, errOut := e.shell(5, "next")
	o.ResumeSession = "long"
	// No tools and a one-line system prompt: the default ones alone would
	// not fit this tiny context.
	o.ToolOff, o.SystemPrompt = []string{"all"}, "Be brief."
	fake := &fakeLLM{reply: "ok"}
	_, req := e.ask(o, fake, 1000)
	if !strings.Contains(errOut.String(), "session context compacted: 3 earlier turns") {
		t.Fatalf("stderr %q", errOut)
	}
	// system + summary pair + 2 kept turns + question
	if len(req.Messages) != 8 || !strings.Contains(req.Messages[1].Content, "Summary of our earlier conversation") {
		t.Fatalf("messages %d: %+v", len(req.Messages), req.Messages[1])
	}
	// Lean turns never compact.
	got, _ := e.st.GetSession(ctx, s.ID)
	if got.CompactedThrough != 3 {
		t.Fatalf("compacted through %d", got.CompactedThrough)
	}
}

func TestPresetsAndPrompts(t *testing.T) {
	e := newEnv(t, `
[user_prompts]
wh = "Explain what happened in:"
[command_presets]
tr = "-L translate $1 to french"
`)
	ctx := context.Background()
	o, _, _ := e.shell(1, `\tr`, "hello")
	if done, err := expandPreset(o, e.cfg); done || err != nil {
		t.Fatal(done, err)
	}
	if !o.Lean || joinWords(o.Words) != "translate hello to french" {
		t.Fatalf("preset: lean=%v words=%q", o.Lean, o.Words)
	}
	o, out, _ := e.shell(1, `\presets`)
	if done, _ := expandPreset(o, e.cfg); !done || !strings.Contains(out.String(), `\tr`) {
		t.Fatalf("presets list: %q", out)
	}
	o, _, _ = e.shell(1, `\nope`)
	if _, err := expandPreset(o, e.cfg); err == nil || !strings.Contains(err.Error(), "unknown preset") {
		t.Fatalf("unknown preset: %v", err)
	}
	o, _, _ = e.shell(1, "/wh", "the", "crash")
	sx := &sessionTurn{opts: o, cfg: e.cfg}
	if done, err := sx.expandPrompts(ctx); done || err != nil || joinWords(o.Words) != "Explain what happened in: the crash" {
		t.Fatalf("alias: %v %v %q", done, err, o.Words)
	}
	o, out, _ = e.shell(1, "/")
	sx = &sessionTurn{opts: o, cfg: e.cfg}
	if done, err := sx.expandPrompts(ctx); !done || err != nil || !strings.Contains(out.String(), "/wh") {
		t.Fatalf("bare slash: %v %v %q", done, err, out)
	}
	o, out, _ = e.shell(1, "/w")
	sx = &sessionTurn{opts: o, cfg: e.cfg}
	if done, err := sx.expandPrompts(ctx); !done || err == nil || !strings.Contains(out.String(), "/wh") {
		t.Fatalf("unknown alias: %v %v %q", done, err, out)
	}
	// Nothing listed: the error does not point at prompts "above".
	o, out, errOut := e.shell(1, "/zz")
	sx = &sessionTurn{opts: o, cfg: e.cfg}
	_, err := sx.expandPrompts(ctx)
	var ce *cmdutil.Error
	if !errors.As(err, &ce) || ce.Code != cmdutil.ExitUsage || strings.Contains(ce.Hint, "above") || out.Len() != 0 || errOut.Len() != 0 {
		t.Fatalf("no match: %v %+v stdout %q stderr %q", err, ce, out, errOut)
	}
	// No prompts at all: say where they are configured.
	e = newEnv(t, "")
	o, _, _ = e.shell(1, "/")
	sx = &sessionTurn{opts: o, cfg: e.cfg}
	if _, err := sx.expandPrompts(ctx); !errors.As(err, &ce) || !strings.Contains(ce.Hint, "[user_prompts]") {
		t.Fatalf("no prompts: %v", err)
	}
}

func TestIdleSessionPromptsOnlyOnATerminal(t *testing.T) {
	e := newEnv(t, "[session]\nidle_timeout_minutes = 10\n")
	ctx := context.Background()
	s := &store.Session{Name: "old"}
	e.st.CreateSession(ctx, s)
	later := func() time.Time { return time.Now().Add(time.Hour) }
	// Not a terminal: no prompt, the session continues.
	o, _, _ := e.shell(3, "hi")
	o.ResumeSession = "old"
	beginSession(ctx, o, e.cfg)
	o, _, errOut := e.shell(3, "hi")
	o.Now = later
	sx, _, err := beginSession(ctx, o, e.cfg)
	if err != nil || sx.sess == nil || strings.Contains(errOut.String(), "idle") {
		t.Fatalf("non-tty: %v %q", err, errOut)
	}
	for _, tc := range []struct {
		answer string
		check  func(sx *sessionTurn) bool
	}{
		{"o\n", func(sx *sessionTurn) bool { return sx.sess == nil }},
		{"\n", func(sx *sessionTurn) bool { return sx.sess != nil && sx.sess.ID == s.ID }},
		{"n\n", func(sx *sessionTurn) bool { return sx.sess != nil && sx.sess.ID != s.ID }},
	} {
		o, _, errOut := e.shell(3, "hi")
		o.Now = later
		o.IO.SetTTY(true, true, true)
		o.IO.In.(*bytes.Buffer).WriteString(tc.answer)
		sx, _, err := beginSession(ctx, o, e.cfg)
		if err != nil || !strings.Contains(errOut.String(), "idle for") || !tc.check(sx) {
			t.Errorf("answer %q: %v %q %+v", tc.answer, err, errOut, sx.sess)
		}
		// Re-bind the old session for the next case.
		if b := sx.binding; b != nil {
			b.Set(s.ID)
		}
	}
}

func TestAfterWritesReportAndWarnsWithoutClipboard(t *testing.T) {
	e := newEnv(t, "")
	t.Setenv("PATH", t.TempDir()) // no clipboard tools
	o, _, errOut := e.shell(1, "what", "is", "tcp")
	o.OpenReport, o.CopyClipboard = true, true
	sx := &sessionTurn{opts: o, cfg: e.cfg, st: e.st}
	if err := sx.after(context.Background(), &turn.Result{Answer: "# TCP\n\nA protocol.", HistoryID: 7}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.cfg.Paths.DataDir, "archive", "asky-7.html")
	page, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(page), "<h1>TCP</h1>") {
		t.Fatalf("report: %v %q", err, page)
	}
	if !strings.Contains(errOut.String(), "report: "+path) || !strings.Contains(errOut.String(), "warning: could not copy the answer to the clipboard") ||
		!strings.Contains(errOut.String(), "could not open the report: no program to open it was found") {
		t.Fatalf("stderr %q", errOut)
	}
}

func bindShell(e *env, ppid int, id int64) {
	if err := sess.NewBinding(e.getenv, ppid).Set(id); err != nil {
		e.t.Fatal(err)
	}
}
