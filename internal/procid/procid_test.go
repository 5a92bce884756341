package procid

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestMain doubles as a child that runs until its stdin closes, for
// TestGoneFollowsAChild.
func TestMain(m *testing.M) {
	if os.Getenv("PROCID_TEST_WAIT") == "1" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startTimes reports whether this platform reads start times, so a reused
// PID is told apart.
func startTimes() bool { return runtime.GOOS == "linux" || runtime.GOOS == "windows" }

func TestGone(t *testing.T) {
	if Gone(Self()) {
		t.Fatal("this process counted as gone")
	}
	host, _ := os.Hostname()
	for _, id := range []string{"", "garbage", "other-host 1 1", host + " notapid"} {
		if Gone(id) {
			t.Errorf("Gone(%q) = true; an unknown owner must count as running", id)
		}
	}
	// A process that has exited and been reaped: its PID is free.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if id := host + " " + strconv.Itoa(cmd.Process.Pid); !Gone(id) {
		t.Errorf("Gone(%q) = false for an exited process", id)
	}
	// A reused PID: same pid, another start time.
	if startTimes() {
		if id := host + " " + strconv.Itoa(os.Getpid()) + " 1"; !Gone(id) {
			t.Errorf("Gone(%q) = false for a PID reused by a later process", id)
		}
	}
}

func TestStart(t *testing.T) {
	a, b := Start(os.Getpid()), Start(os.Getpid())
	if a != b {
		t.Errorf("Start changed between two reads: %q, %q", a, b)
	}
	if startTimes() && a == "" {
		t.Errorf("Start(self) = \"\" on %s, which reads start times", runtime.GOOS)
	}
}

// TestGoneFollowsAChild checks a child's identity while it runs, after it
// has ended and (on Windows, where an ended process stays open while a
// handle holds it) before it is waited for, and once it is reaped.
func TestGoneFollowsAChild(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROCID_TEST_WAIT=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := Of(cmd.Process.Pid)
	if Gone(id) {
		t.Errorf("Gone(%q) = true for a running child", id)
	}
	if startTimes() && Start(cmd.Process.Pid) == "" {
		t.Errorf("Start(child) = \"\" while the child runs")
	}
	in.Close()
	if runtime.GOOS == "windows" {
		deadline := time.Now().Add(10 * time.Second)
		for !Gone(id) {
			if time.Now().After(deadline) {
				t.Fatalf("Gone(%q) = false for an ended child not yet waited for", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !Gone(id) {
		t.Errorf("Gone(%q) = false for an ended child", id)
	}
}
