//go:build !unix

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

// terminate refuses: without SIGTERM there is no way yet to ask the daemon
// to save its turns in flight and exit.
func terminate(pid int) error {
	return cmdutil.Errorf(fmt.Sprintf("end it with: taskkill /F /PID %d (questions in flight are then shown as interrupted)", pid),
		"asky daemon stop is not built on this platform yet")
}
