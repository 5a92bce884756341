//go:build unix

package minilm

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: with other work on the
// machine, CPU time per operation is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
