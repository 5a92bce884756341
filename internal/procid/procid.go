// Package procid identifies a process in a way that survives PID reuse, so
// state left by a process (a session binding, a pending history row) can be
// recognised as stale once that process is gone.
package procid

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Self is this process's identity: "host pid start".
func Self() string {
	return Of(os.Getpid())
}

// Of is the identity of a running process pid.
func Of(pid int) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s %d %s", host, pid, Start(pid))
}

// Gone reports whether the process an identity names has certainly ended:
// it ran on this host, and its PID is free or now belongs to a process that
// started at another time. Anything it cannot tell (another host, an
// unreadable identity, a platform without a check) counts as still running.
func Gone(id string) bool {
	f := strings.Fields(id)
	if len(f) < 2 {
		return false
	}
	if host, _ := os.Hostname(); f[0] != host {
		return false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return false
	}
	if len(f) >= 3 {
		if now := Start(pid); now != "" {
			return now != f[2]
		}
	}
	return !exists(pid)
}
