package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/memory"
)

// AddOptions are the flags of `memory add`.
type AddOptions struct {
	deps

	Text string
	Tags []string
	JSON bool
}

// NewCmdAdd builds `memory add`.
func NewCmdAdd(f *cmdutil.Factory, runF func(context.Context, *AddOptions) error) *cobra.Command {
	opts := &AddOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "add <text…>",
		Short: "Save a global memory",
		Long: heredoc.Docf(`
			Save a fact about you as a global memory, recalled into later answers
			when it is relevant. The words after add are the memory; with none,
			the memory is read from piped stdin. At most %d characters.

			If a memory that says the same thing already exists, it is updated
			with the new wording and tags (updated memory N) instead of being
			saved twice.
		`, memory.MaxTextLen),
		Example: heredoc.Doc(`
			$ asky memory add "I live in Lisbon"
			$ asky memory add I use Neovim and tmux --tag tools
			$ echo "My manager is Ana" | asky memory add --tag work
		`),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Text = strings.TrimSpace(strings.Join(args, " "))
			if opts.Text == "" && !opts.IO.IsStdinTTY() && opts.IO.In != nil {
				b, err := io.ReadAll(io.LimitReader(opts.IO.In, 4*memory.MaxTextLen+1))
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				opts.Text = strings.TrimSpace(string(b))
			}
			if opts.Text == "" {
				return cmdutil.FlagErrorf("give the memory text, e.g. asky memory add \"I live in Lisbon\"")
			}
			var tags []string
			for _, t := range opts.Tags {
				tags = append(tags, strings.Split(t, ",")...)
			}
			opts.Tags = memory.CleanTags(tags)
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return addRun(c.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Tags, "tag", nil, "tag the memory with `tag` (repeatable or comma list)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {status, memory_id, deduplicated}")
	return cmd
}

func addRun(ctx context.Context, opts *AddOptions) error {
	cfg, _, svc, err := opts.open()
	if err != nil {
		return err
	}
	res, err := svc.Save(ctx, opts.Text, opts.Tags, 0)
	switch {
	case errors.Is(err, memory.ErrTooLong):
		return cmdutil.UsageError("save one short fact per memory", "%v", err)
	case err != nil:
		return err
	}
	if !cfg.Memory.Enabled {
		fmt.Fprintln(opts.IO.ErrOut, "warning: memory is disabled ([memory] enabled = false): it is saved but not recalled into answers")
	}
	if opts.JSON {
		status := "saved"
		if res.Updated {
			status = "updated"
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"status": status, "memory_id": res.ID, "deduplicated": res.Updated})
	}
	if res.Updated {
		fmt.Fprintf(opts.IO.Out, "updated memory %d\n", res.ID)
		fmt.Fprintf(opts.IO.ErrOut, "it says the same as memory %d (similarity %.2f), so that one now has the new wording\n", res.ID, res.Similarity)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "saved memory %d\n", res.ID)
	return nil
}
