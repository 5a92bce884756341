package history

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

func TestNewCmdDelete(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		all, yes bool
	}{
		{args: []string{"3"}},
		{args: []string{"--all"}, all: true},
		{args: []string{"--all", "--yes"}, all: true, yes: true},
		{args: []string{"--all", "-y"}, all: true, yes: true},
		{args: nil, wantCode: 2},
		{args: []string{"--all", "3"}, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			var got *DeleteOptions
			cmd := NewCmdDelete(&cmdutil.Factory{IO: io}, func(_ context.Context, o *DeleteOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.ErrOut)
			cmd.SetErr(io.ErrOut)
			err := cmd.Execute()
			if tt.wantCode != 0 {
				if exitCode(err) != tt.wantCode || got != nil {
					t.Fatalf("err = %v, ran = %v; want exit %d without running", err, got != nil, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.All != tt.all || got.Yes != tt.yes {
				t.Fatalf("opts = %+v", got)
			}
		})
	}
}

func seedN(t *testing.T, st *store.Store, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		save(t, st, time.Duration(n-i)*time.Minute, store.Turn{Query: "q", Answer: "a",
			Messages: []store.Message{{Role: "user", Content: "q"}}, Calls: []store.LLMCall{{Model: "m"}}})
	}
}

func count(t *testing.T, st *store.Store) (turns, msgs, calls int) {
	t.Helper()
	if err := st.DB().QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM messages), (SELECT count(*) FROM llm_calls)`).Scan(&turns, &msgs, &calls); err != nil {
		t.Fatal(err)
	}
	return
}

func TestDeleteRunSelector(t *testing.T) {
	st := newStore(t)
	seedN(t, st, 10)
	io, _, out, errOut := iostreams.Test()
	if err := deleteRun(context.Background(), &DeleteOptions{IO: io, Store: storeFunc(st), Selector: []string{"2-4,~1", "7"}}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "deleted 5 turns: 2-4, 7, 10\n" {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if turns, msgs, calls := count(t, st); turns != 5 || msgs != 5 || calls != 5 {
		t.Fatalf("left %d turns, %d messages, %d calls", turns, msgs, calls)
	}
}

func TestDeleteRunMissingDeletesNothing(t *testing.T) {
	st := newStore(t)
	seedN(t, st, 3)
	io, _, _, _ := iostreams.Test()
	err := deleteRun(context.Background(), &DeleteOptions{IO: io, Store: storeFunc(st), Selector: []string{"1,42"}})
	var ce *cmdutil.Error
	if !errors.As(err, &ce) || ce.Code != 1 || !strings.Contains(ce.Error(), "42") || !strings.Contains(ce.Hint, "nothing was deleted") {
		t.Fatalf("err = %v", err)
	}
	if turns, _, _ := count(t, st); turns != 3 {
		t.Fatalf("%d turns left, want all 3", turns)
	}
}

func TestDeleteAll(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		yes      bool
		input    string
		wantCode int
		wantLeft int
		wantErr  string
	}{
		{name: "pipe without --yes refuses", wantCode: 2, wantLeft: 4},
		{name: "pipe with --yes", yes: true, wantLeft: 0, wantErr: "deleted 4 turns (the whole history)\n"},
		{name: "tty confirmed", tty: true, input: "y\n", wantLeft: 0, wantErr: "[y/N] deleted 4 turns"},
		{name: "tty declined", tty: true, input: "n\n", wantCode: 1, wantLeft: 4, wantErr: "nothing deleted"},
		{name: "tty eof", tty: true, input: "", wantCode: 1, wantLeft: 4, wantErr: "nothing deleted"},
		{name: "tty --yes does not ask", tty: true, yes: true, wantLeft: 0, wantErr: "deleted 4 turns (the whole history)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t)
			seedN(t, st, 4)
			io, in, out, errOut := iostreams.Test()
			io.SetTTY(tt.tty, tt.tty, tt.tty)
			in.WriteString(tt.input)
			err := deleteRun(context.Background(), &DeleteOptions{IO: io, Store: storeFunc(st), All: true, Yes: tt.yes})
			code := exitCode(err)
			if errors.Is(err, cmdutil.ErrSilent) {
				code = 1
			}
			if code != tt.wantCode {
				t.Fatalf("err = %v (exit %d), want exit %d", err, code, tt.wantCode)
			}
			if turns, msgs, calls := count(t, st); turns != tt.wantLeft || msgs != tt.wantLeft || calls != tt.wantLeft {
				t.Fatalf("left %d/%d/%d, want %d", turns, msgs, calls, tt.wantLeft)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) || out.Len() != 0 {
				t.Fatalf("stdout %q stderr %q, want stderr containing %q", out, errOut, tt.wantErr)
			}
		})
	}
}

func TestIDList(t *testing.T) {
	if got := idList([]int64{9, 3, 4, 5, 7}); got != "3-5, 7, 9" {
		t.Fatalf("idList = %q", got)
	}
	var many []int64
	for i := int64(1); i <= 100; i += 2 {
		many = append(many, i)
	}
	if got := idList(many); !strings.HasSuffix(got, "and 30 more") {
		t.Fatalf("idList(50 ids) = %q", got)
	}
}
