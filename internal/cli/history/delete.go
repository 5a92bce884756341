package history

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// DeleteOptions are the flags and dependencies of `history delete`.
type DeleteOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)

	Selector []string
	All      bool
	Yes      bool
}

// NewCmdDelete builds `history delete`; runF replaces the run function in
// tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "delete <selector>… | --all",
		Short: "Delete turns",
		Long: heredoc.Doc(`
			Delete the selected turns with their messages and usage records. A
			selector is an id (42), ~N for the N-th most recent turn, a range
			(10-15, ~1-~3) or a comma list of those (3,7,~2).

			If any selected id does not exist, nothing is deleted. --all empties
			the whole history: on a terminal it asks first (skip with --yes);
			in scripts it requires --yes. What was deleted is reported on stderr.
		`),
		Example: heredoc.Doc(`
			$ asky history delete ~1
			$ asky history delete 10-15,20
			$ asky history delete --all --yes
		`),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selector = args
			switch {
			case opts.All && len(args) > 0:
				return cmdutil.UsageError("use either a selector or --all", "--all cannot be combined with a selector")
			case !opts.All && len(args) == 0:
				return cmdutil.UsageError("e.g. `asky history delete ~1`, or --all to empty the history", "which turns? give a history selector or --all")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return deleteRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "delete every turn")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.ValidArgsFunction = completeTurns(f)
	return cmd
}

func deleteRun(ctx context.Context, opts *DeleteOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	if opts.All {
		return deleteAll(ctx, opts, st)
	}
	res, err := resolveSelector(ctx, st, opts.Selector)
	if err != nil {
		return err
	}
	if len(res.Missing) > 0 {
		total, err := st.CountTurns(ctx)
		if err != nil {
			return err
		}
		// A typo in a delete must not delete the rest: refuse all of it.
		return cmdutil.WithHint(missingError(res.Missing, total), "nothing was deleted; check the ids with `asky history list`")
	}
	n, err := st.DeleteTurns(ctx, res.IDs)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "deleted %s: %s\n", plural(n, "turn"), idList(res.IDs))
	return nil
}

func deleteAll(ctx context.Context, opts *DeleteOptions, st *store.Store) error {
	total, err := st.CountTurns(ctx)
	if err != nil {
		return err
	}
	if total == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "the history is already empty")
		return nil
	}
	if !opts.Yes {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageError("add --yes to delete without asking: asky history delete --all --yes", "refusing to delete all %s without confirmation", plural(total, "turn"))
		}
		fmt.Fprintf(opts.IO.ErrOut, "Delete all %s from %s? This cannot be undone. [y/N] ", plural(total, "turn"), st.Path())
		answer, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(opts.IO.ErrOut, "nothing deleted")
			return cmdutil.ErrSilent
		}
	}
	n, err := st.DeleteAllTurns(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "deleted %s (the whole history)\n", plural(n, "turn"))
	return nil
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}

// idList prints ids compactly, collapsing runs ("3-7, 9"), so deleting a
// big range does not flood stderr.
func idList(ids []int64) string {
	sorted := append([]int64(nil), ids...)
	slices.Sort(sorted)
	var parts []string
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", sorted[i], sorted[j]))
		} else {
			parts = append(parts, strconv.FormatInt(sorted[i], 10))
		}
		i = j + 1
	}
	const maxParts = 20
	if len(parts) > maxParts {
		return strings.Join(parts[:maxParts], ", ") + fmt.Sprintf(" and %d more", len(parts)-maxParts)
	}
	return strings.Join(parts, ", ")
}
