package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ChatSessionID returns the session a daemon chat was bound to with
// `/session new|child|<id>`, 0 when it uses its default session.
func (s *Store) ChatSessionID(ctx context.Context, conversation string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT bound_session_id FROM chat_sessions WHERE conversation = ?`, conversation).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("chat session of %s: %w", conversation, s.wrap(err))
	}
	return id, nil
}

// BindChatSession makes the chat continue session id from now on.
func (s *Store) BindChatSession(ctx context.Context, conversation string, id int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO chat_sessions(conversation, bound_session_id, updated_at) VALUES(?,?,?)
		ON CONFLICT(conversation) DO UPDATE SET bound_session_id = excluded.bound_session_id, updated_at = excluded.updated_at`,
		conversation, id, s.ts())
	if err != nil {
		return fmt.Errorf("bind chat %s to session %d: %w", conversation, id, s.wrap(err))
	}
	return nil
}

// SetChatSessionOwner records that the chat started session id, so its
// `/session clear` may empty it.
func (s *Store) SetChatSessionOwner(ctx context.Context, conversation string, id int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO chat_session_owners(owned_session_id, conversation) VALUES(?,?)`, id, conversation)
	if err != nil {
		return fmt.Errorf("record the chat of session %d: %w", id, s.wrap(err))
	}
	return nil
}

// ChatSessionOwner is the chat that started session id, "" when none did.
func (s *Store) ChatSessionOwner(ctx context.Context, id int64) (string, error) {
	var conv string
	err := s.db.QueryRowContext(ctx, `SELECT conversation FROM chat_session_owners WHERE owned_session_id = ?`, id).Scan(&conv)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("chat of session %d: %w", id, s.wrap(err))
	}
	return conv, nil
}

// ClearSessionTurns deletes a session's turns (their messages and usage
// cascade) and its compaction summary, keeping the session, its settings
// and its linked documents. It returns how many turns went.
func (s *Store) ClearSessionTurns(ctx context.Context, id int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.wrap(err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE session_id = ?`, id)
	if err != nil {
		return 0, fmt.Errorf("clear session %d: %w", id, s.wrap(err))
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET compacted_summary = '', compacted_through = 0 WHERE id = ?`, id); err != nil {
		return 0, fmt.Errorf("clear session %d: %w", id, s.wrap(err))
	}
	return n, s.wrap(tx.Commit())
}
