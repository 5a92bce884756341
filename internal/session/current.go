package session

import (
	"context"
	"errors"

	"github.com/askygo/asky/internal/store"
)

// Current returns the session this shell is bound to, or nil. A binding to
// a session that no longer exists is cleared; what was cleared is returned
// as notices for stderr.
func Current(ctx context.Context, b *Binding, f Finder) (*store.Session, []string, error) {
	id, notice := b.Get()
	var notices []string
	if notice != "" {
		notices = append(notices, notice)
	}
	if id == 0 {
		return nil, notices, nil
	}
	s, err := f.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		_ = b.Clear()
		return nil, append(notices, "cleared this shell's binding to deleted session "+itoa64(id)), nil
	}
	if err != nil {
		return nil, notices, err
	}
	return s, notices, nil
}
