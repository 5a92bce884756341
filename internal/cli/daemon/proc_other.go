//go:build !unix && !windows

package daemon

import (
	"fmt"
	"os"
	"syscall"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// detached has nothing to set here: the child already outlives this
// command.
func detached() *syscall.SysProcAttr { return nil }

// stopChild ends a daemon this command started and gave up on; without
// signals it cannot be asked politely.
func stopChild(p *os.Process) { _ = p.Kill() }

// terminate refuses: this platform has no way yet to ask the daemon to
// save its turns in flight and exit.
func terminate(pid int, _ string) (stopping, error) {
	return nil, cmdutil.Errorf(fmt.Sprintf("end the daemon (pid %d) with your system's tools (questions in flight are then shown as interrupted)", pid),
		"asky daemon stop is not built on this platform yet")
}

// forceHint is how the user ends a daemon that does not stop.
func forceHint(pid int) string { return fmt.Sprintf("end process %d", pid) }
