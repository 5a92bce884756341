package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/askygo/asky/internal/store"
)

// ChatState is where a Chat keeps what a chat user expects it to
// remember: the open yes/no question of each chat and the inline
// overrides of the session a chat continues.
type ChatState interface {
	// SaveConfirm makes q the conversation's open question.
	SaveConfirm(ctx context.Context, conversation string, q store.ChatConfirm) error
	// PeekConfirm returns the conversation's open question.
	PeekConfirm(ctx context.Context, conversation string) (store.ChatConfirm, bool, error)
	// TakeConfirm removes and returns the conversation's open question.
	TakeConfirm(ctx context.Context, conversation string) (store.ChatConfirm, bool, error)
	// PruneConfirms deletes every chat's questions asked before t.
	PruneConfirms(ctx context.Context, before time.Time) error
	// Override returns the overrides of the session the conversation
	// continues.
	Override(ctx context.Context, conversation string) (Override, error)
	// SetOverride replaces them.
	SetOverride(ctx context.Context, conversation string, o Override) error
}

// StoreState keeps chat state in the asky store, so a daemon restart
// loses neither a voice transcript waiting for its yes nor a session's
// overrides. Overrides are stored with the session the chat continues
// (as the original's session-scoped override files): `/session ID`
// brings that session's back, `/session new` starts without, and
// `/session child` copies them (the command does, see
// store.CopyChatOverride).
type StoreState struct {
	Store *store.Store
	// Session returns the session a conversation continues, created if
	// needed: compose.ChatSession, which the daemon command passes in.
	Session func(ctx context.Context, st *store.Store, conversation string) (*store.Session, error)
}

// sessionID is the id of the session the conversation continues.
func (s StoreState) sessionID(ctx context.Context, conversation string) (int64, error) {
	sess, err := s.Session(ctx, s.Store, conversation)
	if err != nil {
		return 0, err
	}
	return sess.ID, nil
}

func (s StoreState) SaveConfirm(ctx context.Context, conversation string, q store.ChatConfirm) error {
	return s.Store.SaveChatConfirm(ctx, conversation, q)
}

func (s StoreState) PeekConfirm(ctx context.Context, conversation string) (store.ChatConfirm, bool, error) {
	return s.Store.ChatConfirm(ctx, conversation)
}

func (s StoreState) TakeConfirm(ctx context.Context, conversation string) (store.ChatConfirm, bool, error) {
	return s.Store.TakeChatConfirm(ctx, conversation)
}

func (s StoreState) PruneConfirms(ctx context.Context, before time.Time) error {
	_, err := s.Store.PruneChatConfirms(ctx, before)
	return err
}

func (s StoreState) Override(ctx context.Context, conversation string) (Override, error) {
	id, err := s.sessionID(ctx, conversation)
	if err != nil {
		return Override{}, err
	}
	raw, err := s.Store.ChatOverride(ctx, id)
	if err != nil || raw == "" {
		return Override{}, err
	}
	var o Override
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return Override{}, fmt.Errorf("the chat overrides of session %d are damaged (%v); set them again with a ```toml block", id, err)
	}
	return o, nil
}

func (s StoreState) SetOverride(ctx context.Context, conversation string, o Override) error {
	id, err := s.sessionID(ctx, conversation)
	if err != nil {
		return err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return s.Store.SetChatOverride(ctx, id, string(b))
}

// memState keeps chat state in memory for a Chat without a store
// (transport tests): overrides are the chat's until it changes session,
// and everything is gone when the process ends.
type memState struct {
	mu        sync.Mutex
	confirms  map[string]store.ChatConfirm
	overrides map[string]Override
}

func (m *memState) SaveConfirm(_ context.Context, conversation string, q store.ChatConfirm) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.confirms == nil {
		m.confirms = map[string]store.ChatConfirm{}
	}
	m.confirms[conversation] = q
	return nil
}

func (m *memState) PeekConfirm(_ context.Context, conversation string) (store.ChatConfirm, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	q, ok := m.confirms[conversation]
	return q, ok, nil
}

func (m *memState) TakeConfirm(_ context.Context, conversation string) (store.ChatConfirm, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	q, ok := m.confirms[conversation]
	delete(m.confirms, conversation)
	return q, ok, nil
}

func (m *memState) PruneConfirms(_ context.Context, before time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for conv, q := range m.confirms {
		if q.Created.Before(before) {
			delete(m.confirms, conv)
		}
	}
	return nil
}

func (m *memState) Override(_ context.Context, conversation string) (Override, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.overrides[conversation], nil
}

func (m *memState) SetOverride(_ context.Context, conversation string, o Override) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.overrides == nil {
		m.overrides = map[string]Override{}
	}
	m.overrides[conversation] = o
	return nil
}

// SessionChanged drops the overrides of a chat that now continues
// another session (memState cannot tell sessions apart).
func (m *memState) SessionChanged(conversation string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.overrides, conversation)
}

// sessionChanger is a ChatState that keeps overrides by chat, not by
// session, and must hear when a chat changes session.
type sessionChanger interface{ SessionChanged(conversation string) }
