package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// DeleteOptions are the arguments of `memory delete`.
type DeleteOptions struct {
	deps

	IDs []int64
}

// NewCmdDelete builds `memory delete`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:     "delete <id>…",
		Aliases: []string{"rm"},
		Short:   "Delete memories by id",
		Long: heredoc.Doc(`
			Delete memories by the ids shown by memory list (separate arguments or
			a comma list). Ids that do not exist are reported and make the command
			exit 1; the others are still deleted.
		`),
		Example: heredoc.Doc(`
			$ asky memory delete 3
			$ asky memory delete 3 7,9
		`),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			ids, err := parseIDs(args)
			if err != nil {
				return err
			}
			opts.IDs = ids
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return deleteRun(c.Context(), opts)
		},
	}
	return cmd
}

func deleteRun(ctx context.Context, opts *DeleteOptions) error {
	_, st, _, err := opts.open()
	if err != nil {
		return err
	}
	deleted, err := st.DeleteMemories(ctx, opts.IDs)
	if err != nil {
		return err
	}
	if len(deleted) > 0 {
		fmt.Fprintf(opts.IO.Out, "deleted %s %s\n", pluralWord(len(deleted), "memory", "memories"), joinIDs(deleted))
	}
	var missing []int64
	for _, id := range opts.IDs {
		if !slices.Contains(deleted, id) {
			missing = append(missing, id)
		}
	}
	return missingIDs(missing)
}

// missingIDs is the error for ids that name no memory (nil if none).
func missingIDs(missing []int64) error {
	if len(missing) == 0 {
		return nil
	}
	return cmdutil.Errorf("see the ids with `asky memory list --all`", "no %s %s", pluralWord(len(missing), "memory", "memories"), joinIDs(missing))
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
