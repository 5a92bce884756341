//go:build windows

package daemon

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/askygo/asky/internal/daemon"
)

// detached gives the daemon a console of its own (hidden), so closing the
// console that ran `asky daemon start` does not end it (CTRL_CLOSE_EVENT),
// and programs it runs (token_cmd) open no window.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}

// stopChild ends a daemon this command started and gave up on.
func stopChild(p *os.Process) { _ = p.Kill() }

// terminate asks the daemon pid to stop through a stop request (Windows
// has no SIGTERM); it saves the turns in flight as interrupted before
// exiting. The process is opened first, so a forced stop later ends this
// very process even if its PID were reused.
func terminate(pid int, pidPath string) (stopping, error) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return nil, fmt.Errorf("open pid %d: %w", pid, err)
	}
	if err := daemon.RequestStop(pidPath, pid); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return process{h}, nil
}

// process is a daemon asked to stop.
type process struct{ h windows.Handle }

// force ends it with TerminateProcess; the turns it was answering are
// shown as interrupted once its PID is seen to be free.
func (p process) force() error {
	if err := windows.TerminateProcess(p.h, 1); err != nil {
		return fmt.Errorf("end the daemon: %w", err)
	}
	return nil
}

func (p process) close() { _ = windows.CloseHandle(p.h) }

// forceHint is how the user ends a daemon that does not stop.
func forceHint(pid int) string { return fmt.Sprintf("taskkill /F /PID %d", pid) }
