package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below re-execute the test binary as child processes: the env
// variables select the child's role, and the parent checks the database
// afterwards. Separate processes (not goroutines) are what six shells are.
const (
	envChildDB    = "ASKY_STORE_TEST_CHILD_DB"
	envChildID    = "ASKY_STORE_TEST_CHILD_ID"
	envChildStart = "ASKY_STORE_TEST_CHILD_START"
)

const (
	writers         = 6
	turnsPerWriter  = 100
	crashMessages   = 200000
	crashWALTrigger = 1 << 20
)

func childCommand(t *testing.T, test string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// TestConcurrentWriters starts six processes on a fresh database path at
// the same moment (so they also race to migrate it); each saves 100 turns,
// half with SaveTurn and half with a read-then-write transaction (the
// pattern that loses writes under deferred transactions). All 600 must be
// there and the file must pass quick_check.
func TestConcurrentWriters(t *testing.T) {
	if path := os.Getenv(envChildDB); path != "" {
		concurrentChild(t, path)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "asky.db")
	start := filepath.Join(dir, "start")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range writers {
		cmd := childCommand(t, "TestConcurrentWriters", envChildDB+"="+path, envChildID+"="+strconv.Itoa(i), envChildStart+"="+start)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	// Release them together once all are running.
	time.Sleep(200 * time.Millisecond)
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
		}
	}
	if t.Failed() {
		return
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var total, distinct int
	if err := s.DB().QueryRow(`SELECT count(*), count(DISTINCT query) FROM turns`).Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != writers*turnsPerWriter || distinct != total {
		t.Fatalf("turns = %d (distinct %d), want %d", total, distinct, writers*turnsPerWriter)
	}
	var msgs int
	if err := s.DB().QueryRow(`SELECT count(*) FROM messages`).Scan(&msgs); err != nil {
		t.Fatal(err)
	}
	if msgs != writers*turnsPerWriter/2 {
		t.Fatalf("messages = %d, want %d", msgs, writers*turnsPerWriter/2)
	}
	if res, err := s.IntegrityCheck(context.Background()); err != nil || res != "ok" {
		t.Fatalf("quick_check = %q, %v", res, err)
	}
}

func concurrentChild(t *testing.T, path string) {
	id := os.Getenv(envChildID)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(os.Getenv(envChildStart)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("start signal never came")
		}
		time.Sleep(2 * time.Millisecond)
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("writer %s: open: %v", id, err)
	}
	defer s.Close()
	for i := range turnsPerWriter {
		q := fmt.Sprintf("writer %s turn %d", id, i)
		if i%2 == 0 {
			if _, err := s.SaveTurn(ctx, &Turn{Query: q, Answer: "a", Messages: []Message{{Role: "user", Content: q}}}); err != nil {
				t.Fatalf("writer %s: SaveTurn %d: %v", id, i, err)
			}
			continue
		}
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatalf("writer %s: begin %d: %v", id, i, err)
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM turns`).Scan(&n); err != nil {
			t.Fatalf("writer %s: read %d: %v", id, i, err)
		}
		if _, err := tx.Exec(`INSERT INTO turns(created_at, query, answer) VALUES(?, ?, ?)`, s.ts(), q, strconv.Itoa(n)); err != nil {
			t.Fatalf("writer %s: write %d: %v", id, i, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("writer %s: commit %d: %v", id, i, err)
		}
	}
}

// TestKilledSaveLeavesNothing kills a process in the middle of saving a
// very large turn (after its transaction has spilled pages into the WAL)
// and checks that the turn is entirely absent, not half there.
func TestKilledSaveLeavesNothing(t *testing.T) {
	if path := os.Getenv(envChildDB); path != "" {
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([]Message, crashMessages)
		for i := range msgs {
			msgs[i] = Message{Role: "tool", Content: strings.Repeat("m", 200)}
		}
		_, err = s.SaveTurn(context.Background(), &Turn{Query: "huge", Messages: msgs})
		t.Fatalf("save finished before the kill (err %v); raise crashMessages", err)
	}
	path := seedClosed(t, 3)
	cmd := childCommand(t, "TestKilledSaveLeavesNothing", envChildDB+"="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(30 * time.Second)
wait:
	for {
		select {
		case err := <-done:
			t.Fatalf("child exited before it was killed: %v\n%s", err, out.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatal("WAL never grew; the save did not spill")
		case <-time.After(2 * time.Millisecond):
			if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > crashWALTrigger {
				break wait
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done

	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	var turns, msgs int
	if err := s.DB().QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM messages)`).Scan(&turns, &msgs); err != nil {
		t.Fatal(err)
	}
	if turns != 3 || msgs != 3 {
		t.Fatalf("after kill: %d turns, %d messages; want the 3 seeded turns and their 3 messages", turns, msgs)
	}
	if res, err := s.IntegrityCheck(context.Background()); err != nil || res != "ok" {
		t.Fatalf("quick_check = %q, %v", res, err)
	}
}

// TestCancelledSaveLeavesNothing cancels the context between the turn row
// and its usage rows; the transaction must roll back as a whole.
func TestCancelledSaveLeavesNothing(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	// SaveTurn reads the clock for the usage rows, after the turn and its
	// messages are inserted: cancel right there.
	s.SetNow(func() time.Time { cancel(); return time.Now() })
	_, err := s.SaveTurn(ctx, &Turn{CreatedAt: time.Now(), Query: "q", Messages: []Message{{Role: "user"}, {Role: "assistant"}},
		Calls: []LLMCall{{Model: "m"}}})
	if err == nil {
		t.Fatal("SaveTurn succeeded with a cancelled context")
	}
	var turns, msgs int
	if err := s.DB().QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM messages)`).Scan(&turns, &msgs); err != nil {
		t.Fatal(err)
	}
	if turns != 0 || msgs != 0 {
		t.Fatalf("cancelled save left %d turns, %d messages", turns, msgs)
	}
}
