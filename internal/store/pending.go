package store

import (
	"context"
	"time"

	"github.com/askygo/asky/internal/procid"
)

// ownerlessPendingAge is how old a pending row without an owner (written
// before owners were recorded) must be before it counts as interrupted: no
// turn runs for a day.
const ownerlessPendingAge = 24 * time.Hour

// interruptedByExit is the error recorded on a pending turn whose process
// ended without finishing it.
const interruptedByExit = "asky stopped before the turn finished (killed, or the machine went down)"

// ReapPending marks as interrupted the pending turns whose process has
// ended (kill -9, a closed terminal, power loss), so history stops showing
// them as running, and returns their ids. A turn still running in another
// shell keeps its pending status: its owner is alive, and the owner's start
// time guards against a reused PID. Open runs it, so every reader (history,
// the TUI, the HTTP API, -c) sees the same state; readers that see a
// pending row later (a long-running daemon) run it again.
func (s *Store) ReapPending(ctx context.Context) (map[int64]bool, error) {
	type row struct {
		id             int64
		owner, created string
	}
	rows, err := queryAll(ctx, s.db, func(r scanner) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.owner, &x.created)
		return x, err
	}, `SELECT id, owner, created_at FROM turns WHERE status = '`+StatusPending+`'`) // a literal: the partial index turns_pending
	if err != nil {
		return nil, s.wrap(err)
	}
	reaped := map[int64]bool{}
	for _, x := range rows {
		if x.owner == "" {
			created, err := time.Parse(time.RFC3339Nano, x.created)
			if err != nil || s.now().Sub(created) < ownerlessPendingAge {
				continue
			}
		} else if !procid.Gone(x.owner) {
			continue
		}
		res, err := s.db.ExecContext(ctx, `UPDATE turns SET status = ?, error = ? WHERE id = ? AND status = ?`,
			StatusInterrupted, interruptedByExit, x.id, StatusPending)
		if err != nil {
			return reaped, s.wrap(err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			reaped[x.id] = true
		}
	}
	return reaped, nil
}

// reapQuietly runs ReapPending for a read: a database that cannot be
// written (read-only, disk full) still lists its history, with the row left
// pending.
func (s *Store) reapQuietly(ctx context.Context) map[int64]bool {
	reaped, _ := s.ReapPending(ctx)
	return reaped
}
