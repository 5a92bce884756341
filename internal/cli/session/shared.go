package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
}

func newDeps(f *cmdutil.Factory) deps {
	return deps{IO: f.IO, Store: f.Store, Binding: func() *sess.Binding { return sess.NewBinding(f.Getenv, f.Getppid()) }}
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

// completeSessions completes session names (and ids of unnamed sessions)
// for selector arguments.
func completeSessions(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		st, err := f.Store()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := st.ListSessions(c.Context(), 200)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range list {
			if !strings.HasPrefix(s.Name, toComplete) && !strings.HasPrefix(strconv.FormatInt(s.ID, 10), toComplete) {
				continue
			}
			if s.Name != "" {
				out = append(out, cobra.CompletionWithDesc(s.Name, fmt.Sprintf("session %d, %d turns", s.ID, s.Turns)))
			} else {
				out = append(out, cobra.CompletionWithDesc(strconv.FormatInt(s.ID, 10), fmt.Sprintf("unnamed session, %d turns", s.Turns)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
