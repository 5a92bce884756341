//go:build unix

package xmpptest

import (
	"os"
	"syscall"
)

// startAttrs puts prosody in its own process group, so Stop reaches the
// children it forks.
func startAttrs() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(a)
	return a
}

// signalGroup sends SIGTERM (or SIGKILL) to p's process group.
func signalGroup(p *os.Process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.Pid, sig)
}

// pauseGroup stops (SIGSTOP) or continues (SIGCONT) p's process group.
func pauseGroup(p *os.Process, stop bool) {
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	_ = syscall.Kill(-p.Pid, sig)
}
