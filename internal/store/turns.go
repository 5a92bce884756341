package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askygo/asky/internal/procid"
)

// Turn is one question and its answer, with everything exchanged in between.
type Turn struct {
	ID        int64
	SessionID int64 // 0 = one-shot
	CreatedAt time.Time
	Model     string
	Query     string
	// Input is piped stdin sent with the question (already fenced).
	Input  string
	Answer string
	// Status is "complete", "interrupted", "error" or "pending".
	Status    string
	Error     string
	ElapsedMS int64
	Sources   []Source
	Messages  []Message
	Calls     []LLMCall
	// SessionName is filled by list/show queries for display.
	SessionName string
}

// Turn statuses.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusError       = "error"
	// StatusPending is a question saved before its first model call whose
	// turn has not finished. If its process was killed (kill -9, power
	// loss), reading history turns it into interrupted (ReapPending).
	StatusPending = "pending"
)

// Source is a URL or corpus handle the turn actually retrieved.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Message is one stored message of a turn, in the order it was exchanged.
type Message struct {
	Role       string
	Content    string
	ToolCalls  string // JSON array, assistant messages only
	ToolCallID string
	Name       string
}

// LLMCall is the usage of one model call.
type LLMCall struct {
	Purpose          string
	Model            string
	PromptTokens     int
	CompletionTokens int
	CostUSD          float64
	LatencyMS        int64
}

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("not found")

// The statements that save a turn (CheckSchema prepares them).
const (
	insertTurnSQL = `INSERT INTO turns(session_id, created_at, model, query, input, answer, status, error, elapsed_ms, sources)
		VALUES(?,?,?,?,?,?,?,?,?,?)`
	// beginTurnSQL saves a pending question with the process that owns it
	// (see ReapPending).
	beginTurnSQL = `INSERT INTO turns(session_id, created_at, model, query, input, answer, status, error, elapsed_ms, sources, owner)
		VALUES(?,?,?,?,?,'',?,'',0,'[]',?)`
	insertMessageSQL = `INSERT INTO messages(turn_id, seq, role, content, tool_calls, tool_call_id, name) VALUES(?,?,?,?,?,?,?)`
	insertCallSQL    = `INSERT INTO llm_calls(turn_id, created_at, purpose, model, prompt_tokens, completion_tokens, cost_usd, latency_ms) VALUES(?,?,?,?,?,?,?,?)`
)

// BeginTurn saves t's question with status pending before any model is
// called, so a kill -9 or a closed terminal never loses it; SaveTurn with
// the id it sets in t.ID then completes the same row.
func (s *Store) BeginTurn(ctx context.Context, t *Turn) (int64, error) {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.now()
	}
	res, err := s.db.ExecContext(ctx, beginTurnSQL, nullID(t.SessionID), t.CreatedAt.UTC().Format(time.RFC3339Nano), t.Model, t.Query, t.Input,
		StatusPending, procid.Self())
	if err != nil {
		return 0, fmt.Errorf("save question: %w", s.wrap(err))
	}
	t.ID, _ = res.LastInsertId()
	return t.ID, nil
}

// FailTurn marks a pending turn as failed with msg, when saving the whole
// turn did not work: a small update may still fit where the answer and its
// messages did not, and "error" says more than "pending" in history.
func (s *Store) FailTurn(ctx context.Context, id int64, msg string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE turns SET status = ?, error = ? WHERE id = ? AND status = ?`, StatusError, msg, id, StatusPending)
	return s.wrap(err)
}

// SaveTurn writes a turn with its messages and calls in one transaction and
// returns its id (the history id). With t.ID set (BeginTurn) it completes
// that row; if the row is gone (deleted meanwhile) a new one is written. A save that fails or is interrupted
// (context cancelled, process killed) leaves nothing behind: the
// transaction is rolled back, or never reaches the WAL commit.
func (s *Store) SaveTurn(ctx context.Context, t *Turn) (int64, error) {
	if t.Status == "" {
		t.Status = StatusComplete
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.now()
	}
	src, _ := json.Marshal(nonNil(t.Sources))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.wrap(err)
	}
	defer tx.Rollback()
	id := t.ID
	if id != 0 {
		res, err := tx.ExecContext(ctx, `UPDATE turns SET model = ?, query = ?, input = ?, answer = ?, status = ?, error = ?, elapsed_ms = ?, sources = ?
			WHERE id = ? AND status = ?`, t.Model, t.Query, t.Input, t.Answer, t.Status, t.Error, t.ElapsedMS, string(src), id, StatusPending)
		if err != nil {
			return 0, fmt.Errorf("save turn: %w", s.wrap(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			id = 0
		}
	}
	if id == 0 {
		res, err := tx.ExecContext(ctx, insertTurnSQL, nullID(t.SessionID), t.CreatedAt.UTC().Format(time.RFC3339Nano), t.Model, t.Query, t.Input, t.Answer, t.Status, t.Error, t.ElapsedMS, string(src))
		if err != nil {
			return 0, fmt.Errorf("save turn: %w", s.wrap(err))
		}
		id, _ = res.LastInsertId()
	}
	for i, m := range t.Messages {
		if _, err := tx.ExecContext(ctx, insertMessageSQL,
			id, i, m.Role, m.Content, m.ToolCalls, m.ToolCallID, m.Name); err != nil {
			return 0, fmt.Errorf("save message: %w", s.wrap(err))
		}
	}
	ts := s.ts()
	for _, c := range t.Calls {
		if _, err := tx.ExecContext(ctx, insertCallSQL,
			id, ts, c.Purpose, c.Model, c.PromptTokens, c.CompletionTokens, c.CostUSD, c.LatencyMS); err != nil {
			return 0, fmt.Errorf("save usage: %w", s.wrap(err))
		}
	}
	if t.SessionID != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last_used_at = ? WHERE id = ?`, ts, t.SessionID); err != nil {
			return 0, s.wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, s.wrap(err)
	}
	t.ID = id
	return id, nil
}

// GetTurn loads one turn with its messages and usage.
func (s *Store) GetTurn(ctx context.Context, id int64) (*Turn, error) {
	row := s.db.QueryRowContext(ctx, turnSelect+` WHERE t.id = ?`, id)
	t, err := scanTurn(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("history id %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	if t.Status == StatusPending && s.reapQuietly(ctx)[id] {
		t.Status, t.Error = StatusInterrupted, interruptedByExit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT role, content, tool_calls, tool_call_id, name FROM messages WHERE turn_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m Message
		if err := rows.Scan(&m.Role, &m.Content, &m.ToolCalls, &m.ToolCallID, &m.Name); err != nil {
			return nil, s.wrap(err)
		}
		t.Messages = append(t.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	crows, err := s.db.QueryContext(ctx, `SELECT purpose, model, prompt_tokens, completion_tokens, cost_usd, latency_ms FROM llm_calls WHERE turn_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer crows.Close()
	for crows.Next() {
		var c LLMCall
		if err := crows.Scan(&c.Purpose, &c.Model, &c.PromptTokens, &c.CompletionTokens, &c.CostUSD, &c.LatencyMS); err != nil {
			return nil, s.wrap(err)
		}
		t.Calls = append(t.Calls, c)
	}
	return t, s.wrap(crows.Err())
}

// ListTurns returns the most recent turns, newest first, without messages.
func (s *Store) ListTurns(ctx context.Context, limit int) ([]*Turn, error) {
	out, err := queryAll(ctx, s.db, scanTurn, turnSelect+` ORDER BY t.id DESC LIMIT ?`, limit)
	return out, s.wrap(err)
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs a query and scans every row with scan.
func queryAll[T any](ctx context.Context, db querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanValue scans a one-column row.
func scanValue[T any](r scanner) (T, error) {
	var v T
	err := r.Scan(&v)
	return v, err
}

const turnSelect = `SELECT t.id, COALESCE(t.session_id, 0), t.created_at, t.model, t.query, t.input, t.answer, t.status, t.error, t.elapsed_ms, t.sources, COALESCE(s.name, '')
	FROM turns t LEFT JOIN sessions s ON s.id = t.session_id`

type scanner interface{ Scan(...any) error }

func scanTurn(r scanner) (*Turn, error) {
	var t Turn
	var created, sources string
	if err := r.Scan(&t.ID, &t.SessionID, &created, &t.Model, &t.Query, &t.Input, &t.Answer, &t.Status, &t.Error, &t.ElapsedMS, &sources, &t.SessionName); err != nil {
		return nil, err
	}
	t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	_ = json.Unmarshal([]byte(sources), &t.Sources)
	return &t, nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
