// Package filelock takes advisory locks on open files the same way on every
// platform asky builds for: flock(2) on unix, LockFileEx on Windows. The
// locks are held by the open file and dropped by the kernel when the
// process dies, which is what the daemon's PID file and the memory mirror
// rely on (a PID alone can be reused).
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is returned by the Try functions when another open file holds
// a conflicting lock.
var ErrLocked = errors.New("file is locked by another process")

// Lock takes an exclusive lock on f, waiting for other holders.
func Lock(f *os.File) error { return lock(f, true, true) }

// TryLock takes an exclusive lock on f or returns ErrLocked at once.
func TryLock(f *os.File) error { return lock(f, true, false) }

// TryRLock takes a shared lock on f or returns ErrLocked at once when an
// exclusive lock is held.
func TryRLock(f *os.File) error { return lock(f, false, false) }

// Unlock drops the lock f holds. Closing f drops it too.
func Unlock(f *os.File) error { return unlock(f) }
