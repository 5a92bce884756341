//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// maxRSS is the peak resident set of a finished command, in bytes.
func maxRSS(c *exec.Cmd) int64 {
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
