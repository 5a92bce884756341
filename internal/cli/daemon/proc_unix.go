//go:build unix

package daemon

import (
	"fmt"
	"os"
	"syscall"
)

// detached starts the daemon in its own session, so closing the terminal
// that ran `asky daemon start` does not hang it up.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// stopChild asks a daemon this command started (and gave up on) to exit.
func stopChild(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }

// terminate asks the daemon pid to stop; it saves the turns in flight as
// interrupted before exiting.
func terminate(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("signal pid %d: %w", pid, err)
	}
	return nil
}
