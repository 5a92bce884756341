package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ChatConfirm is a daemon chat's open yes/no question.
type ChatConfirm struct {
	// What names the question in replies ("the transcript").
	What string
	// Question is asked in the chat on yes; empty for an action that
	// lives only in the daemon's memory.
	Question string
	// No is the reply to a no.
	No      string
	Created time.Time
}

// SaveChatConfirm makes c the conversation's open question, replacing
// the one it had.
func (s *Store) SaveChatConfirm(ctx context.Context, conversation string, c ChatConfirm) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO chat_confirms(conversation, what, question, no_reply, created_at) VALUES(?,?,?,?,?)
		ON CONFLICT(conversation) DO UPDATE SET what = excluded.what, question = excluded.question,
		no_reply = excluded.no_reply, created_at = excluded.created_at`,
		conversation, c.What, c.Question, c.No, c.Created.UTC().Format(webTimeLayout))
	if err != nil {
		return fmt.Errorf("keep the open question of %s: %w", conversation, s.wrap(err))
	}
	return nil
}

// ChatConfirm returns the conversation's open question; ok is false when
// it has none.
func (s *Store) ChatConfirm(ctx context.Context, conversation string) (c ChatConfirm, ok bool, err error) {
	return s.chatConfirm(ctx, `SELECT what, question, no_reply, created_at FROM chat_confirms WHERE conversation = ?`, conversation)
}

// TakeChatConfirm removes and returns the conversation's open question.
func (s *Store) TakeChatConfirm(ctx context.Context, conversation string) (c ChatConfirm, ok bool, err error) {
	return s.chatConfirm(ctx, `DELETE FROM chat_confirms WHERE conversation = ? RETURNING what, question, no_reply, created_at`, conversation)
}

func (s *Store) chatConfirm(ctx context.Context, query, conversation string) (c ChatConfirm, ok bool, err error) {
	var created string
	err = s.db.QueryRowContext(ctx, query, conversation).Scan(&c.What, &c.Question, &c.No, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("open question of %s: %w", conversation, s.wrap(err))
	}
	if c.Created, err = time.Parse(webTimeLayout, created); err != nil {
		return c, false, fmt.Errorf("open question of %s: bad time %q", conversation, created)
	}
	return c, true, nil
}

// PruneChatConfirms deletes the open questions of every chat asked
// before t and returns how many went.
func (s *Store) PruneChatConfirms(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM chat_confirms WHERE created_at < ?`, before.UTC().Format(webTimeLayout))
	if err != nil {
		return 0, fmt.Errorf("prune old chat questions: %w", s.wrap(err))
	}
	return res.RowsAffected()
}

// ChatOverride returns the chat overrides (JSON) set in session id, ""
// when none were.
func (s *Store) ChatOverride(ctx context.Context, id int64) (string, error) {
	var settings string
	err := s.db.QueryRowContext(ctx, `SELECT settings FROM chat_overrides WHERE override_session_id = ?`, id).Scan(&settings)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("chat overrides of session %d: %w", id, s.wrap(err))
	}
	return settings, nil
}

// SetChatOverride stores the chat overrides (JSON) of session id.
func (s *Store) SetChatOverride(ctx context.Context, id int64, settings string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO chat_overrides(override_session_id, settings, updated_at) VALUES(?,?,?)
		ON CONFLICT(override_session_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
		id, settings, s.ts())
	if err != nil {
		return fmt.Errorf("keep the chat overrides of session %d: %w", id, s.wrap(err))
	}
	return nil
}

// CopyChatOverride gives session to the chat overrides of session from
// (a `/session child`); to keeps its own when from has none.
func (s *Store) CopyChatOverride(ctx context.Context, from, to int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO chat_overrides(override_session_id, settings, updated_at)
		SELECT ?, settings, ? FROM chat_overrides WHERE override_session_id = ?
		ON CONFLICT(override_session_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
		to, s.ts(), from)
	if err != nil {
		return fmt.Errorf("copy the chat overrides of session %d to %d: %w", from, to, s.wrap(err))
	}
	return nil
}
