package store

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BeginTurn saves the question before the model is asked; SaveTurn then
// completes that same row (one history entry, never two).
func TestBeginTurnThenSaveCompletesTheSameRow(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	tr := &Turn{Query: "what is WAL?", Model: "fake"}
	id, err := s.BeginTurn(ctx, tr)
	if err != nil || id == 0 {
		t.Fatal(id, err)
	}
	got, err := s.GetTurn(ctx, id)
	if err != nil || got.Status != StatusPending || got.Query != "what is WAL?" {
		t.Fatalf("pending row %+v %v", got, err)
	}
	tr.Answer, tr.Status = "# WAL\n\nwrite-ahead log", StatusComplete
	tr.Messages = []Message{{Role: "user", Content: "what is WAL?"}, {Role: "assistant", Content: "…"}}
	if id2, err := s.SaveTurn(ctx, tr); err != nil || id2 != id {
		t.Fatalf("SaveTurn = %d %v, want the pending row %d", id2, err, id)
	}
	if n, _ := s.CountTurns(ctx); n != 1 {
		t.Fatalf("%d turns, want 1", n)
	}
	got, _ = s.GetTurn(ctx, id)
	if got.Status != StatusComplete || got.Answer != tr.Answer || len(got.Messages) != 2 {
		t.Fatalf("completed row %+v", got)
	}
	// A pending row deleted meanwhile (history delete): the save still lands.
	tr2 := &Turn{Query: "second"}
	id3, _ := s.BeginTurn(ctx, tr2)
	if _, err := s.db.Exec(`DELETE FROM turns WHERE id = ?`, id3); err != nil {
		t.Fatal(err)
	}
	tr2.Answer = "a"
	id4, err := s.SaveTurn(ctx, tr2)
	if err != nil {
		t.Fatalf("save after the row was deleted: %v", err)
	}
	if got, err := s.GetTurn(ctx, id4); err != nil || got.Answer != "a" || got.Status != StatusComplete {
		t.Fatalf("saved %+v %v", got, err)
	}
}

// A pending row whose process was killed (kill -9) reads as interrupted,
// and that is saved; a turn still running elsewhere stays pending.
func TestPendingRowOfAGoneProcessReadsAsInterrupted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	begin := func(q, owner string, created time.Time) int64 {
		t.Helper()
		id, err := s.BeginTurn(ctx, &Turn{Query: q, CreatedAt: created})
		if err != nil {
			t.Fatal(err)
		}
		if owner != "self" {
			if _, err := s.db.Exec(`UPDATE turns SET owner = ? WHERE id = ?`, owner, id); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	// A process that has exited: its PID is free.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	now := time.Now()
	running := begin("running here", "self", now)
	killed := begin("killed", host+" "+strconv.Itoa(cmd.Process.Pid)+" 12345", now)
	otherHost := begin("on another machine", "elsewhere 1 1", now)
	oldOwnerless := begin("from an older asky, two days ago", "", now.Add(-48*time.Hour))
	newOwnerless := begin("from an older asky, just now", "", now)
	want := map[int64]string{running: StatusPending, killed: StatusInterrupted, otherHost: StatusPending,
		oldOwnerless: StatusInterrupted, newOwnerless: StatusPending}
	if runtime.GOOS == "linux" || runtime.GOOS == "windows" {
		// This PID, but recorded with another start time: a reused PID.
		reused := begin("pid reused", host+" "+strconv.Itoa(os.Getpid())+" 1", now)
		want[reused] = StatusInterrupted
	}

	got, err := s.GetTurn(ctx, killed)
	if err != nil || got.Status != StatusInterrupted || got.Error == "" {
		t.Fatalf("show of a killed turn: %+v %v", got, err)
	}
	entries, err := s.ListHistory(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Status != want[e.ID] {
			t.Errorf("list: %q is %s, want %s", e.Query, e.Status, want[e.ID])
		}
		var saved string
		_ = s.db.QueryRow(`SELECT status FROM turns WHERE id = ?`, e.ID).Scan(&saved)
		if saved != want[e.ID] {
			t.Errorf("stored: %q is %s, want %s", e.Query, saved, want[e.ID])
		}
	}
	// The turn running here still completes its own row.
	if id, err := s.SaveTurn(ctx, &Turn{ID: running, Query: "running here", Answer: "a"}); err != nil || id != running {
		t.Fatalf("SaveTurn = %d %v", id, err)
	}
}

// Opening the store settles the pending rows of dead processes, so every
// reader sees them interrupted without reading history first; a turn still
// running keeps its pending row.
func TestOpenMarksPendingRowsOfDeadOwnersInterrupted(t *testing.T) {
	ctx := context.Background()
	path := seedClosed(t, 0)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	alive, _ := s.BeginTurn(ctx, &Turn{Query: "still running"})
	dead, _ := s.BeginTurn(ctx, &Turn{Query: "killed"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if _, err := s.db.Exec(`UPDATE turns SET owner = ? WHERE id = ?`, host+" "+strconv.Itoa(cmd.Process.Pid)+" 12345", dead); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[int64]string{alive: StatusPending, dead: StatusInterrupted} {
		var status, msg string
		if err := s.db.QueryRow(`SELECT status, error FROM turns WHERE id = ?`, id).Scan(&status, &msg); err != nil {
			t.Fatal(err)
		}
		if status != want || (want == StatusInterrupted) != (msg == interruptedByExit) {
			t.Errorf("turn %d after open: %s %q, want %s", id, status, msg, want)
		}
	}
	var plan string
	if err := s.db.QueryRow(`EXPLAIN QUERY PLAN SELECT id, owner, created_at FROM turns WHERE status = '`+StatusPending+`'`).Scan(new(int), new(int), new(int), &plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "turns_pending") {
		t.Errorf("the open-time lookup scans the history: %s", plan)
	}
}
