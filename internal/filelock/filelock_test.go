package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Two opens of one file stand in for two processes: flock and LockFileEx
// locks belong to the open file, not the process.
func TestLockConflicts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := TryLock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second exclusive lock: %v, want ErrLocked", err)
	}
	if err := TryRLock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("shared lock under an exclusive one: %v, want ErrLocked", err)
	}
	// The holder's contents stay readable by others (mandatory locks on
	// Windows must not cover them).
	if err := os.WriteFile(path, []byte("pid"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "pid" {
		t.Fatalf("read while locked: %q, %v", got, err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryRLock(b); err != nil {
		t.Fatalf("shared lock after unlock: %v", err)
	}
	c := open()
	if err := TryRLock(c); err != nil {
		t.Fatalf("two shared locks: %v", err)
	}
	if err := TryLock(a); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive under shared: %v, want ErrLocked", err)
	}
	b.Close()
	c.Close()
	if err := Lock(a); err != nil {
		t.Fatalf("blocking lock after the holder closed: %v", err)
	}
}
