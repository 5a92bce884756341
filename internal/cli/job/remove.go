package job

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/store"
)

// RemoveOptions are the flags of `job remove`.
type RemoveOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	ID    int64
}

// NewCmdRemove builds `job remove`.
func NewCmdRemove(f *cmdutil.Factory, runF func(context.Context, *RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{IO: f.IO, Store: f.Store}
	return &cobra.Command{
		Use:     "remove <id>",
		Aliases: []string{"rm"},
		Short:   "Remove a job and its run records (the answers stay in history)",
		Example: "  $ asky job remove 3",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if runF != nil {
				return runF(c.Context(), opts)
			}
			st, err := opts.Store()
			if err != nil {
				return err
			}
			if err := st.DeleteJob(c.Context(), opts.ID); err != nil {
				return cmdutil.WithHint(err, "see the ids with `asky job list`")
			}
			name := jobs.SessionName(opts.ID)
			if _, err := st.SessionByName(c.Context(), name); err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "removed job %d (it had no answers)\n", opts.ID)
				return nil
			}
			fmt.Fprintf(opts.IO.ErrOut, "removed job %d (its answers stay in history, session %s)\n", opts.ID, name)
			return nil
		},
	}
}
