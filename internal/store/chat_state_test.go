package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A chat's open question is kept per conversation across a reopen, a
// newer one replaces it, taking it removes it, and pruning removes only
// the old ones.
func TestChatConfirmsOutliveAReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asky.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for conv, c := range map[string]ChatConfirm{
		"telegram:1": {What: "the transcript", Question: "first", No: "dropped", Created: t0},
		"xmpp:a@b":   {What: "the clear", No: "kept", Created: t0.Add(-time.Hour)},
	} {
		if err := st.SaveChatConfirm(ctx, conv, c); err != nil {
			t.Fatal(err)
		}
	}
	later := ChatConfirm{What: "the transcript", Question: "second", No: "dropped", Created: t0.Add(500 * time.Millisecond)}
	if err := st.SaveChatConfirm(ctx, "telegram:1", later); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if c, ok, err := st.ChatConfirm(ctx, "telegram:1"); err != nil || !ok || c != later {
		t.Fatalf("peek = %+v %v %v, want %+v", c, ok, err, later)
	}
	// Pruning compares times: 03:04:05.5 is not before 03:04:05.2.
	if n, err := st.PruneChatConfirms(ctx, t0.Add(200*time.Millisecond)); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want the hour-old one only", n, err)
	}
	if _, ok, _ := st.ChatConfirm(ctx, "xmpp:a@b"); ok {
		t.Fatal("the old question survived pruning")
	}
	if c, ok, err := st.TakeChatConfirm(ctx, "telegram:1"); err != nil || !ok || c.Question != "second" {
		t.Fatalf("take = %+v %v %v", c, ok, err)
	}
	if _, ok, err := st.TakeChatConfirm(ctx, "telegram:1"); ok || err != nil {
		t.Fatalf("taken twice: %v %v", ok, err)
	}
}

// Chat overrides belong to a session: a child gets a copy, a copy from a
// session without overrides leaves the target's, and deleting the session
// deletes them.
func TestChatOverridesBySession(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	var ids []int64
	for _, name := range []string{"a", "b", "c"} {
		s := &Session{Name: name}
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if got, err := st.ChatOverride(ctx, ids[0]); got != "" || err != nil {
		t.Fatalf("fresh session: %q %v", got, err)
	}
	if err := st.SetChatOverride(ctx, ids[0], `{"default_model":"x"}`); err != nil {
		t.Fatal(err)
	}
	if err := st.SetChatOverride(ctx, ids[0], `{"default_model":"y"}`); err != nil {
		t.Fatal(err)
	}
	if err := st.SetChatOverride(ctx, ids[2], `{"default_model":"z"}`); err != nil {
		t.Fatal(err)
	}
	if err := st.CopyChatOverride(ctx, ids[0], ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := st.CopyChatOverride(ctx, 9999, ids[2]); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`{"default_model":"y"}`, `{"default_model":"y"}`, `{"default_model":"z"}`} {
		if got, err := st.ChatOverride(ctx, ids[i]); got != want || err != nil {
			t.Fatalf("session %d: %q %v, want %q", ids[i], got, err, want)
		}
	}
	if _, err := st.DeleteSessions(ctx, ids[:1]); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ChatOverride(ctx, ids[0]); got != "" {
		t.Fatalf("overrides outlived their session: %q", got)
	}
}
