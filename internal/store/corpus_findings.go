package store

// This file holds findings: facts the model saved during a research
// session, each with its vector so a later turn can recall them.

import (
	"context"
	"time"
)

// Finding is a fact the model saved during a research session.
type Finding struct {
	ID          int64
	SessionID   int64
	Text        string
	SourceURL   string
	SourceTitle string
	Tags        string // JSON array
	Fingerprint string
	Vec         []float32
	CreatedAt   time.Time
}

// AddFinding stores a finding.
func (s *Store) AddFinding(ctx context.Context, f *Finding) (int64, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO corpus_findings (session_id, finding, source_url, source_title, tags, fingerprint, vec, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		f.SessionID, f.Text, f.SourceURL, f.SourceTitle, f.Tags, f.Fingerprint, EncodeVector(f.Vec), s.ts())
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Findings returns the findings of a session (0 = one-shot findings).
func (s *Store) Findings(ctx context.Context, sessionID int64) ([]Finding, error) {
	return queryAll(ctx, s.db, scanFinding, `SELECT id, session_id, finding, source_url, source_title, tags, fingerprint, vec, created_at FROM corpus_findings WHERE session_id = ? ORDER BY id`, sessionID)
}

func scanFinding(r scanner) (Finding, error) {
	var f Finding
	var vec []byte
	var created string
	if err := r.Scan(&f.ID, &f.SessionID, &f.Text, &f.SourceURL, &f.SourceTitle, &f.Tags, &f.Fingerprint, &vec, &created); err != nil {
		return f, err
	}
	f.Vec = DecodeVectorInto(nil, vec)
	f.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return f, nil
}
