// Package session holds the logic of conversation sessions that is not SQL:
// the shell binding (which session this terminal continues), selectors,
// auto-naming, the context a session sends to the model, and compaction.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/procid"
)

// Binding is the link between one shell (identified by the parent process
// id of asky, i.e. the shell that ran it) and a session. It is a small file
// in a per-user runtime directory, so other terminals stay independent and
// nothing survives a reboot.
type Binding struct {
	dir  string
	ppid int
	// parentStart returns a token that identifies the process instance of
	// pid (its start time on Linux), so a binding left by a shell whose
	// PID was later reused is recognised as stale. Empty = unknown.
	parentStart func(pid int) string
}

// bindingFile is the JSON content of a binding file.
type bindingFile struct {
	SessionID   int64  `json:"session_id"`
	ParentStart string `json:"parent_start,omitempty"`
}

// NewBinding returns the binding of the shell with process id ppid. The
// directory is $XDG_RUNTIME_DIR/asky, or <tmp>/asky-<uid>.
func NewBinding(getenv func(string) string, ppid int) *Binding {
	return &Binding{dir: RuntimeDir(getenv), ppid: ppid, parentStart: procid.Start}
}

// RuntimeDir is where binding files live.
func RuntimeDir(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "asky")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("asky-%d", os.Getuid()))
}

// Path is the binding file of this shell.
func (b *Binding) Path() string {
	return filepath.Join(b.dir, "session-"+strconv.Itoa(b.ppid))
}

// Get returns the bound session id, 0 when none. A file that cannot be read
// as a binding, or that was left by an earlier process with the same PID,
// is removed and reported in notice; it is never an error.
func (b *Binding) Get() (id int64, notice string) {
	data, err := os.ReadFile(b.Path())
	if errors.Is(err, os.ErrNotExist) {
		return 0, ""
	}
	if err != nil {
		return 0, fmt.Sprintf("ignoring unreadable session binding %s: %v", b.Path(), err)
	}
	var f bindingFile
	if err := json.Unmarshal(data, &f); err != nil || f.SessionID <= 0 {
		// The original wrote a bare id; accept it.
		n, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if perr != nil || n <= 0 {
			_ = os.Remove(b.Path())
			return 0, "cleared a corrupt shell session binding"
		}
		f.SessionID = n
	}
	if f.ParentStart != "" && b.parentStart != nil {
		if now := b.parentStart(b.ppid); now != "" && now != f.ParentStart {
			_ = os.Remove(b.Path())
			return 0, "cleared a stale shell session binding (left by an earlier shell)"
		}
	}
	return f.SessionID, ""
}

// Set binds the shell to session id, atomically (temp file + rename) so a
// concurrent reader never sees a partial file.
func (b *Binding) Set(id int64) error {
	if err := ensurePrivateDir(b.dir); err != nil {
		return err
	}
	f := bindingFile{SessionID: id}
	if b.parentStart != nil {
		f.ParentStart = b.parentStart(b.ppid)
	}
	data, _ := json.Marshal(f)
	tmp, err := os.CreateTemp(b.dir, ".session-*")
	if err != nil {
		return fmt.Errorf("bind session: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("bind session: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("bind session: %w", err)
	}
	if err := os.Rename(tmp.Name(), b.Path()); err != nil {
		return fmt.Errorf("bind session: %w", err)
	}
	return nil
}

// Clear removes the binding; no binding is not an error.
func (b *Binding) Clear() error {
	err := os.Remove(b.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// ensurePrivateDir creates dir (0700) and refuses one that is a symlink or
// owned by another user: the temp dir is shared.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if !ownedByMe(fi) {
		return fmt.Errorf("%s is owned by another user; refusing to store session bindings there", dir)
	}
	return nil
}
