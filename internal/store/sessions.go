package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Session is a named (or unnamed) conversation that later turns continue.
type Session struct {
	ID         int64
	Name       string // empty = unnamed
	Model      string
	CreatedAt  time.Time
	LastUsedAt time.Time
	// CompactedSummary stands in for every turn with id <= CompactedThrough
	// when the conversation is sent to a model; those turns stay in the
	// database for history.
	CompactedSummary  string
	CompactedThrough  int64
	MaxTurns          int
	MemoryAutoExtract bool
	ShortlistOverride string // "", "on" or "off"
	Defaults          SessionDefaults
	// Turns is the number of turns, filled by list/get queries.
	Turns int
}

// SessionDefaults are query flags given with a session, re-applied to its
// later turns unless the flag is given again. It is stored as JSON in
// sessions.query_defaults (the original's keys).
type SessionDefaults struct {
	Model         string   `json:"model,omitempty"`
	Summarize     bool     `json:"summarize,omitempty"`
	Research      *string  `json:"research,omitempty"`
	Lean          bool     `json:"lean,omitempty"`
	SystemPrompt  string   `json:"system_prompt,omitempty"`
	ToolOff       []string `json:"tool_off,omitempty"`
	TerminalLines string   `json:"terminal_lines,omitempty"`
	// PendingAutoName marks a placeholder name to replace from the first
	// real question.
	PendingAutoName bool `json:"pending_auto_name,omitempty"`
}

// NameTakenError is returned when a session name is already used.
type NameTakenError struct{ Name string }

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("a session named %q already exists", e.Name)
}

// Hint names the next step.
func (e *NameTakenError) Hint() string {
	return fmt.Sprintf("resume it with `asky session use %s`, or pick another name", e.Name)
}

const sessionSelect = `SELECT s.id, COALESCE(s.name, ''), s.model, s.created_at, s.last_used_at, s.compacted_summary,
	s.compacted_through, s.max_turns, s.memory_auto_extract, s.shortlist_override, s.query_defaults,
	(SELECT count(*) FROM turns t WHERE t.session_id = s.id)
	FROM sessions s`

func scanSession(r scanner) (*Session, error) {
	var s Session
	var created, used, defaults string
	var mae int
	if err := r.Scan(&s.ID, &s.Name, &s.Model, &created, &used, &s.CompactedSummary, &s.CompactedThrough,
		&s.MaxTurns, &mae, &s.ShortlistOverride, &defaults, &s.Turns); err != nil {
		return nil, err
	}
	s.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	s.LastUsedAt, _ = time.Parse(time.RFC3339Nano, used)
	s.MemoryAutoExtract = mae != 0
	// Unreadable defaults (hand-edited, older versions) are ignored rather
	// than failing every turn of the session.
	_ = json.Unmarshal([]byte(defaults), &s.Defaults)
	return &s, nil
}

func (s *Store) querySessions(ctx context.Context, where string, args ...any) ([]*Session, error) {
	return queryAll(ctx, s.db, scanSession, sessionSelect+" "+where, args...)
}

func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// CreateSession inserts a session; an empty name stays unnamed.
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	ts := s.ts()
	defaults, _ := json.Marshal(sess.Defaults)
	res, err := s.db.ExecContext(ctx, `INSERT INTO sessions(name, model, created_at, last_used_at, max_turns, memory_auto_extract, shortlist_override, query_defaults)
		VALUES(?,?,?,?,?,?,?,?)`, nullName(sess.Name), sess.Model, ts, ts, sess.MaxTurns, boolInt(sess.MemoryAutoExtract), sess.ShortlistOverride, string(defaults))
	if isUniqueViolation(err) {
		return &NameTakenError{Name: sess.Name}
	}
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	sess.ID, _ = res.LastInsertId()
	sess.CreatedAt, _ = time.Parse(time.RFC3339Nano, ts)
	sess.LastUsedAt = sess.CreatedAt
	return nil
}

// GetSession loads one session.
func (s *Store) GetSession(ctx context.Context, id int64) (*Session, error) {
	list, err := s.querySessions(ctx, "WHERE s.id = ?", id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("session %d: %w", id, ErrNotFound)
	}
	return list[0], nil
}

// SessionByName finds the session with exactly this name.
func (s *Store) SessionByName(ctx context.Context, name string) (*Session, error) {
	list, err := s.querySessions(ctx, "WHERE s.name = ?", name)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("session %q: %w", name, ErrNotFound)
	}
	return list[0], nil
}

// FindSessions returns up to limit sessions whose name contains sub,
// ignoring case, most recently used first.
func (s *Store) FindSessions(ctx context.Context, sub string, limit int) ([]*Session, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(sub)
	return s.querySessions(ctx, `WHERE s.name LIKE ? ESCAPE '\' ORDER BY s.last_used_at DESC, s.id DESC LIMIT ?`, "%"+esc+"%", limit)
}

// ListSessions returns the most recently used sessions first.
func (s *Store) ListSessions(ctx context.Context, limit int) ([]*Session, error) {
	return s.querySessions(ctx, "ORDER BY s.last_used_at DESC, s.id DESC LIMIT ?", limit)
}

// SessionNames returns up to limit session names, most recent first
// (shell completion).
func (s *Store) SessionNames(ctx context.Context, limit int) ([]string, error) {
	return queryAll(ctx, s.db, scanValue[string], `SELECT name FROM sessions WHERE name IS NOT NULL ORDER BY last_used_at DESC LIMIT ?`, limit)
}

// RenameSession changes a session's name.
func (s *Store) RenameSession(ctx context.Context, id int64, name string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET name = ? WHERE id = ?`, nullName(name), id)
	if isUniqueViolation(err) {
		return &NameTakenError{Name: name}
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %d: %w", id, ErrNotFound)
	}
	return nil
}

// UpdateSessionSettings stores the per-session settings (model, defaults,
// max turns, shortlist, memory extraction).
func (s *Store) UpdateSessionSettings(ctx context.Context, sess *Session) error {
	defaults, _ := json.Marshal(sess.Defaults)
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET model = ?, max_turns = ?, memory_auto_extract = ?, shortlist_override = ?, query_defaults = ? WHERE id = ?`,
		sess.Model, sess.MaxTurns, boolInt(sess.MemoryAutoExtract), sess.ShortlistOverride, string(defaults), sess.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %d: %w", sess.ID, ErrNotFound)
	}
	return nil
}

// TouchSession marks a session as used now.
func (s *Store) TouchSession(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET last_used_at = ? WHERE id = ?`, s.ts(), id)
	return err
}

// ErrCompactionRace is returned when another process compacted the session
// first; the caller reloads the session and uses that summary.
var ErrCompactionRace = errors.New("the session was compacted by another asky process")

// SetCompaction records that turns up to through are replaced by summary
// when the session is sent to a model. It only applies when the session is
// still compacted through prev, so two shells using one session cannot
// overwrite each other's summaries.
func (s *Store) SetCompaction(ctx context.Context, id int64, summary string, prev, through int64) error {
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET compacted_summary = ?, compacted_through = ? WHERE id = ? AND compacted_through = ?`, summary, through, id, prev)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrCompactionRace
	}
	return nil
}

// SessionTurns returns a session's turns with id > after, oldest first,
// without messages.
func (s *Store) SessionTurns(ctx context.Context, id, after int64) ([]*Turn, error) {
	return queryAll(ctx, s.db, scanTurn, turnSelect+` WHERE t.session_id = ? AND t.id > ? ORDER BY t.id`, id, after)
}

// TurnSummaries returns the cached summaries of a turn ("" when absent).
func (s *Store) TurnSummaries(ctx context.Context, id int64) (query, answer string, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT query_summary, answer_summary FROM turns WHERE id = ?`, id).Scan(&query, &answer)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("history id %d: %w", id, ErrNotFound)
	}
	return query, answer, err
}

// SetTurnSummaries caches summaries of a turn's question and answer.
func (s *Store) SetTurnSummaries(ctx context.Context, id int64, query, answer string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE turns SET query_summary = ?, answer_summary = ? WHERE id = ?`, query, answer, id)
	return err
}

// RecentTurnIDs returns the ids of the n most recent turns, newest first
// (~1 is the first).
func (s *Store) RecentTurnIDs(ctx context.Context, n int) ([]int64, error) {
	return s.queryIDs(ctx, `SELECT id FROM turns ORDER BY id DESC LIMIT ?`, n)
}

// MoveTurnToSession attaches a one-shot turn to a session (history →
// session conversion).
func (s *Store) MoveTurnToSession(ctx context.Context, turnID, sessionID int64) error {
	res, err := s.db.ExecContext(ctx, `UPDATE turns SET session_id = ? WHERE id = ?`, sessionID, turnID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("history id %d: %w", turnID, ErrNotFound)
	}
	return nil
}

// sessionLinkedTables lists tables other than turns that hold rows of a
// session (research findings, corpus links…), found by their session_id
// column so tables added by later migrations are covered. Memory tables are
// excluded: what asky learned about the user outlives a conversation.
func (s *Store) sessionLinkedTables(ctx context.Context, tx *sql.Tx) ([]string, error) {
	return queryAll(ctx, tx, scanValue[string], `SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND p.name = 'session_id' AND m.name NOT IN ('turns', 'sessions')
		AND m.name NOT LIKE '%memor%' AND m.name NOT LIKE '%fts%' ORDER BY m.name`)
}

func (s *Store) deleteLinked(ctx context.Context, tx *sql.Tx, ids []int64) (int64, error) {
	tables, err := s.sessionLinkedTables(ctx, tx)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, t := range tables {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, `DELETE FROM "`+t+`" WHERE session_id = ?`, id)
			if err != nil {
				return 0, fmt.Errorf("delete from %s: %w", t, err)
			}
			n, _ := res.RowsAffected()
			total += n
		}
	}
	return total, nil
}

// DeleteSessions deletes sessions with their turns and linked research rows
// in one transaction and returns how many turns went with them.
func (s *Store) DeleteSessions(ctx context.Context, ids []int64) (turns int64, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := s.deleteLinked(ctx, tx, ids); err != nil {
		return 0, err
	}
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE session_id = ?`, id)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		turns += n
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
			return 0, err
		}
	}
	return turns, tx.Commit()
}

// AllSessionIDs returns every session id.
func (s *Store) AllSessionIDs(ctx context.Context) ([]int64, error) {
	return s.queryIDs(ctx, `SELECT id FROM sessions ORDER BY id`)
}

// CleanSessionResearch deletes a session's research rows (findings, corpus
// links) and keeps its turns. It returns the number of rows removed.
func (s *Store) CleanSessionResearch(ctx context.Context, id int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := s.deleteLinked(ctx, tx, []int64{id})
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

func nullName(n string) any {
	if n == "" {
		return nil
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
