package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// previewChars bounds the answer text a listing loads per row, so listing
// never reads whole answers.
const previewChars = 400

// HistoryEntry is one row of a history listing: a turn without its
// messages, with only the start of its answer.
type HistoryEntry struct {
	ID            int64
	SessionID     int64 // 0 = one-shot
	SessionName   string
	CreatedAt     time.Time
	Model         string
	Query         string
	AnswerPreview string
	Status        string
	Error         string
}

// ListHistory returns the limit most recent turns, newest first.
func (s *Store) ListHistory(ctx context.Context, limit int) ([]HistoryEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, COALESCE(t.session_id, 0), COALESCE(s.name, ''), t.created_at, t.model,
		t.query, substr(t.answer, 1, ?), t.status, t.error
		FROM turns t LEFT JOIN sessions s ON s.id = t.session_id ORDER BY t.id DESC LIMIT ?`, previewChars, limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []HistoryEntry
	for rows.Next() {
		var e HistoryEntry
		var created string
		if err := rows.Scan(&e.ID, &e.SessionID, &e.SessionName, &created, &e.Model, &e.Query, &e.AnswerPreview, &e.Status, &e.Error); err != nil {
			return nil, s.wrap(err)
		}
		e.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	for i := range out {
		if out[i].Status == StatusPending {
			reaped := s.reapQuietly(ctx)
			for j := range out {
				if reaped[out[j].ID] {
					out[j].Status, out[j].Error = StatusInterrupted, interruptedByExit
				}
			}
			break
		}
	}
	return out, nil
}

// CountTurns returns the number of stored turns.
func (s *Store) CountTurns(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM turns`).Scan(&n)
	return n, s.wrap(err)
}

// Resolution is the outcome of resolving a selector: the turn ids found,
// in selector order without duplicates, and the items that matched
// nothing (reported to the user, never silently dropped).
type Resolution struct {
	IDs     []int64
	Missing []SelectorItem
}

// ResolveHistory finds the turns sel names. Ranges are resolved in SQL, so
// 1-9223372036854775807 costs what the table holds, not what it spans.
func (s *Store) ResolveHistory(ctx context.Context, sel HistorySelector) (Resolution, error) {
	var res Resolution
	seen := map[int64]bool{}
	for _, it := range sel.Items {
		var q string
		var args []any
		switch {
		case it.Relative:
			// OFFSET is From-1 >= 0; LIMIT To-From+1 fits in int64 because
			// both are positive.
			q, args = `SELECT id FROM turns ORDER BY id DESC LIMIT ? OFFSET ?`, []any{it.To - it.From + 1, it.From - 1}
		default:
			q, args = `SELECT id FROM turns WHERE id BETWEEN ? AND ? ORDER BY id`, []any{it.From, it.To}
		}
		ids, err := s.queryIDs(ctx, q, args...)
		if err != nil {
			return Resolution{}, err
		}
		if len(ids) == 0 {
			res.Missing = append(res.Missing, it)
			continue
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				res.IDs = append(res.IDs, id)
			}
		}
	}
	return res, nil
}

func (s *Store) queryIDs(ctx context.Context, q string, args ...any) ([]int64, error) {
	ids, err := queryAll(ctx, s.db, scanValue[int64], q, args...)
	return ids, s.wrap(err)
}

// GetTurns loads the turns with ids, in that order.
func (s *Store) GetTurns(ctx context.Context, ids []int64) ([]*Turn, error) {
	out := make([]*Turn, 0, len(ids))
	for _, id := range ids {
		t, err := s.GetTurn(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// deleteBatch keeps IN lists far below SQLite's variable limit.
const deleteBatch = 500

// DeleteTurns deletes the turns with ids, with their messages and usage
// (ON DELETE CASCADE), in one transaction: either all go or none.
func (s *Store) DeleteTurns(ctx context.Context, ids []int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.wrap(err)
	}
	defer tx.Rollback()
	var n int64
	for len(ids) > 0 {
		batch := ids[:min(len(ids), deleteBatch)]
		ids = ids[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE id IN (`+strings.Repeat("?,", len(batch)-1)+`?)`, args...)
		if err != nil {
			return 0, fmt.Errorf("delete turns: %w", s.wrap(err))
		}
		k, _ := res.RowsAffected()
		n += k
	}
	if err := tx.Commit(); err != nil {
		return 0, s.wrap(err)
	}
	return n, nil
}

// DeleteAllTurns empties the history (messages and usage cascade) and
// returns how many turns were deleted.
func (s *Store) DeleteAllTurns(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM turns`)
	if err != nil {
		return 0, fmt.Errorf("delete turns: %w", s.wrap(err))
	}
	return res.RowsAffected()
}
