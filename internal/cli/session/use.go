package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
	sess "github.com/askygo/asky/internal/session"
)

// UseOptions are the inputs of `session use`.
type UseOptions struct {
	deps
	Selector string
}

// NewCmdUse builds `session use <selector>`.
func NewCmdUse(f *cmdutil.Factory, runF func(context.Context, *UseOptions) error) *cobra.Command {
	opts := &UseOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:     "use <selector>",
		Aliases: []string{"resume"},
		Short:   "Bind this shell to an existing session",
		Long: heredoc.Doc(`
			Bind this shell to a session so later questions continue it. The
			selector is an id (12), S12, an exact name or a unique part of a name.
		`),
		Example: heredoc.Doc(`
			$ asky session use trip
			$ asky session use S12
		`),
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completion.Sessions(f),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selector = strings.Join(args, " ")
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return useRun(c.Context(), opts)
		},
	}
	return cmd
}

func useRun(ctx context.Context, opts *UseOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s, err := resolve(ctx, st, opts.Selector)
	if err != nil {
		return err
	}
	if err := opts.Binding().Set(s.ID); err != nil {
		return err
	}
	if err := st.TouchSession(ctx, s.ID); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "This shell now continues session %s (%s).\n", sess.Label(s), sess.Turns(s.Turns))
	return nil
}
