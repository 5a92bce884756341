package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

const envDiskFullChild = "ASKY_STORE_TEST_DISKFULL"

// TestDiskFullSaveIsTypedAndAtomic runs a child whose file-size limit
// (RLIMIT_FSIZE, like a full disk for this process) is just above the
// database's size, saves a turn that cannot fit, and checks the error is a
// DiskError naming the file and that the database still holds exactly what
// it held before.
func TestDiskFullSaveIsTypedAndAtomic(t *testing.T) {
	if path := os.Getenv(envDiskFullChild); path != "" {
		diskFullChild(t, path)
		return
	}
	path := seedClosed(t, 5)
	cmd := childCommand(t, "TestDiskFullSaveIsTypedAndAtomic", envDiskFullChild+"="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, _ := s.CountTurns(context.Background()); n != 5 {
		t.Fatalf("turns = %d after the failed save, want 5", n)
	}
	if res, err := s.IntegrityCheck(context.Background()); err != nil || res != "ok" {
		t.Fatalf("quick_check = %q, %v", res, err)
	}
}

func diskFullChild(t *testing.T, path string) {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	limit := uint64(st.Size() + 64<<10)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := make([]Message, 5000)
	for i := range msgs {
		msgs[i] = Message{Role: "tool", Content: strings.Repeat("z", 1000)}
	}
	_, err = s.SaveTurn(context.Background(), &Turn{Query: "too big", Messages: msgs})
	var de *DiskError
	if !errors.As(err, &de) || de.Path != path || !strings.Contains(de.Error(), path) {
		t.Fatalf("SaveTurn = %T %v, want DiskError for %s", err, err, path)
	}
}
