package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// deps are what every session verb uses; built from the Factory so tests
// can pass their own store and binding.
type deps struct {
	IO      *iostreams.IOStreams
	Store   func() (*store.Store, error)
	Binding func() *sess.Binding
	// Style is the markdown style for a terminal (Factory.MarkdownStyle).
	Style func() string
}

func newDeps(f *cmdutil.Factory) deps {
	return deps{IO: f.IO, Store: f.Store, Binding: func() *sess.Binding { return sess.NewBinding(f.Getenv, f.Getppid()) }, Style: f.MarkdownStyle}
}

// ResolveError maps selector errors to usage errors (exit 2) with the
// accepted forms, and unknown sessions to exit 1 with a hint.
func ResolveError(err error) error {
	var se *sess.SelectorError
	var nf *sess.NotFoundError
	switch {
	case errors.As(err, &se):
		return cmdutil.UsageError(se.Hint(), "%s", se.Error())
	case errors.As(err, &nf):
		return cmdutil.Errorf(nf.Hint(), "%s", nf.Error())
	}
	return err
}

func resolve(ctx context.Context, st *store.Store, sel string) (*store.Session, error) {
	s, err := sess.Resolve(ctx, st, sel)
	if err != nil {
		return nil, ResolveError(err)
	}
	return s, nil
}

// current returns the bound session, printing binding notices.
func (d deps) current(ctx context.Context, st *store.Store) (*store.Session, error) {
	s, notices, err := sess.Current(ctx, d.Binding(), st)
	for _, n := range notices {
		fmt.Fprintln(d.IO.ErrOut, "notice: "+n)
	}
	return s, err
}

// TakenNote says why a new session got another name than asked
// (", as \"trip\" is taken"), or nothing when it got the name asked.
func TakenNote(asked string, s *store.Session) string {
	if asked == "" || s.Name == asked {
		return ""
	}
	return fmt.Sprintf(", as %q is taken", asked)
}

// sessionJSON is the --json shape of a session.
type sessionJSON struct {
	ID               int64     `json:"id"`
	Name             string    `json:"name"`
	Model            string    `json:"model"`
	Turns            int       `json:"turns"`
	CreatedAt        time.Time `json:"created_at"`
	LastUsedAt       time.Time `json:"last_used_at"`
	Current          bool      `json:"current"`
	CompactedThrough int64     `json:"compacted_through"`
	Defaults         any       `json:"defaults"`
}

func toJSON(s *store.Session, current bool) sessionJSON {
	return sessionJSON{ID: s.ID, Name: s.Name, Model: s.Model, Turns: s.Turns, CreatedAt: s.CreatedAt, LastUsedAt: s.LastUsedAt,
		Current: current, CompactedThrough: s.CompactedThrough, Defaults: s.Defaults}
}
