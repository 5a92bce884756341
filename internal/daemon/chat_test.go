package daemon

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/turn"
)

func TestSplitPrefersNewlineThenSpaceThenHard(t *testing.T) {
	for _, tc := range []struct {
		text            string
		limit, maxBytes int
		want            []string
	}{
		{"short", 10, 0, []string{"short"}},
		{"aaaa bbbb\ncccc dddd", 12, 0, []string{"aaaa bbbb", "cccc dddd"}},
		{"aaaa bbbb cccc", 11, 0, []string{"aaaa bbbb", "cccc"}},
		{"abcdefghij", 4, 0, []string{"abcd", "efgh", "ij"}},
		// response_chunk_chars counts characters, as the original's len().
		{"ééééé", 4, 0, []string{"éééé", "é"}},
		{"привет мир", 6, 0, []string{"привет", "мир"}},
		// The byte cap (the server's stanza limit) still holds, never
		// inside a rune.
		{"ééééé", 4, 5, []string{"éé", "éé", "é"}},
		{"abcdef", 0, 4, []string{"abcd", "ef"}},
		{"", 5, 0, []string{""}},
	} {
		got := Split(tc.text, tc.limit, tc.maxBytes, 0)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Split(%q, %d, %d) = %q, want %q", tc.text, tc.limit, tc.maxBytes, got, tc.want)
		}
	}
}

func TestLooksLikeCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"-H": true, "/session new": true, `\news today`: true, "history list": true,
		"what is -H?": false, "hello": false, "/sessions are nice": false,
		// memory, corpus and prompts lead a command only before a verb.
		"memory list": true, "corpus query x": true, "prompts list": true, "memory clear": true,
		"memory of my grandmother": false, "corpus callosum?": false, "prompts for a story": false, "memory": false,
	} {
		if got := LooksLikeCommand(text); got != want {
			t.Errorf("LooksLikeCommand(%q) = %v", text, got)
		}
	}
}

// recorder is a ChatOutput that records what it was given.
type recorder struct {
	mu     sync.Mutex
	status []string
	final  string
	failed bool
	done   chan struct{}
}

func newRecorder() *recorder { return &recorder{done: make(chan struct{})} }

func (r *recorder) Status(_ context.Context, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = append(r.status, s)
}

func (r *recorder) Final(_ context.Context, s string, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.final, r.failed = s, failed
	close(r.done)
}

type cmdFunc func(ctx context.Context, conv, text string) (CommandResult, error)

func (f cmdFunc) Command(ctx context.Context, conv, text string) (CommandResult, error) {
	return f(ctx, conv, text)
}

func TestChatRouting(t *testing.T) {
	g := newGateRunner()
	close(g.gate)
	c := &Chat{Service: NewService(g, 0), Commands: cmdFunc(func(_ context.Context, conv, text string) (CommandResult, error) {
		if strings.HasPrefix(text, `\`) {
			return CommandResult{Question: "expanded " + text[1:]}, nil
		}
		return CommandResult{Handled: true, Reply: "ran " + text + " in " + conv}, nil
	})}
	run := func(text string) *recorder {
		r := newRecorder()
		c.Handle(context.Background(), ChatMessage{Conversation: "xmpp:a@b", Text: text}, r)
		return r
	}
	if r := run("/session new"); r.final != "ran /session new in xmpp:a@b" || r.failed || len(r.status) != 0 {
		t.Fatalf("%+v", r)
	}
	// [xmpp] command_prefix marks a command as /asky does.
	c.CommandPrefix = "!a"
	if r := run("!a history list"); r.final != "ran /asky history list in xmpp:a@b" {
		t.Fatalf("command_prefix: %+v", r)
	}
	// After the prefix, words that are no command are a question, as
	// `asky what is…` is in the shell.
	for _, text := range []string{"/asky what is go?", "!a what is go?", "/ASKY   what is go?"} {
		if r := run(text); r.final != "answer to what is go?" {
			t.Fatalf("%q: %+v", text, r)
		}
	}
	if r := run("/asky"); r.final != "ran /asky in xmpp:a@b" {
		t.Fatalf("bare /asky: %+v", r)
	}
	if r := run("/asky -L why"); r.final != "ran /asky -L why in xmpp:a@b" {
		t.Fatalf("/asky flags: %+v", r)
	}
	if r := run("transcript list 5"); !r.failed || r.final != TranscriptsUnsupported {
		t.Fatalf("transcript: %+v", r)
	}
	if r := run("!about this"); r.final != "answer to !about this" {
		t.Fatalf("a longer word is not the prefix: %+v", r)
	}
	if r := run(`\news`); r.final != "answer to expanded news" {
		t.Fatalf("preset: %+v", r)
	}
	if r := run("what?"); r.final != "answer to what?" || len(r.status) == 0 {
		t.Fatalf("question: %+v", r)
	}
	if r := run(strings.Repeat("x", MaxChatMessage+1)); !r.failed || !strings.Contains(r.final, "too long") {
		t.Fatalf("long: %+v", r)
	}
	for text, want := range map[string]string{
		"```toml\n[general]\n```":                          "sets nothing",
		"```toml\ndefault_model = \n```":                   "bad TOML",
		"```toml\n[general]\nmax_turns = 3\n```":           "only default_model, summarization_model and [user_prompts]",
		"```toml\nsummarization_model = 2\n```":            "summarization_model must be a model alias",
		"```toml\nuser_prompts = \"x\"\n```":               "user_prompts must be a table",
		"```toml\n[user_prompts]\nr = \"file://~/x\"\n```": "file:// prompts cannot be set over chat",
		"```toml\n[user_prompts]\n\"a b\" = \"x\"\n```":    "not a prompt name",
		"```toml\n[user_prompts]\nr = \"\"\n```":           "must be a non-empty string",
		"```toml\ndefault_model = \"fast\"\n":              "not closed",
		"```toml\n[general]\ndefault_model = 1\n```":       "model alias",
	} {
		if r := run(text); !r.failed || !strings.Contains(r.final, want) {
			t.Fatalf("%q: %+v", text, r)
		}
	}
	if r := run("```toml\n[general]\ndefault_model = \"fast\"\n```"); r.failed || !strings.Contains(r.final, `"fast"`) {
		t.Fatalf("override: %+v", r)
	}
	var model string
	c.Service = NewService(runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
		model = a.Model
		return &turn.Result{Answer: "ok"}, nil
	}), 0)
	if run("which model?"); model != "fast" {
		t.Fatalf("the override did not reach the ask: %q", model)
	}
}

func TestChatBusyAndThrottledStatus(t *testing.T) {
	now := time.Unix(0, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	events := make(chan func(turn.Event), 1)
	release := make(chan struct{})
	r := runnerFn(func(ctx context.Context, a Ask) (*turn.Result, error) {
		events <- a.Events
		<-release
		return &turn.Result{Answer: "ok"}, nil
	})
	c := &Chat{Service: NewService(r, 1), Now: clock}
	first := newRecorder()
	go c.Handle(context.Background(), ChatMessage{Conversation: "c", Text: "q1"}, first)
	emit := <-events
	emit(turn.Event{Kind: turn.EventText, Text: "a"}) // within 2 s: suppressed
	mu.Lock()
	now = now.Add(3 * time.Second)
	mu.Unlock()
	emit(turn.Event{Kind: turn.EventText, Text: "b"})
	second := newRecorder()
	go c.Handle(context.Background(), ChatMessage{Conversation: "c", Text: "q2"}, second)
	waitUntil(t, func() bool { return c.Service.Waiting("c") == 2 })
	third := newRecorder()
	c.Handle(context.Background(), ChatMessage{Conversation: "c", Text: "q3"}, third)
	if !third.failed || !strings.HasPrefix(third.final, "Busy") {
		t.Fatalf("third: %+v", third)
	}
	close(release)
	<-events
	<-first.done
	<-second.done
	if len(first.status) != 2 || !strings.Contains(first.status[1], "2 chars") {
		t.Fatalf("status lines %q", first.status)
	}
	if !strings.Contains(second.status[0], "Queued") {
		t.Fatalf("second status %q", second.status)
	}
}

type runnerFn func(ctx context.Context, a Ask) (*turn.Result, error)

func (f runnerFn) Run(ctx context.Context, a Ask) (*turn.Result, error) { return f(ctx, a) }

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBoardDepthAndStates(t *testing.T) {
	g := newGateRunner()
	svc := NewService(g, 0)
	b := NewBoard(nil)
	b.Register("xmpp", "xmpp:", "xmpp-room:")
	b.Register("telegram", "telegram:")
	b.Set("xmpp", StateConnected, nil)
	b.Set("telegram", StateReconnecting, context.DeadlineExceeded)
	go svc.Ask(context.Background(), Ask{Conversation: "xmpp:a@b", Question: "q"})
	waitEntered(t, g, "q")
	snap := b.Snapshot(svc)
	if len(snap) != 2 || snap[1].Name != "xmpp" || snap[1].QueueDepth != 1 || snap[0].QueueDepth != 0 || snap[0].LastError == "" {
		t.Fatalf("%+v", snap)
	}
	path := t.TempDir() + "/s.json"
	if err := SaveStates(path, snap); err != nil {
		t.Fatal(err)
	}
	back, err := LoadStates(path)
	if err != nil || len(back) != 2 || back[1].State != StateConnected {
		t.Fatalf("%+v %v", back, err)
	}
	close(g.gate)
}

func TestDispatcherKeepsOrderPerKeyAndBounds(t *testing.T) {
	var d Dispatcher
	d.Backlog = 2
	var mu sync.Mutex
	var got []int
	block := make(chan struct{})
	other := make(chan struct{})
	d.Go("a", func() { <-block })
	for i := range 2 {
		if !d.Go("a", func() { mu.Lock(); got = append(got, i); mu.Unlock() }) {
			t.Fatalf("job %d refused", i)
		}
	}
	if d.Go("a", func() {}) {
		t.Fatal("backlog not bounded")
	}
	d.Go("b", func() { close(other) }) // not behind a's blocked job
	select {
	case <-other:
	case <-time.After(5 * time.Second):
		t.Fatal("conversations serialized")
	}
	close(block)
	d.Wait()
	if len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("order %v", got)
	}
}

// Inline TOML blocks set default_model, summarization_model and
// [user_prompts] for their chat only; a later block wins key by key, and
// a bad block changes nothing.
func TestChatOverridesMergeAndReachTheAsk(t *testing.T) {
	var got Ask
	c := &Chat{Service: NewService(runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
		got = a
		return &turn.Result{Answer: "ok"}, nil
	}), 0)}
	run := func(conv, text string) *recorder {
		r := newRecorder()
		c.Handle(context.Background(), ChatMessage{Conversation: conv, Text: text}, r)
		return r
	}
	for _, block := range []string{
		"```toml\ndefault_model = \"fast\"\nsummarization_model = \"cheap\"\n[user_prompts]\nr = \"Review this:\"\nt = \"Translate:\"\n```",
		"```toml\n[general]\ndefault_model = \"slow\"\n[user_prompts]\nr = \"Review carefully:\"\n```",
	} {
		if r := run("telegram:1", block); r.failed {
			t.Fatalf("%q: %+v", block, r)
		}
	}
	if r := run("telegram:1", "```toml\ndefault_model = \"x\"\nbogus = 1\n```"); !r.failed {
		t.Fatalf("bad block accepted: %+v", r)
	}
	r := run("telegram:1", "```toml\nsummarization_model = \"tiny\"\n```")
	if r.failed || r.final != `Override set for this chat's session: summarization_model = "tiny" (/session new starts without it).` {
		t.Fatalf("%+v", r)
	}
	run("telegram:1", "/r main.go")
	want := map[string]string{"r": "Review carefully:", "t": "Translate:"}
	if got.Model != "slow" || got.SummarizationModel != "tiny" || !maps.Equal(got.Prompts, want) || got.Question != "/r main.go" {
		t.Fatalf("ask %+v", got)
	}
	run("telegram:2", "other chat")
	if got.Model != "" || got.SummarizationModel != "" || got.Prompts != nil {
		t.Fatalf("the override leaked into another chat: %+v", got)
	}
	// The overrides belong to the chat's session: a child keeps them, a
	// new session (or a switch) starts without.
	c.Commands = cmdFunc(func(_ context.Context, _, text string) (CommandResult, error) {
		return CommandResult{Handled: true, Reply: "ok", NewSession: text == "/session new"}, nil
	})
	run("telegram:1", "/session child")
	if run("telegram:1", "after child"); got.Model != "slow" {
		t.Fatalf("child dropped the overrides: %+v", got)
	}
	run("telegram:1", "/session new")
	if run("telegram:1", "after new"); got.Model != "" || got.Prompts != nil {
		t.Fatalf("new session kept the overrides: %+v", got)
	}
}

// The note on a cut answer names the key the user has to raise: a model
// configured with max_completion_tokens (OpenAI's reasoning models refuse
// max_tokens) is told that one, as the CLI's warning does.
func TestTruncatedNoteNamesTheModelsLimitKey(t *testing.T) {
	params := map[string]map[string]any{"o3": {"max_completion_tokens": 100}, "gpt": {"temperature": 0.2}}
	for model, key := range map[string]string{"o3": "max_completion_tokens", "gpt": "max_tokens", "unknown": "max_tokens"} {
		r := runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
			return &turn.Result{Answer: "half", Model: model, Truncated: true}, nil
		})
		c := &Chat{Service: NewService(r, 0), ModelParameters: func(alias string) map[string]any { return params[alias] }}
		rec := newRecorder()
		c.Handle(context.Background(), ChatMessage{Conversation: "x", Text: "q"}, rec)
		want := "half\n\n⚠️ The answer was cut at the model's output limit; set a higher " + key + " in [models." + model + "] parameters."
		if rec.final != want {
			t.Errorf("%s: %q, want %q", model, rec.final, want)
		}
	}
}
