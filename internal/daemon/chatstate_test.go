package daemon

import (
	"context"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn/compose"
)

// storeChat is a voiceChat whose state lives in the SQLite store at path,
// with its clock at now and a /session command over the store. Closing
// its store and making another on the same path is a daemon restart.
func storeChat(t *testing.T, path string, now time.Time) (*voiceChat, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	v := newVoiceChat(t)
	v.now = now
	v.State = StoreState{Store: st, Session: compose.ChatSession}
	v.Commands = sessionCommands(st)
	return v, st
}

// sessionCommands does `/session new` and `/session ID` the way the
// daemon's command handler does (bind the chat to the session), and
// offers a clear that asks first.
func sessionCommands(st *store.Store) CommandHandler {
	return cmdFunc(func(ctx context.Context, conv, text string) (CommandResult, error) {
		arg := strings.TrimSpace(strings.TrimPrefix(text, "/session"))
		var id int64
		switch arg {
		case "clear":
			return CommandResult{Handled: true, Reply: "Clear? Reply yes or no.", Confirm: &Confirmation{What: "the clear", No: "Kept.",
				Yes: func(ctx context.Context, out ChatOutput) { out.Final(ctx, "Cleared.", false) }}}, nil
		case "new":
			s := &store.Session{}
			if err := st.CreateSession(ctx, s); err != nil {
				return CommandResult{}, err
			}
			id = s.ID
		default:
			n, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				return CommandResult{}, err
			}
			id = n
		}
		if err := st.BindChatSession(ctx, conv, id); err != nil {
			return CommandResult{}, err
		}
		return CommandResult{Handled: true, Reply: "now in session " + strconv.FormatInt(id, 10), NewSession: true}, nil
	})
}

// A voice transcript waiting for its yes survives a daemon restart: the
// yes after the restart asks it; a newer voice message after a restart
// still replaces it; a no after a restart drops it; a yes past the time
// limit asks nothing.
func TestVoiceTranscriptSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v, st := storeChat(t, path, t0)
	if r := v.voice("telegram:1", "what time is it"); !strings.Contains(r.final, "Reply yes") {
		t.Fatalf("prompt %q", r.final)
	}
	v.voice("xmpp:a@b", "first try")
	st.Close()

	v, st = storeChat(t, path, t0.Add(time.Minute))
	if !v.AwaitsAnswer(context.Background(), "telegram:1", "yes") {
		t.Fatal("after the restart the yes is not awaited")
	}
	if r := v.say("telegram:1", "yes"); r.failed || r.final != "answer to what time is it" || v.questions() != "telegram:1: what time is it" {
		t.Fatalf("yes after restart: %q, asked %q", r.final, v.questions())
	}
	if r := v.voice("xmpp:a@b", "second try"); !strings.Contains(r.final, "replaces the earlier transcript") {
		t.Fatalf("replace after restart: %q", r.final)
	}
	st.Close()

	v, st = storeChat(t, path, t0.Add(2*time.Minute))
	if r := v.say("xmpp:a@b", "ok"); r.final != "answer to second try" || strings.Contains(v.questions(), "first") {
		t.Fatalf("replaced: %q, asked %q", r.final, v.questions())
	}
	v.voice("xmpp:a@b", "drop me")
	st.Close()

	v, st = storeChat(t, path, t0.Add(3*time.Minute))
	if r := v.say("xmpp:a@b", "no"); !strings.Contains(r.final, "dropped the transcript") || v.questions() != "" {
		t.Fatalf("no after restart: %q, asked %q", r.final, v.questions())
	}
	v.voice("telegram:1", "late question")
	st.Close()

	v, st = storeChat(t, path, t0.Add(3*time.Minute+DefaultConfirmTTL+time.Second))
	if r := v.say("telegram:1", "yes"); !r.failed || !strings.Contains(r.final, "expired (after 10 minutes") || v.questions() != "" {
		t.Fatalf("expired after restart: %q, asked %q", r.final, v.questions())
	}
	// The expired question is used up: the next yes is a message.
	if v.say("telegram:1", "yes"); v.questions() != "telegram:1: yes" {
		t.Fatalf("second yes: asked %q", v.questions())
	}
}

// Questions long past their time limit are pruned from the store, of
// every chat, when a chat asks a new one; a command's question cannot
// run its action after a restart, and its yes says so.
func TestOldQuestionsPrunedAndActionsNotRunAfterARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v, st := storeChat(t, path, t0)
	v.voice("telegram:1", "forgotten")
	v.mu.Lock()
	v.now = t0.Add(DefaultConfirmTTL + expiredNotice + time.Second)
	v.mu.Unlock()
	ctx := context.Background()
	if _, ok, _ := st.ChatConfirm(ctx, "telegram:1"); !ok {
		t.Fatal("the question is gone before anything pruned it")
	}
	v.voice("telegram:2", "fresh")
	if _, ok, _ := st.ChatConfirm(ctx, "telegram:1"); ok {
		t.Fatal("an old question was not pruned")
	}
	if _, ok, _ := st.ChatConfirm(ctx, "telegram:2"); !ok {
		t.Fatal("the new question was not kept")
	}

	if r := v.say("xmpp:a@b", "/session clear"); r.final != "Clear? Reply yes or no." {
		t.Fatalf("clear: %q", r.final)
	}
	st.Close()
	v, _ = storeChat(t, path, t0.Add(DefaultConfirmTTL+expiredNotice+time.Minute))
	if r := v.say("xmpp:a@b", "yes"); !r.failed || !strings.Contains(r.final, "restarted since that question, so nothing was done about the clear") {
		t.Fatalf("action after restart: %q", r.final)
	}
	if r := v.say("xmpp:a@b", "/session clear"); r.final != "Clear? Reply yes or no." {
		t.Fatalf("clear again: %q", r.final)
	}
	if r := v.say("xmpp:a@b", "yes"); r.final != "Cleared." {
		t.Fatalf("clear in the same run: %q", r.final)
	}
}

// Inline overrides follow the session they were set in: `/session new`
// starts without them, `/session ID` brings that session's back, a
// restart keeps them, and another chat continuing the session gets them.
func TestOverridesFollowTheSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v, st := storeChat(t, path, t0)
	last := func() Ask {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.last
	}
	set := func(block string) {
		t.Helper()
		if r := v.say("telegram:1", block); r.failed || !strings.Contains(r.final, "Override set for this chat's session") {
			t.Fatalf("%q: %q", block, r.final)
		}
	}
	set("```toml\ndefault_model = \"fast\"\n[user_prompts]\nr = \"Review:\"\n```")
	set("```toml\nsummarization_model = \"cheap\"\n```")
	v.say("telegram:1", "q1")
	home := last()
	if home.Model != "fast" || home.SummarizationModel != "cheap" || !maps.Equal(home.Prompts, map[string]string{"r": "Review:"}) {
		t.Fatalf("home overrides: %+v", home)
	}
	homeID := sessionOf(t, st, "telegram:1")

	v.say("telegram:1", "/session new")
	if v.say("telegram:1", "q2"); last().Model != "" || last().SummarizationModel != "" || last().Prompts != nil {
		t.Fatalf("new session kept the overrides: %+v", last())
	}
	set("```toml\ndefault_model = \"slow\"\n```")
	newID := sessionOf(t, st, "telegram:1")

	if r := v.say("telegram:1", "/session "+strconv.FormatInt(homeID, 10)); r.failed {
		t.Fatalf("switch back: %q", r.final)
	}
	if v.say("telegram:1", "q3"); last().Model != "fast" || last().SummarizationModel != "cheap" || last().Prompts["r"] != "Review:" {
		t.Fatalf("switching back did not restore the overrides: %+v", last())
	}
	st.Close()

	v, st = storeChat(t, path, t0.Add(time.Hour))
	if v.say("telegram:1", "q4"); last().Model != "fast" || last().SummarizationModel != "cheap" {
		t.Fatalf("after a restart: %+v", last())
	}
	v.say("telegram:1", "/session "+strconv.FormatInt(newID, 10))
	if v.say("telegram:1", "q5"); last().Model != "slow" || last().SummarizationModel != "" {
		t.Fatalf("the other session after a restart: %+v", last())
	}
	// The override is the session's: another chat that continues it uses it.
	v.say("xmpp:a@b", "/session "+strconv.FormatInt(newID, 10))
	if v.say("xmpp:a@b", "q6"); last().Model != "slow" {
		t.Fatalf("another chat in the session: %+v", last())
	}
	if v.say("telegram:2", "q7"); last().Model != "" {
		t.Fatalf("leaked into a chat in its own session: %+v", last())
	}
}

// sessionOf is the id of the session conv continues.
func sessionOf(t *testing.T, st *store.Store, conv string) int64 {
	t.Helper()
	s, err := compose.ChatSession(context.Background(), st, conv)
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}
