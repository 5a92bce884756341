package mdmirror

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/askygo/asky/internal/filelock"
	"github.com/askygo/asky/internal/store"
)

// File names inside the markdown directory.
const (
	MemoryFile = "MEMORY.md"
	stateFile  = ".asky-memory-state.json"
	lockFile   = ".asky-memory.lock"
)

// Lister reads every memory (the store).
type Lister interface {
	ListMemories(ctx context.Context, scope store.MemoryScope) ([]*store.Memory, error)
}

// Mirror writes the markdown of the memories in Dir.
type Mirror struct {
	Dir string
	Now func() time.Time
}

// HandEditedError means MEMORY.md changed outside asky since asky last
// wrote it: it is left as it is (nothing is lost) until applied.
type HandEditedError struct{ Path string }

func (e *HandEditedError) Error() string {
	return e.Path + " was changed outside asky and was not overwritten"
}

// Hint is the next step.
func (e *HandEditedError) Hint() string {
	return "apply it with `asky memory reindex` (or `asky memory edit`), or delete it to rewrite it from the database"
}

// state is what the mirror last wrote: the hash of MEMORY.md and the
// facts, to log the changes made since.
type state struct {
	Hash     string             `json:"hash"`
	Memories map[int64]snapshot `json:"memories"`
	// FileIDs are the ids in the MEMORY.md asky last wrote: only those can
	// have been removed from it by the user.
	FileIDs []int64 `json:"file_ids"`
}

type snapshot struct {
	SessionID   int64    `json:"session_id,omitempty"`
	Text        string   `json:"text"`
	Tags        []string `json:"tags,omitempty"`
	Unconfirmed bool     `json:"unconfirmed,omitempty"`
	Provenance  string   `json:"provenance,omitempty"`
}

// Sync brings the markdown up to date with the database: the changes
// since the last sync are appended to today's log, tagged with source
// (cli, chat, edit, import, …), and MEMORY.md is rewritten atomically —
// unless it was edited by hand since (a *HandEditedError, with the log
// still written) and force is false. Writers in several processes are
// serialized by a lock file.
func (m *Mirror) Sync(ctx context.Context, st Lister, source string, force bool) error {
	if err := os.MkdirAll(m.Dir, 0o700); err != nil {
		return err
	}
	unlock, err := lock(filepath.Join(m.Dir, lockFile))
	if err != nil {
		return err
	}
	defer unlock()
	ms, err := st.ListMemories(ctx, store.MemoryScope{All: true})
	if err != nil {
		return err
	}
	prev := m.readState()
	now := snapshotOf(ms)
	if err := m.appendLog(diffLines(prev.Memories, now, source, m.now())); err != nil {
		return err
	}
	path := filepath.Join(m.Dir, MemoryFile)
	data := Render(ms)
	var handEdited error
	if cur, err := os.ReadFile(path); err == nil && prev.Hash != "" && hash(cur) != prev.Hash && !force && !bytes.Equal(cur, data) {
		handEdited = &HandEditedError{Path: path}
	} else if err := WriteAtomic(path, data); err != nil {
		return err
	}
	next := state{Hash: prev.Hash, Memories: now, FileIDs: prev.FileIDs}
	if handEdited == nil {
		next.Hash, next.FileIDs = hash(data), make([]int64, 0, len(ms))
		for _, m := range ms {
			next.FileIDs = append(next.FileIDs, m.ID)
		}
	}
	raw, _ := json.Marshal(next)
	if err := WriteAtomic(filepath.Join(m.Dir, stateFile), raw); err != nil {
		return err
	}
	return handEdited
}

// Shown reports whether memory id was in the MEMORY.md asky last wrote:
// a fact added while the file held hand edits is not in it, and its
// absence from the file is no reason to forget it.
func (m *Mirror) Shown() func(id int64) bool {
	ids := map[int64]bool{}
	for _, id := range m.readState().FileIDs {
		ids[id] = true
	}
	return func(id int64) bool { return ids[id] }
}

func (m *Mirror) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Mirror) readState() state {
	var s state
	if raw, err := os.ReadFile(filepath.Join(m.Dir, stateFile)); err == nil {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func snapshotOf(ms []*store.Memory) map[int64]snapshot {
	out := make(map[int64]snapshot, len(ms))
	for _, m := range ms {
		out[m.ID] = snapshot{SessionID: m.SessionID, Text: m.Text, Tags: m.Tags, Unconfirmed: m.Unconfirmed, Provenance: m.Provenance}
	}
	return out
}

// logEntry is one line of a daily log, with the day it belongs to.
type logEntry struct {
	day  string
	text string
}

// diffLines are the log lines for the changes from prev to now.
func diffLines(prev, now map[int64]snapshot, source string, at time.Time) []logEntry {
	ids := make([]int64, 0, len(prev)+len(now))
	for id := range prev {
		ids = append(ids, id)
	}
	for id := range now {
		if _, ok := prev[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	day, clock := at.Format(time.DateOnly), at.Format("15:04:05")
	var out []logEntry
	for _, id := range ids {
		p, had := prev[id]
		n, has := now[id]
		op, s := "", n
		switch {
		case !had:
			op = "added"
		case !has:
			op, s = "removed", p
		case p.Text != n.Text || p.SessionID != n.SessionID || !slices.Equal(p.Tags, n.Tags):
			op = "updated"
		case p.Unconfirmed && !n.Unconfirmed:
			op = "confirmed"
		default:
			continue
		}
		fields := append(trustFields(s.Unconfirmed, s.Provenance), "source:"+sourceField(source), "op:"+op, "at:"+clock)
		out = append(out, logEntry{day: day, text: line(s.SessionID, s.Text, id, s.Tags, fields...)})
	}
	return out
}

func sourceField(s string) string {
	if s = strings.Join(strings.Fields(s), "-"); s == "" {
		return "unknown"
	}
	return s
}

// appendLog appends the lines to their daily logs. Each file gets one
// write of whole lines in append mode, so a reader never sees half a line.
func (m *Mirror) appendLog(lines []logEntry) error {
	byDay := map[string][]string{}
	var days []string
	for _, l := range lines {
		if _, ok := byDay[l.day]; !ok {
			days = append(days, l.day)
		}
		byDay[l.day] = append(byDay[l.day], l.text)
	}
	for _, day := range days {
		path := filepath.Join(m.Dir, day+".md")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		var b strings.Builder
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			fmt.Fprintf(&b, "# Memory log %s\n\n", day)
		}
		for _, l := range byDay[day] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		_, werr := f.WriteString(b.String())
		serr := f.Sync()
		if cerr := f.Close(); werr == nil {
			werr = errors.Join(serr, cerr)
		}
		if werr != nil {
			return fmt.Errorf("memory log %s: %w", path, werr)
		}
	}
	return nil
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// WriteAtomic replaces path with data: a synced temp file in the same
// directory renamed over it, so a reader sees the old or the new file,
// never a mix, and a crash leaves one of them.
func WriteAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o600)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// lock takes an exclusive lock on path, waiting for other writers (the
// CLI and the daemon may write at the same time).
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = filelock.Unlock(f)
		f.Close()
	}, nil
}
