package session

import (
	"context"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	sess "github.com/askygo/asky/internal/session"
)

// EndOptions are the inputs of `session end`.
type EndOptions struct{ deps }

// NewCmdEnd builds `session end`.
func NewCmdEnd(f *cmdutil.Factory, runF func(context.Context, *EndOptions) error) *cobra.Command {
	opts := &EndOptions{deps: newDeps(f)}
	return &cobra.Command{
		Use:   "end",
		Short: "Detach this shell from its session",
		Long: heredoc.Doc(`
			Detach this shell from its session; the session and its turns are
			kept. Later questions are one-shot again.
		`),
		Example: heredoc.Doc(`
			$ asky session end
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return EndRun(c.Context(), opts)
		},
	}
}

// EndRun detaches the shell (also used by the legacy -se flag).
func EndRun(ctx context.Context, opts *EndOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s, err := opts.current(ctx, st)
	if err != nil {
		return err
	}
	if s == nil {
		fmt.Fprintln(opts.IO.ErrOut, "This shell is not bound to a session.")
		return nil
	}
	if err := opts.Binding().Clear(); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Detached from session %s.\n", sess.Label(s))
	return nil
}

// NewEndOptions builds EndOptions from a factory (legacy -se).
func NewEndOptions(f *cmdutil.Factory) *EndOptions { return &EndOptions{deps: newDeps(f)} }
