package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

// finalOut is a ChatOutput keeping the final text.
type finalOut struct{ text string }

func (o *finalOut) Status(context.Context, string) {}
func (o *finalOut) Final(_ context.Context, text string, _ bool) {
	o.text = text
}

// /session new, child, clear and ID|NAME over chat: per chat, kept in the
// store (the runner's ChatSession follows them), clear asks first and
// only empties the chat's own sessions.
func TestRemoteSessionCommands(t *testing.T) {
	f, _, _, _ := testFactory(t, nil)
	r := remoteCommands{f: f}
	ctx := context.Background()
	st, err := f.Store()
	if err != nil {
		t.Fatal(err)
	}
	const conv = "xmpp:a@b"
	cmd := func(text string) daemon.CommandResult {
		t.Helper()
		res, err := r.Command(ctx, conv, text)
		if err != nil || !res.Handled {
			t.Fatalf("%s: %+v %v", text, res, err)
		}
		return res
	}
	current := func(conv string) *store.Session {
		t.Helper()
		s, err := compose.ChatSession(ctx, st, conv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	addTurn := func(s *store.Session, q string) {
		t.Helper()
		if _, err := st.SaveTurn(ctx, &store.Turn{SessionID: s.ID, Model: "m", Query: q, Answer: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	home := current(conv)
	addTurn(home, "first question")
	ptr := "/docs/a.md,web"
	home.Defaults.Research = &ptr
	if err := st.UpdateSessionSettings(ctx, home); err != nil {
		t.Fatal(err)
	}

	res := cmd("/session new")
	fresh := current(conv)
	if fresh.ID == home.ID || !fresh.Defaults.PendingAutoName || fresh.Defaults.Research != nil || !res.NewSession ||
		!strings.Contains(res.Reply, "Started session") || !strings.Contains(res.Reply, "/session 1 returns") {
		t.Fatalf("/session new: %+v, now %+v", res, fresh)
	}
	if other := current("telegram:7"); other.Name != "telegram:7" {
		t.Fatalf("another chat moved too: %+v", other)
	}
	if res := cmd("/session clear"); res.Confirm != nil || !strings.Contains(res.Reply, "already empty") {
		t.Fatalf("clear empty: %+v", res)
	}
	addTurn(fresh, "q1")
	addTurn(fresh, "q2")
	res = cmd("/session clear")
	if res.Confirm == nil || !strings.Contains(res.Reply, "2 turns will be deleted") {
		t.Fatalf("clear: %+v", res)
	}
	out := &finalOut{}
	res.Confirm.Yes(ctx, out)
	if !strings.Contains(out.text, "2 turns deleted") || current(conv).Turns != 0 || current(conv).ID != fresh.ID {
		t.Fatalf("cleared: %q %+v", out.text, current(conv))
	}
	if h, _ := st.GetSession(ctx, home.ID); h.Turns != 1 {
		t.Fatalf("the home session lost its turns: %+v", h)
	}

	res = cmd("/session 1")
	if current(conv).ID != home.ID || !res.NewSession || !strings.Contains(res.Reply, "now continues session 1 (xmpp:a@b), 1 turn") {
		t.Fatalf("switch back: %+v", res)
	}
	res = cmd("/session child work")
	child := current(conv)
	if child.Name != "work" || child.Defaults.Research == nil || *child.Defaults.Research != ptr || child.Defaults.PendingAutoName || res.NewSession || child.Turns != 0 {
		t.Fatalf("child: %+v %+v", res, child)
	}
	if _, err := r.Command(ctx, conv, "/session new work"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("taken name: %v", err)
	}

	// The owner's shell session may be continued from chat, not cleared.
	shell := &store.Session{Name: "owner-notes"}
	if err := st.CreateSession(ctx, shell); err != nil {
		t.Fatal(err)
	}
	addTurn(shell, "private")
	cmd("/session owner")
	if current(conv).ID != shell.ID {
		t.Fatalf("switch by part of a name: %+v", current(conv))
	}
	if _, err := r.Command(ctx, conv, "/session clear"); !errors.Is(err, ErrRemotePolicy) {
		t.Fatalf("clear a session the chat did not start: %v", err)
	}
	if _, err := r.Command(ctx, conv, "/session nope"); err == nil || !strings.Contains(err.Error(), `no session matches "nope"`) {
		t.Fatalf("unknown: %v", err)
	}
	// A deleted bound session falls back to the chat's default.
	if _, err := st.DeleteSessions(ctx, []int64{shell.ID}); err != nil {
		t.Fatal(err)
	}
	if current(conv).ID != home.ID {
		t.Fatalf("after delete: %+v", current(conv))
	}
}

// askRecorder is a daemon.Runner that answers at once and keeps the last
// ask.
type askRecorder struct{ last daemon.Ask }

func (r *askRecorder) Run(_ context.Context, a daemon.Ask) (*turn.Result, error) {
	r.last = a
	return &turn.Result{Answer: "ok"}, nil
}

// A chat's inline overrides follow its /session commands: a new session
// starts without them, a child has a copy, switching back restores them,
// also after a daemon restart (the store closed and opened again).
func TestChatOverridesFollowSessionCommands(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"ASKY_HOME": home, "HOME": home}
	ctx := context.Background()
	const conv = "telegram:5"
	var rec *askRecorder
	var chat *daemon.Chat
	start := func() func() {
		f, _, _, _ := testFactory(t, env)
		st, err := f.Store()
		if err != nil {
			t.Fatal(err)
		}
		rec = &askRecorder{}
		chat = &daemon.Chat{Service: daemon.NewService(rec, 0), Commands: remoteCommands{f: f},
			State: daemon.StoreState{Store: st, Session: compose.ChatSession}}
		return f.Close
	}
	say := func(text string) string {
		t.Helper()
		out := &finalOut{}
		chat.Handle(ctx, daemon.ChatMessage{Conversation: conv, Text: text}, out)
		if strings.HasPrefix(out.text, "Error") {
			t.Fatalf("%s: %s", text, out.text)
		}
		return out.text
	}
	model := func() string {
		t.Helper()
		say("which model?")
		return rec.last.Model
	}
	stop := start()
	say("```toml\ndefault_model = \"fast\"\n```")
	if m := model(); m != "fast" {
		t.Fatalf("override not applied: %q", m)
	}
	say("/session new")
	if m := model(); m != "" {
		t.Fatalf("/session new kept the override: %q", m)
	}
	say("```toml\ndefault_model = \"slow\"\n```")
	say("/session 1")
	if m := model(); m != "fast" {
		t.Fatalf("/session 1 did not restore the override: %q", m)
	}
	if reply := say("/session child kid"); !strings.Contains(reply, "chat overrides") {
		t.Fatalf("child: %s", reply)
	}
	if m := model(); m != "fast" {
		t.Fatalf("the child lacks the override: %q", m)
	}
	stop()

	defer start()()
	if m := model(); m != "fast" {
		t.Fatalf("after a restart, the child's override: %q", m)
	}
	say("/session 2")
	if m := model(); m != "slow" {
		t.Fatalf("after a restart, /session 2: %q", m)
	}
}
