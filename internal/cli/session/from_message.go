package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// FromMessageOptions are the inputs of `session from-message`.
type FromMessageOptions struct {
	deps
	Ref string // history id, ~N or "last"
}

// NewCmdFromMessage builds `session from-message <id|last>`.
func NewCmdFromMessage(f *cmdutil.Factory, runF func(context.Context, *FromMessageOptions) error) *cobra.Command {
	opts := &FromMessageOptions{deps: newDeps(f)}
	return &cobra.Command{
		Use:   "from-message <id|last>",
		Short: "Turn a history entry into a session and continue it",
		Long: heredoc.Doc(`
			Make a one-shot history entry the first turn of a new session (named
			from its question) and bind this shell to it. An entry that already
			belongs to a session resumes that session.
		`),
		Example: heredoc.Doc(`
			$ asky session from-message 42
			$ asky session from-message last
		`),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return FromMessageRun(c.Context(), opts)
		},
	}
}

// NewFromMessageOptions builds options from a factory (legacy -sfm, --reply).
func NewFromMessageOptions(f *cmdutil.Factory, ref string) *FromMessageOptions {
	return &FromMessageOptions{deps: newDeps(f), Ref: ref}
}

// FromMessageRun converts and binds.
func FromMessageRun(ctx context.Context, opts *FromMessageOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s, converted, err := FromMessage(ctx, st, opts.Ref)
	if err != nil {
		return err
	}
	if err := opts.Binding().Set(s.ID); err != nil {
		return err
	}
	if converted != 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Converted history %d to session %s; this shell now continues it.\n", converted, sess.Label(s))
	} else {
		fmt.Fprintf(opts.IO.ErrOut, "This shell now continues session %s.\n", sess.Label(s))
	}
	return nil
}

// FromMessage returns the session a history entry belongs to, creating one
// (named from its question) for a one-shot entry; converted is the history
// id that was moved, 0 when the entry was already in a session.
func FromMessage(ctx context.Context, st *store.Store, ref string) (s *store.Session, converted int64, err error) {
	ref = strings.TrimSpace(ref)
	if ref == "last" {
		ref = "~1"
	}
	var id int64
	if strings.HasPrefix(ref, "~") {
		n, err := strconv.Atoi(ref[1:])
		if err != nil || n < 1 {
			return nil, 0, cmdutil.UsageError("use a history id, ~N or last", "invalid history reference %q", ref)
		}
		ids, err := st.RecentTurnIDs(ctx, n)
		if err != nil {
			return nil, 0, err
		}
		if len(ids) < n {
			return nil, 0, cmdutil.Errorf("ask something first", "history has only %d turns", len(ids))
		}
		id = ids[n-1]
	} else if id, err = strconv.ParseInt(ref, 10, 64); err != nil || id < 1 {
		return nil, 0, cmdutil.UsageError("use a history id (see `asky history list`), ~N or last", "invalid history reference %q", ref)
	}
	t, err := st.GetTurn(ctx, id)
	if err != nil {
		return nil, 0, cmdutil.WithHint(err, "see `asky history list`")
	}
	if t.SessionID != 0 {
		s, err := st.GetSession(ctx, t.SessionID)
		return s, 0, err
	}
	s = &store.Session{Name: sess.AutoName(t.Query), Model: t.Model}
	if err := sess.CreateUnique(ctx, st, s); err != nil {
		return nil, 0, err
	}
	if err := st.MoveTurnToSession(ctx, id, s.ID); err != nil {
		return nil, 0, err
	}
	s.Turns = 1
	return s, id, nil
}
