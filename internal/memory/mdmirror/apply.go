package mdmirror

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/store"
)

// Store is what applying markdown needs from the database.
type Store interface {
	Lister
	DeleteMemories(ctx context.Context, ids []int64) ([]int64, error)
	GetSession(ctx context.Context, id int64) (*store.Session, error)
}

// Saver saves and updates memories with their embeddings
// (*memory.Service).
type Saver interface {
	Save(ctx context.Context, text string, tags []string, sessionID int64) (memory.SaveResult, error)
	Update(ctx context.Context, m *store.Memory, text string, tags []string) error
}

// Options say how entries are applied.
type Options struct {
	// File names the source in errors.
	File string
	// Exact makes the database match the entries: ids it has that the
	// entries lack are removed (edit, reindex). Off for import, which only
	// adds (ids are ignored: they belong to another database).
	Exact bool
	// Reembed re-embeds unchanged facts too (reindex).
	Reembed bool
	// Removable limits removals to the ids the file showed (nil: all).
	Removable func(id int64) bool
}

// Summary counts what Apply did.
type Summary struct {
	Added, Changed, Removed, Unchanged int
	// HeldBack is set when removals were skipped because a line could not
	// be read: it may have been one of the facts.
	HeldBack bool
	Errors   []LineError
	// StillUnconfirmed are the unconfirmed memories whose line lost its
	// `unconfirmed` mark: markdown never confirms a memory, so they stay
	// unconfirmed until `asky memory confirm`.
	StillUnconfirmed []int64
}

func (s Summary) String() string {
	out := fmt.Sprintf("%d added, %d changed, %d removed, %d unchanged", s.Added, s.Changed, s.Removed, s.Unchanged)
	if s.HeldBack {
		out += " (removals held back: fix the lines above and run again)"
	}
	return out
}

// Apply makes the memories follow entries. Lines already rejected by
// Parse come in parseErrs; a line that cannot be applied (unknown
// session, empty fact, duplicate id) joins them, reported and skipped.
// With any error, nothing is removed.
func Apply(ctx context.Context, st Store, sv Saver, entries []Entry, parseErrs []LineError, o Options) (Summary, error) {
	sum := Summary{Errors: slices.Clone(parseErrs)}
	all, err := st.ListMemories(ctx, store.MemoryScope{All: true})
	if err != nil {
		return sum, err
	}
	byID := make(map[int64]*store.Memory, len(all))
	byText := make(map[scopedText]int64, len(all))
	for _, m := range all {
		byID[m.ID] = m
		byText[scopedText{m.SessionID, oneLine(m.Text)}] = m.ID
	}
	seen := map[int64]bool{}
	sessions := map[int64]bool{}
	bad := func(e Entry, format string, args ...any) {
		sum.Errors = append(sum.Errors, LineError{File: o.File, Line: e.Line, Text: e.Text, Msg: fmt.Sprintf(format, args...)})
	}
	for _, e := range entries {
		if e.SessionID != 0 {
			ok, known := sessions[e.SessionID]
			if !known {
				_, err := st.GetSession(ctx, e.SessionID)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return sum, err
				}
				ok = err == nil
				sessions[e.SessionID] = ok
			}
			if !ok {
				bad(e, "session %d does not exist", e.SessionID)
				continue
			}
		}
		if !o.Exact {
			e.ID = 0
		}
		cur := byID[e.ID]
		if e.ID != 0 && seen[e.ID] {
			bad(e, "id %d appears twice", e.ID)
			continue
		}
		if cur != nil && cur.SessionID != e.SessionID {
			// A fact moved to another scope is a new fact there, as
			// unconfirmed as it was.
			if cur.Unconfirmed {
				e.Unconfirmed, e.Provenance = true, cmp.Or(cur.Provenance, e.Provenance)
			}
			cur = nil
		}
		if cur != nil {
			seen[e.ID] = true
			if cur.Unconfirmed && !e.Unconfirmed {
				sum.StillUnconfirmed = append(sum.StillUnconfirmed, cur.ID)
			}
			if cur.Text == e.Text && slices.Equal(memory.CleanTags(cur.Tags), memory.CleanTags(e.Tags)) && !o.Reembed {
				sum.Unchanged++
				continue
			}
			unchanged := cur.Text == e.Text
			if err := sv.Update(ctx, cur, e.Text, e.Tags); err != nil {
				if isInputError(err) {
					bad(e, "%v", err)
					continue
				}
				return sum, err
			}
			if unchanged {
				sum.Unchanged++
			} else {
				sum.Changed++
			}
			continue
		}
		saveCtx := ctx
		if id, ok := byText[scopedText{e.SessionID, oneLine(e.Text)}]; ok && !e.Unconfirmed && byID[id] != nil && byID[id].Unconfirmed {
			// The words of an unconfirmed fact without its comment are
			// still that fact: retyping it does not confirm it.
			seen[id] = true
			sum.Unchanged++
			sum.StillUnconfirmed = append(sum.StillUnconfirmed, id)
			continue
		}
		if e.Unconfirmed {
			// Saved unconfirmed, as it was; such a save never merges into
			// another memory, so an identical fact already here is the
			// same one (importing twice changes nothing).
			if id, ok := byText[scopedText{e.SessionID, oneLine(e.Text)}]; ok {
				seen[id] = true
				sum.Unchanged++
				continue
			}
			saveCtx = memory.WithUntrusted(ctx, cmp.Or(e.Provenance, "unknown source (marked unconfirmed in "+cmp.Or(o.File, "markdown")+")"))
		}
		r, err := sv.Save(saveCtx, e.Text, e.Tags, e.SessionID)
		if err != nil {
			if isInputError(err) {
				bad(e, "%v", err)
				continue
			}
			return sum, err
		}
		seen[r.ID] = true
		byText[scopedText{e.SessionID, oneLine(e.Text)}] = r.ID
		if r.Updated {
			sum.Unchanged++
		} else {
			sum.Added++
		}
	}
	if !o.Exact {
		return sum, nil
	}
	if len(sum.Errors) > 0 {
		sum.HeldBack = true
		return sum, nil
	}
	var gone []int64
	for _, m := range all {
		if !seen[m.ID] && (o.Removable == nil || o.Removable(m.ID)) {
			gone = append(gone, m.ID)
		}
	}
	if len(gone) > 0 {
		deleted, err := st.DeleteMemories(ctx, gone)
		if err != nil {
			return sum, err
		}
		sum.Removed = len(deleted)
	}
	return sum, nil
}

// scopedText identifies a fact by scope and words.
type scopedText struct {
	sessionID int64
	text      string
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func isInputError(err error) bool {
	return errors.Is(err, memory.ErrEmpty) || errors.Is(err, memory.ErrTooLong)
}
