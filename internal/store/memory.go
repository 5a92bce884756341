package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Memory is one saved fact about the user.
type Memory struct {
	ID int64
	// SessionID scopes the memory to a session; 0 = global.
	SessionID int64
	Text      string
	Tags      []string
	// Embedding is the vector of Text under EmbeddingModel (the embedder
	// fingerprint); both are empty when no embedder produced one.
	Embedding      []float32
	EmbeddingModel string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// Provenance names the untrusted content the turn that saved the
	// memory had read ("" for a memory the user gave).
	Provenance string
	// Unconfirmed is set while a memory with provenance waits for
	// `asky memory confirm`; it is recalled only in its own session.
	Unconfirmed bool
	// SessionName is filled by reads for display.
	SessionName string
	// Rank is the FTS5 bm25 rank of a candidate (lower is better); 0
	// outside MemoryCandidates.
	Rank float64
}

// MemoryScope selects which memories a read sees. The zero value is the
// global memories only.
type MemoryScope struct {
	// All selects every memory, global and session-scoped.
	All bool
	// SessionID adds that session's memories to the global ones.
	SessionID int64
	// Confirmed leaves out unconfirmed memories, except SessionID's own:
	// what recall and deduplication may use.
	Confirmed bool
}

func (sc MemoryScope) where() (string, []any) {
	var where string
	var args []any
	switch {
	case sc.All:
		where = "1"
	case sc.SessionID != 0:
		where, args = "(m.session_id IS NULL OR m.session_id = ?)", []any{sc.SessionID}
	default:
		where = "m.session_id IS NULL"
	}
	if sc.Confirmed {
		if sc.SessionID != 0 {
			where += " AND (m.confirmed = 1 OR m.session_id = ?)"
			args = append(args, sc.SessionID)
		} else {
			where += " AND m.confirmed = 1"
		}
	}
	return where, args
}

const memorySelect = `SELECT m.id, COALESCE(m.session_id, 0), m.text, m.tags, m.embedding, m.embedding_model,
	m.created_at, m.updated_at, COALESCE(s.name, ''), m.provenance, m.confirmed = 0`

func scanMemory(r scanner, extra ...any) (*Memory, error) {
	var m Memory
	var tags, created, updated string
	var emb []byte
	dest := append([]any{&m.ID, &m.SessionID, &m.Text, &tags, &emb, &m.EmbeddingModel, &created, &updated, &m.SessionName, &m.Provenance, &m.Unconfirmed}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(tags), &m.Tags)
	m.Embedding = unpackMemoryVector(emb)
	m.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	m.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return &m, nil
}

// SaveMemory inserts m when m.ID is 0, otherwise replaces the text, tags
// and embedding of memory m.ID. It returns the id.
func (s *Store) SaveMemory(ctx context.Context, m *Memory) (int64, error) {
	tags, _ := json.Marshal(nonNil(m.Tags))
	ts := s.ts()
	if m.ID == 0 {
		res, err := s.db.ExecContext(ctx, `INSERT INTO memories(session_id, text, tags, embedding, embedding_model, created_at, updated_at, provenance, confirmed)
			VALUES(?,?,?,?,?,?,?,?,?)`, nullID(m.SessionID), m.Text, string(tags), packMemoryVector(m.Embedding), m.EmbeddingModel, ts, ts,
			m.Provenance, !m.Unconfirmed)
		if err != nil {
			return 0, fmt.Errorf("save memory: %w", err)
		}
		m.ID, _ = res.LastInsertId()
		return m.ID, nil
	}
	res, err := s.db.ExecContext(ctx, `UPDATE memories SET text = ?, tags = ?, embedding = ?, embedding_model = ?, updated_at = ? WHERE id = ?`,
		m.Text, string(tags), packMemoryVector(m.Embedding), m.EmbeddingModel, ts, m.ID)
	if err != nil {
		return 0, fmt.Errorf("update memory %d: %w", m.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, fmt.Errorf("memory %d: %w", m.ID, ErrNotFound)
	}
	return m.ID, nil
}

// ConfirmMemory marks memory id as confirmed by the user, so it is
// recalled like any other; it returns ErrNotFound for an unknown id.
func (s *Store) ConfirmMemory(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `UPDATE memories SET confirmed = 1 WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("confirm memory %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return nil
}

// SetMemoryEmbedding stores a (re)computed vector without touching
// updated_at: re-embedding is not an edit.
func (s *Store) SetMemoryEmbedding(ctx context.Context, id int64, vec []float32, model string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ?`, packMemoryVector(vec), model, id)
	return err
}

// GetMemory loads one memory.
func (s *Store) GetMemory(ctx context.Context, id int64) (*Memory, error) {
	row := s.db.QueryRowContext(ctx, memorySelect+` FROM memories m LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id = ?`, id)
	m, err := scanMemory(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return m, err
}

// ListMemories returns the memories in scope, oldest first.
func (s *Store) ListMemories(ctx context.Context, scope MemoryScope) ([]*Memory, error) {
	where, args := scope.where()
	rows, err := s.db.QueryContext(ctx, memorySelect+` FROM memories m LEFT JOIN sessions s ON s.id = m.session_id WHERE `+where+` ORDER BY m.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	defer rows.Close()
	var out []*Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CountMemories counts the memories in scope.
func (s *Store) CountMemories(ctx context.Context, scope MemoryScope) (int, error) {
	where, args := scope.where()
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memories m WHERE `+where, args...).Scan(&n)
	return n, err
}

// MemoryCandidates runs an FTS5 query (already in FTS5 syntax) over the
// memories in scope and returns up to limit matches, best bm25 first.
func (s *Store) MemoryCandidates(ctx context.Context, match string, scope MemoryScope, limit int) ([]*Memory, error) {
	where, args := scope.where()
	q := memorySelect + `, bm25(memories_fts) FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
		LEFT JOIN sessions s ON s.id = m.session_id
		WHERE memories_fts MATCH ? AND ` + where + ` ORDER BY bm25(memories_fts), m.id LIMIT ?`
	rows, err := s.db.QueryContext(ctx, q, append(append([]any{match}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", err)
	}
	defer rows.Close()
	var out []*Memory
	for rows.Next() {
		var m *Memory
		var rank float64
		if m, err = scanMemory(rows, &rank); err != nil {
			return nil, err
		}
		m.Rank = rank
		out = append(out, m)
	}
	return out, rows.Err()
}

// DeleteMemories deletes the given ids and returns those that existed.
func (s *Store) DeleteMemories(ctx context.Context, ids []int64) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var deleted []int64
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
		if err != nil {
			return nil, fmt.Errorf("delete memory %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			deleted = append(deleted, id)
		}
	}
	return deleted, tx.Commit()
}

// ClearMemories deletes every memory in scope and returns how many.
func (s *Store) ClearMemories(ctx context.Context, scope MemoryScope) (int64, error) {
	where, args := scope.where()
	res, err := s.db.ExecContext(ctx, `DELETE FROM memories AS m WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("clear memories: %w", err)
	}
	return res.RowsAffected()
}

// packMemoryVector stores a vector as little-endian float32s (NULL when empty).
func packMemoryVector(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func unpackMemoryVector(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
