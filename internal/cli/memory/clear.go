package memory

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/store"
)

// ClearOptions are the flags of `memory clear`.
type ClearOptions struct {
	deps

	Yes bool
}

// NewCmdClear builds `memory clear`.
func NewCmdClear(f *cmdutil.Factory, runF func(context.Context, *ClearOptions) error) *cobra.Command {
	opts := &ClearOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Delete all memories",
		Long: heredoc.Doc(`
			Delete every memory, global and session-scoped. On a terminal asky asks
			for confirmation; in scripts pass --yes (without it, clear refuses and
			exits 2).
		`),
		Example: heredoc.Doc(`
			$ asky memory clear
			$ asky memory clear --yes
		`),
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return clearRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func clearRun(ctx context.Context, opts *ClearOptions) error {
	_, st, _, err := opts.open()
	if err != nil {
		return err
	}
	all := store.MemoryScope{All: true}
	total, err := st.CountMemories(ctx, all)
	if err != nil {
		return err
	}
	if total == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no memories to clear")
		return nil
	}
	if !opts.Yes {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageError("run `asky memory clear --yes` to delete them without a prompt", "refusing to delete %s without confirmation", plural(total, "memory", "memories"))
		}
		globals, err := st.CountMemories(ctx, store.MemoryScope{})
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "Delete all %s (%d global, %d in sessions)? This cannot be undone. [y/N] ", plural(total, "memory", "memories"), globals, total-globals)
		line, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(opts.IO.ErrOut, "nothing deleted")
			return cmdutil.ErrSilent
		}
	}
	n, err := st.ClearMemories(ctx, all)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "deleted %s\n", plural(int(n), "memory", "memories"))
	return nil
}
