package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/askygo/asky/internal/filelock"
)

// Info is what a running daemon records in its pid file.
type Info struct {
	PID     int       `json:"pid"`
	URL     string    `json:"url,omitempty"`
	Started time.Time `json:"started"`
	Log     string    `json:"log,omitempty"`
	// Transports are the transports it serves.
	Transports []string `json:"transports,omitempty"`
}

// RunningError says another daemon holds the lock.
type RunningError struct{ Info Info }

func (e *RunningError) Error() string {
	if e.Info.PID > 0 {
		return fmt.Sprintf("asky daemon is already running (pid %d)", e.Info.PID)
	}
	return "asky daemon is already running"
}

// PIDFile is the daemon's ownership lock: an flock held for the process
// lifetime (reliability.md §4.6 — a PID alone can be reused). The kernel
// drops the lock when the process dies, so a file left by a crashed
// daemon is simply taken over.
type PIDFile struct {
	f    *os.File
	path string
}

// Lock takes the lock at path or returns a *RunningError naming the
// owner.
func Lock(path string) (*PIDFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			info, _ := readInfo(path)
			return nil, &RunningError{Info: info}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &PIDFile{f: f, path: path}, nil
}

// Write replaces the file's contents with info.
func (p *PIDFile) Write(info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := p.f.Truncate(0); err != nil {
		return err
	}
	if _, err := p.f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return p.f.Sync()
}

// Release empties the file and drops the lock. The file itself stays:
// removing it could let two daemons lock different inodes.
func (p *PIDFile) Release() {
	_ = p.f.Truncate(0)
	_ = p.f.Close()
}

// Status reports whether a daemon holds the lock at path, and what it
// recorded. A missing file means not running.
func Status(path string) (Info, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, false, nil
	}
	if err != nil {
		return Info{}, false, err
	}
	defer f.Close()
	err = filelock.TryRLock(f)
	if err == nil {
		// Nobody holds it: whatever the file says is stale.
		_ = filelock.Unlock(f)
		return Info{}, false, nil
	}
	if !errors.Is(err, filelock.ErrLocked) {
		return Info{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	info, err := readInfo(path)
	return info, true, err
}

func readInfo(path string) (Info, error) {
	var info Info
	b, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if len(b) == 0 {
		// Locked but not written yet: the daemon is starting.
		return info, nil
	}
	return info, json.Unmarshal(b, &info)
}

// StopPath is the stop request file beside the pid file. Where `asky
// daemon stop` cannot send SIGTERM (Windows), it writes the daemon's pid
// there and the daemon stops as it would on SIGTERM. Only the user can
// write the state directory, so the file is as private as a signal.
func StopPath(pidPath string) string {
	return filepath.Join(filepath.Dir(pidPath), "daemon.stop")
}

// RequestStop asks the daemon pid, which holds the lock at pidPath, to
// stop. The request names the pid, so one left behind by a daemon that was
// killed before it saw it never stops the next one.
func RequestStop(pidPath string, pid int) error {
	if err := os.WriteFile(StopPath(pidPath), []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
		return fmt.Errorf("ask the daemon to stop: %w", err)
	}
	return nil
}

// WatchStop calls stop once a request for pid appears (RequestStop),
// checking every interval until ctx ends.
func WatchStop(ctx context.Context, pidPath string, pid int, every time.Duration, stop func()) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	want := strconv.Itoa(pid)
	for {
		if b, err := os.ReadFile(StopPath(pidPath)); err == nil && strings.TrimSpace(string(b)) == want {
			stop()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
