package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
)

// TestMain doubles as a stand-in daemon for the stop tests.
func TestMain(m *testing.M) {
	if path := os.Getenv("ASKY_TEST_FAKE_DAEMON"); path != "" {
		fakeDaemon(path, os.Getenv("ASKY_TEST_FAKE_DAEMON_MODE"))
		return
	}
	os.Exit(m.Run())
}

// fakeDaemon holds the daemon lock at pidPath as `daemon run` does. Mode
// "obey" exits on a stop request or SIGTERM (its default action); "ignore"
// on neither, like a daemon stuck in a turn.
func fakeDaemon(pidPath, mode string) {
	lock, err := daemon.Lock(pidPath)
	if err == nil {
		err = lock.Write(daemon.Info{PID: os.Getpid(), Started: time.Now()})
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	if mode == "ignore" {
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
		os.Exit(3)
	}
	fmt.Println("ready")
	daemon.WatchStop(context.Background(), pidPath, os.Getpid(), 10*time.Millisecond, func() {})
	lock.Release()
	os.Exit(0)
}

// startFakeDaemon runs fakeDaemon in a child and waits until it holds the
// lock; the child is killed when the test ends.
func startFakeDaemon(t *testing.T, pidPath, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ASKY_TEST_FAKE_DAEMON="+pidPath, "ASKY_TEST_FAKE_DAEMON_MODE="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			waited <- fmt.Errorf("fake daemon: %q", line)
			return
		}
		waited <- nil
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the fake daemon never took the lock")
	}
	return cmd
}

// `daemon stop` asks the daemon to stop (SIGTERM, or a stop request on
// Windows) and waits for it.
func TestStopAsks(t *testing.T) {
	w := newWorld(t, "")
	cfg, _ := w.f.Config()
	cmd := startFakeDaemon(t, pidPath(cfg), "obey")
	err := stopRun(context.Background(), &StopOptions{IO: w.f.IO, Config: w.f.Config, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	if want := fmt.Sprintf("stopped asky daemon (pid %d)\n", cmd.Process.Pid); w.stderr.String() != want {
		t.Fatalf("stderr %q, want %q", w.stderr, want)
	}
	if _, running, _ := daemon.Status(pidPath(cfg)); running {
		t.Fatal("lock still held")
	}
}

// A daemon that does not stop in time: on Unix the user is told how to
// kill it; on Windows it is ended with TerminateProcess.
func TestStopAfterTheTimeout(t *testing.T) {
	w := newWorld(t, "")
	cfg, _ := w.f.Config()
	cmd := startFakeDaemon(t, pidPath(cfg), "ignore")
	pid := cmd.Process.Pid
	err := stopRun(context.Background(), &StopOptions{IO: w.f.IO, Config: w.f.Config, Timeout: 300 * time.Millisecond})
	late := fmt.Sprintf("the daemon (pid %d) did not exit within 300ms", pid)
	if runtime.GOOS != "windows" {
		var ce *cmdutil.Error
		if !errors.As(err, &ce) || err.Error() != late || ce.Hint != fmt.Sprintf("kill -9 %d", pid) {
			t.Fatalf("%#v", err)
		}
		if _, running, _ := daemon.Status(pidPath(cfg)); !running {
			t.Fatal("the daemon was ended; on Unix that is left to the user")
		}
		return
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	want := fmt.Sprintf("warning: %s; ended it (questions in flight are shown as interrupted)\nstopped asky daemon (pid %d)\n", late, pid)
	if w.stderr.String() != want {
		t.Fatalf("stderr %q, want %q", w.stderr, want)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("fake daemon ended with %v, want exit status 1 (TerminateProcess)", err)
	}
}

// `daemon run` stops on a stop request for its pid, as on SIGTERM, and
// ignores one left for it before it started.
func TestRunStopsOnAStopRequest(t *testing.T) {
	w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n")
	cfg, _ := w.f.Config()
	if err := os.MkdirAll(cfg.Paths.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := daemon.RequestStop(pidPath(cfg), os.Getpid()); err != nil {
		t.Fatal(err)
	}
	_, stop := w.serve(t)
	time.Sleep(600 * time.Millisecond) // two checks of the stop file
	if _, running, _ := daemon.Status(pidPath(cfg)); !running {
		t.Fatalf("a request left before it started stopped the daemon\n%s", w.stderr)
	}
	if err := daemon.RequestStop(pidPath(cfg), os.Getpid()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, running, _ := daemon.Status(pidPath(cfg)); !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon ignored a stop request\n%s", w.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.stderr.String(), "stopping: asked by asky daemon stop") {
		t.Fatalf("stderr: %s", w.stderr)
	}
	if _, err := os.Stat(daemon.StopPath(pidPath(cfg))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stop request left behind: %v", err)
	}
}
