package procid

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

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
	if runtime.GOOS == "linux" {
		if id := host + " " + strconv.Itoa(os.Getpid()) + " 1"; !Gone(id) {
			t.Errorf("Gone(%q) = false for a PID reused by a later process", id)
		}
	}
}
