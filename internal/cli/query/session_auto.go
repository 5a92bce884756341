package query

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	clisession "github.com/askygo/asky/internal/cli/session"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// now is the clock of this invocation (Options.Now in tests).
func (sx *sessionTurn) now() time.Time {
	if sx.opts.Now != nil {
		return sx.opts.Now()
	}
	return time.Now()
}

// createPending starts a session for this shell that is named from its
// first real question: until then it is unnamed_<unix time>, as in the
// original.
func (sx *sessionTurn) createPending(ctx context.Context) error {
	s := &store.Session{Name: fmt.Sprintf("unnamed_%d", sx.now().Unix()),
		Defaults: store.SessionDefaults{PendingAutoName: true}}
	if err := sess.CreateUnique(ctx, sx.st, s); err != nil {
		return err
	}
	if err := sx.binding.Set(s.ID); err != nil {
		return err
	}
	sx.sess = s
	return nil
}

// nameFromQuestion names a session still waiting for its name (started by
// flags alone, or "new" at the idle prompt) from this question: at once
// and without a model call, so the answer is not delayed.
func (sx *sessionTurn) nameFromQuestion(ctx context.Context, question string) error {
	s := sx.sess
	if s == nil || !s.Defaults.PendingAutoName || strings.TrimSpace(question) == "" {
		return nil
	}
	name, err := sess.RenameUnique(ctx, sx.st, s.ID, sess.AutoName(question))
	if err != nil {
		return err
	}
	s.Name, s.Defaults.PendingAutoName = name, false
	return sx.st.UpdateSessionSettings(ctx, s)
}

// continueAsSession makes -c without a session continue as one, as the
// original does: the newest continued turn (the pivot) becomes a session,
// or its session is resumed; this shell is bound to it and the new turn is
// recorded there, so a plain question next continues the conversation.
// Called once the question is known, so a refused invocation changes
// nothing.
func (sx *sessionTurn) continueAsSession(ctx context.Context) error {
	if sx.sess != nil || sx.oneOff || len(sx.contIDs) == 0 {
		return nil
	}
	pivot := slices.Max(sx.contIDs)
	s, converted, err := clisession.FromMessage(ctx, sx.st, strconv.FormatInt(pivot, 10))
	if err != nil {
		return err
	}
	if err := sx.binding.Set(s.ID); err != nil {
		return err
	}
	sx.sess = s
	if err := sx.persistDefaults(ctx); err != nil {
		return err
	}
	// Turns that are now in the session come with its conversation; as
	// -c context too they would be sent twice.
	var rest []int64
	for _, id := range sx.contIDs {
		t, err := sx.st.GetTurn(ctx, id)
		if err != nil {
			return err
		}
		if t.SessionID != s.ID {
			rest = append(rest, id)
		}
	}
	sx.contIDs = rest
	if converted != 0 {
		sx.notice(fmt.Sprintf("Continuing history %d as session %s; this shell now continues it.", converted, sess.Label(s)))
	} else {
		sx.notice(fmt.Sprintf("Continuing session %s (history %d is in it); this shell now continues it.", sess.Label(s), pivot))
	}
	return nil
}
