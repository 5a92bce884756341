package store

import (
	"context"
	"time"
)

// CorpusFailures returns the fingerprint of every file whose last ingest
// failed, by path.
func (s *Store) CorpusFailures(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, fingerprint FROM corpus_failures`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, fp string
		if err := rows.Scan(&p, &fp); err != nil {
			return nil, err
		}
		out[p] = fp
	}
	return out, rows.Err()
}

// FailureUpdate records (Fingerprint set) or clears (empty) the failure
// of one path.
type FailureUpdate struct {
	Path, Fingerprint, Reason string
}

// UpdateCorpusFailures applies updates in one transaction.
func (s *Store) UpdateCorpusFailures(ctx context.Context, updates []FailureUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().Unix()
	for _, u := range updates {
		if u.Fingerprint == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM corpus_failures WHERE path = ?`, u.Path)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO corpus_failures (path, fingerprint, reason, failed_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (path) DO UPDATE SET fingerprint = excluded.fingerprint, reason = excluded.reason, failed_at = excluded.failed_at`,
				u.Path, u.Fingerprint, u.Reason, now)
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}
