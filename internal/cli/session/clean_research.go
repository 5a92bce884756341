package session

import (
	"context"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
	sess "github.com/askygo/asky/internal/session"
)

// CleanResearchOptions are the inputs of `session clean-research`.
type CleanResearchOptions struct {
	deps
	Selector string
}

// NewCmdCleanResearch builds `session clean-research <selector>`.
func NewCmdCleanResearch(f *cmdutil.Factory, runF func(context.Context, *CleanResearchOptions) error) *cobra.Command {
	opts := &CleanResearchOptions{deps: newDeps(f)}
	return &cobra.Command{
		Use:   "clean-research <selector>",
		Short: "Drop a session's research findings and corpus links",
		Long: heredoc.Doc(`
			Delete the research findings and corpus links collected in a session;
			its questions and answers are kept.
		`),
		Example: heredoc.Doc(`
			$ asky session clean-research trip
		`),
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completion.Sessions(f),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selector = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return cleanResearchRun(c.Context(), opts)
		},
	}
}

func cleanResearchRun(ctx context.Context, opts *CleanResearchOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s, err := resolve(ctx, st, opts.Selector)
	if err != nil {
		return err
	}
	n, err := st.CleanSessionResearch(ctx, s.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Removed %d research rows from session %s; its turns are kept.\n", n, sess.Label(s))
	return nil
}
