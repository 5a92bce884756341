package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/MakeNowJust/heredoc"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

func TestNewCmdList(t *testing.T) {
	tests := []struct {
		args      []string
		wantLimit int
		wantJSON  bool
		wantCode  int
	}{
		{args: nil, wantLimit: 10},
		{args: []string{"20"}, wantLimit: 20},
		{args: []string{"5", "--json"}, wantLimit: 5, wantJSON: true},
		{args: []string{"0"}, wantCode: 2},
		{args: []string{"ten"}, wantCode: 2},
		{args: []string{"1", "2"}, wantCode: 2},
		{args: []string{"-n", "3"}, wantLimit: 3},
		{args: []string{"--limit", "30", "--json"}, wantLimit: 30, wantJSON: true},
		{args: []string{"--limit=7", "7"}, wantLimit: 7},
		{args: []string{"-n", "3", "4"}, wantCode: 2},
		{args: []string{"-n", "0"}, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			var got *ListOptions
			cmd := NewCmdList(&cmdutil.Factory{IO: io}, func(_ context.Context, o *ListOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.ErrOut)
			cmd.SetErr(io.ErrOut)
			err := cmd.Execute()
			if tt.wantCode != 0 {
				if err == nil || exitCode(err) != tt.wantCode {
					t.Fatalf("err = %v (code %d), want code %d", err, exitCode(err), tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Limit != tt.wantLimit || got.JSON != tt.wantJSON {
				t.Fatalf("opts = %+v", got)
			}
		})
	}
}

func seedList(t *testing.T, st *store.Store) {
	t.Helper()
	save(t, st, 3*24*time.Hour, store.Turn{Model: "gpt-4o-mini", Query: "what is the difference\nbetween TCP and UDP", Answer: "# TCP vs UDP\n\nTCP is reliable."})
	save(t, st, 2*time.Hour, store.Turn{Model: "sonnet", Query: "rate limited question", Status: store.StatusError, Error: "429"})
	save(t, st, 5*time.Minute, store.Turn{Model: "sonnet", Query: "tab\there " + strings.Repeat("long ", 40), Answer: "partial", Status: store.StatusInterrupted})
}

func TestListRunPipeTSV(t *testing.T) {
	st := newStore(t)
	seedList(t, st)
	io, _, out, errOut := iostreams.Test()
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	want := "3\t2026-11-22T11:55:00Z\tsonnet\t\tinterrupted\ttab here " + strings.TrimSpace(strings.Repeat("long ", 40)) + "\n" +
		"2\t2026-11-22T10:00:00Z\tsonnet\t\terror\trate limited question\n"
	if out.String() != want {
		t.Fatalf("stdout:\n%q\nwant\n%q", out.String(), want)
	}
	if errOut.Len() != 0 {
		t.Fatalf("stderr: %q", errOut.String())
	}
}

func TestListRunTTY(t *testing.T) {
	st := newStore(t)
	seedList(t, st)
	io, _, out, _ := iostreams.Test()
	io.SetTTY(false, true, true)
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	want := heredoc.Doc(`
		ID  WHEN    MODEL        QUESTION
		 3  5m ago  sonnet       [interrupted] tab here long long long long long long l…
		 2  2h ago  sonnet       [error] rate limited question
		 1  3d ago  gpt-4o-mini  what is the difference between TCP and UDP
	`)
	if out.String() != want {
		t.Fatalf("stdout:\n%s\nwant\n%s", out.String(), want)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line is %d cells, wider than the terminal: %q", w, l)
		}
	}
}

func TestListRunTTYColorAndSessions(t *testing.T) {
	st := newStore(t)
	var sid int64
	if err := st.DB().QueryRow(`INSERT INTO sessions(name, created_at, last_used_at) VALUES ('研究', 'x', 'x') RETURNING id`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	save(t, st, time.Minute, store.Turn{SessionID: sid, Model: "m", Query: "q\x1b]52;c;ZXZpbA==\x07uery"})
	io, _, out, _ := iostreams.Test()
	io.SetTTY(false, true, true)
	io.SetColorEnabled(true)
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "\x1b[36m 1\x1b[0m") || !strings.Contains(s, "研究") || !strings.Contains(s, "SESSION") {
		t.Fatalf("colored table missing parts: %q", s)
	}
	if strings.Contains(s, "\x1b]") || strings.Contains(s, "\x07") {
		t.Fatalf("control sequence from the stored query reached the terminal: %q", s)
	}
}

func TestListRunJSON(t *testing.T) {
	st := newStore(t)
	seedList(t, st)
	io, _, out, _ := iostreams.Test()
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 10, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d entries", len(got))
	}
	first := got[2]
	for _, k := range []string{"id", "created_at", "model", "session_id", "session_name", "query", "answer_preview", "status"} {
		if _, ok := first[k]; !ok {
			t.Errorf("key %q missing in %v", k, first)
		}
	}
	if first["session_id"] != nil {
		t.Errorf("a turn outside a session has session_id %v, want null", first["session_id"])
	}
	if first["answer_preview"] != "# TCP vs UDP TCP is reliable." || first["status"] != "complete" || first["id"] != float64(1) {
		t.Fatalf("entry = %v", first)
	}
}

func TestListRunEmpty(t *testing.T) {
	st := newStore(t)
	io, _, out, errOut := iostreams.Test()
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "no history yet") {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	io, _, out, _ = iostreams.Test()
	if err := listRun(context.Background(), &ListOptions{IO: io, Store: storeFunc(st), Now: fixedNow, Limit: 10, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "[]\n" {
		t.Fatalf("empty --json = %q, want []", out)
	}
}

func TestRelativeTime(t *testing.T) {
	for ago, want := range map[time.Duration]string{
		10 * time.Second: "just now", 59 * time.Minute: "59m ago", 23 * time.Hour: "23h ago", 6 * 24 * time.Hour: "6d ago",
	} {
		if got := relativeTime(testNow.Add(-ago), testNow); got != want {
			t.Errorf("relativeTime(-%v) = %q, want %q", ago, got, want)
		}
	}
	if got := relativeTime(time.Date(2024, 1, 2, 0, 0, 0, 0, time.Local), testNow); got != "2024-01-02" {
		t.Errorf("old date = %q", got)
	}
}
