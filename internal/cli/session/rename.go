package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
)

// RenameOptions are the inputs of `session rename`.
type RenameOptions struct {
	deps
	Selector string
	Name     string
}

// NewCmdRename builds `session rename <selector> <name>`.
func NewCmdRename(f *cmdutil.Factory, runF func(context.Context, *RenameOptions) error) *cobra.Command {
	opts := &RenameOptions{deps: newDeps(f)}
	return &cobra.Command{
		Use:   "rename <selector> <name>",
		Short: "Rename a session",
		Long: heredoc.Doc(`
			Give a session a new unique name.
		`),
		Example: heredoc.Doc(`
			$ asky session rename 12 lisbon-trip
		`),
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: completion.Sessions(f),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selector, opts.Name = args[0], strings.TrimSpace(strings.Join(args[1:], " "))
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return renameRun(c.Context(), opts)
		},
	}
}

func renameRun(ctx context.Context, opts *RenameOptions) error {
	if err := ValidateName(opts.Name); err != nil {
		return err
	}
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s, err := resolve(ctx, st, opts.Selector)
	if err != nil {
		return err
	}
	if err := st.RenameSession(ctx, s.ID, opts.Name); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Renamed session %d to %s.\n", s.ID, opts.Name)
	return nil
}
