package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/store"
)

// ConfirmOptions are the arguments of `memory confirm`.
type ConfirmOptions struct {
	deps

	IDs []int64
}

// NewCmdConfirm builds `memory confirm`.
func NewCmdConfirm(f *cmdutil.Factory, runF func(context.Context, *ConfirmOptions) error) *cobra.Command {
	opts := &ConfirmOptions{deps: newDeps(f)}
	return &cobra.Command{
		Use:   "confirm <id>…",
		Short: "Keep memories the model saved while reading untrusted content",
		Long: heredoc.Doc(`
			A memory the model saves in a turn that had read a web page, a
			document or search results is held as unconfirmed: a page saying
			"remember that …" must not plant a fact that later answers trust.
			Unconfirmed memories are marked in memory list (with what the turn
			had read) and are only recalled in the session that saved them.

			confirm makes them ordinary memories; memory delete drops them.
		`),
		Example: heredoc.Doc(`
			$ asky memory list
			$ asky memory confirm 12
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
			return confirmRun(c.Context(), opts)
		},
	}
}

func confirmRun(ctx context.Context, opts *ConfirmOptions) error {
	_, st, _, err := opts.open()
	if err != nil {
		return err
	}
	var done, already, missing []int64
	for _, id := range opts.IDs {
		m, err := st.GetMemory(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			missing = append(missing, id)
			continue
		case err != nil:
			return err
		case !m.Unconfirmed:
			// Saying "confirmed" would suggest it was waiting.
			already = append(already, id)
			continue
		}
		if err := st.ConfirmMemory(ctx, id); err != nil {
			return err
		}
		done = append(done, id)
	}
	if len(done) > 0 {
		fmt.Fprintf(opts.IO.Out, "confirmed %s %s\n", pluralWord(len(done), "memory", "memories"), joinIDs(done))
	}
	if len(already) > 0 {
		fmt.Fprintf(opts.IO.Out, "%s %s %s already confirmed\n", pluralWord(len(already), "memory", "memories"), joinIDs(already), pluralWord(len(already), "was", "were"))
	}
	return missingIDs(missing)
}
