//go:build windows

package procid

import (
	"errors"
	"strconv"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not ended (STILL_ACTIVE). A process that exits with 259 itself
// reads as running: the safe side.
const stillActive = 259

// Start is the creation time of the running process pid, in 100 ns ticks
// since 1601, or "" when no process runs under pid or it cannot be
// opened. An ended process whose object is still held open by a handle
// somewhere counts as not running, so its PID reads as free.
func Start(pid int) string {
	h, _ := open(pid)
	if h == 0 {
		return ""
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if !running(h) || windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return ""
	}
	return strconv.FormatInt(int64(created.HighDateTime)<<32|int64(created.LowDateTime), 10)
}

// exists reports whether pid is a running process. Only a PID that names
// no process (or an ended one) is free: a process asky may not open (access
// denied: another user's, or a protected one) exists.
func exists(pid int) bool {
	h, ok := open(pid)
	if !ok {
		return false
	}
	if h == 0 {
		return true
	}
	defer windows.CloseHandle(h)
	return running(h)
}

// open opens pid for queries. ok is false when no process has that PID;
// h is 0 (and ok true) when one does but cannot be opened.
func open(pid int) (h windows.Handle, ok bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// ERROR_INVALID_PARAMETER is Windows' way to say no such process.
		return 0, !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	return h, true
}

// running reports whether the opened process has not ended yet.
func running(h windows.Handle) bool {
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
