package daemon

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestPIDFileLockStatusRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "daemon.pid")
	if _, running, err := Status(path); err != nil || running {
		t.Fatalf("no file: running=%v err=%v", running, err)
	}
	p, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := p.Write(Info{PID: 42, URL: "http://127.0.0.1:1", Started: started}); err != nil {
		t.Fatal(err)
	}
	info, running, err := Status(path)
	if err != nil || !running || info.PID != 42 || info.URL != "http://127.0.0.1:1" || !info.Started.Equal(started) {
		t.Fatalf("status: %+v running=%v err=%v", info, running, err)
	}
	// A second owner is refused and told who holds it (flock is per open
	// file description, so this holds within one process too).
	_, err = Lock(path)
	var re *RunningError
	if !errors.As(err, &re) || re.Info.PID != 42 || re.Error() != "asky daemon is already running (pid 42)" {
		t.Fatalf("second lock: %v", err)
	}
	p.Release()
	if _, running, _ := Status(path); running {
		t.Fatal("running after release")
	}
	p2, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	p2.Release()
}

// A file left behind by a dead process (pid reused or not) is taken over:
// only the lock counts.
func TestPIDFileStaleIsTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.pid")
	cmd := exec.Command(os.Args[0], "-test.run=^$") // exits at once, on every platform
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale := []byte(`{"pid":` + strconv.Itoa(cmd.Process.Pid) + `,"url":"http://127.0.0.1:9"}` + "\n")
	if err := os.WriteFile(path, stale, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, running, err := Status(path); err != nil || running {
		t.Fatalf("stale file reported running=%v err=%v", running, err)
	}
	p, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Write(Info{PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	info, running, err := Status(path)
	if err != nil || !running || info.PID != os.Getpid() {
		t.Fatalf("%+v %v %v", info, running, err)
	}
}

// A stop request stops only the daemon it names: one left for an earlier
// daemon is ignored.
func TestWatchStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.pid")
	stopped := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		WatchStop(context.Background(), path, 42, time.Millisecond, func() { close(stopped) })
	}()
	if err := RequestStop(path, 41); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
		t.Fatal("stopped by a request for another pid")
	case <-time.After(50 * time.Millisecond):
	}
	if err := RequestStop(path, 42); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a request for its pid did not stop it")
	}
	// Without a request it returns when ctx ends.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	WatchStop(ctx, filepath.Join(t.TempDir(), "daemon.pid"), 42, time.Hour, func() { t.Error("stopped without a request") })
}
