//go:build unix

package daemon

import (
	"errors"
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
func terminate(pid int, _ string) (stopping, error) {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil, fmt.Errorf("signal pid %d: %w", pid, err)
	}
	return signalled{}, nil
}

// signalled is a SIGTERM sent. A daemon that ignores it is left to the
// user (forceHint): SIGKILL is theirs to choose.
type signalled struct{}

func (signalled) force() error { return errors.ErrUnsupported }
func (signalled) close()       {}

// forceHint is how the user ends a daemon that does not stop.
func forceHint(pid int) string { return fmt.Sprintf("kill -9 %d", pid) }
