//go:build unix

package procid

import (
	"errors"
	"syscall"
)

// exists reports whether pid is a live process; a process of another user
// (EPERM) exists too.
func exists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
