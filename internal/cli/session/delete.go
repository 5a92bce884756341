package session

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// DeleteOptions are the inputs of `session delete`.
type DeleteOptions struct {
	deps
	Selectors []string
	All       bool
	Yes       bool
}

// NewCmdDelete builds `session delete <selector…>|--all`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "delete <selector>…|--all",
		Short: "Delete sessions with their turns and research findings",
		Long: heredoc.Doc(`
			Delete sessions together with their turns, research findings and
			corpus links. Memories asky saved about you are kept. --all deletes
			every session and asks first (use --yes in scripts).
		`),
		Example: heredoc.Doc(`
			$ asky session delete trip
			$ asky session delete 3 7
			$ asky session delete --all --yes
		`),
		ValidArgsFunction: completion.Sessions(f),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selectors = args
			if opts.All == (len(args) > 0) {
				return cmdutil.FlagErrorf("give session selectors or --all")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return deleteRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "delete every session")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func deleteRun(ctx context.Context, opts *DeleteOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	var targets []*store.Session
	if opts.All {
		ids, err := st.AllSessionIDs(ctx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			fmt.Fprintln(opts.IO.ErrOut, "There are no sessions.")
			return nil
		}
		if !opts.Yes {
			if !opts.IO.CanPrompt() {
				return cmdutil.UsageError("add --yes to delete every session without a prompt", "refusing to delete all %d sessions without confirmation", len(ids))
			}
			if !Confirm(opts.IO.In, opts.IO.ErrOut, fmt.Sprintf("Delete all %d sessions and their turns?", len(ids))) {
				fmt.Fprintln(opts.IO.ErrOut, "Nothing deleted.")
				return nil
			}
		}
		for _, id := range ids {
			targets = append(targets, &store.Session{ID: id})
		}
	} else {
		for _, sel := range opts.Selectors {
			s, err := resolve(ctx, st, sel)
			if err != nil {
				return err
			}
			targets = append(targets, s)
		}
	}
	ids := make([]int64, 0, len(targets))
	for _, s := range targets {
		ids = append(ids, s.ID)
	}
	turns, err := st.DeleteSessions(ctx, ids)
	if err != nil {
		return err
	}
	b := opts.Binding()
	if cur, _ := b.Get(); cur != 0 {
		for _, id := range ids {
			if id == cur {
				_ = b.Clear()
				fmt.Fprintln(opts.IO.ErrOut, "This shell is no longer bound to a session.")
			}
		}
	}
	if opts.All {
		fmt.Fprintf(opts.IO.ErrOut, "Deleted %d sessions and %s.\n", len(ids), sess.Turns(int(turns)))
		return nil
	}
	for _, s := range targets {
		fmt.Fprintf(opts.IO.ErrOut, "Deleted session %s.\n", sess.Label(s))
	}
	if len(targets) > 1 || turns > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "%s deleted with them.\n", sess.Turns(int(turns)))
	}
	return nil
}

// Confirm asks a yes/no question on w and reads the answer from r; only
// y/yes counts.
func Confirm(r interface{ Read([]byte) (int, error) }, w interface{ Write([]byte) (int, error) }, q string) bool {
	fmt.Fprintf(w, "%s [y/N] ", q)
	line, _ := bufio.NewReader(r).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
