package memory

import (
	"context"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/memory/mdmirror"
)

// ImportOptions are the flags of `memory import`.
type ImportOptions struct {
	deps
	Source string
}

// NewCmdImport builds `memory import`.
func NewCmdImport(f *cmdutil.Factory, runF func(context.Context, *ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "import FILE|DIR|-",
		Short: "Add the facts of a markdown file to your memories",
		Long: heredoc.Doc(`
			Add every "- [scope] fact" line of FILE (DIR: its MEMORY.md, else all
			its .md files; -: stdin) to your memories. Facts already remembered are
			updated rather than copied (as save_memory does), so importing the same
			file twice changes nothing. Ids in the file are ignored; nothing is
			removed. A line that cannot be read is reported with file:line and
			skipped.
		`),
		Example: heredoc.Doc(`
			$ asky memory import memories.md
			$ asky memory export | ssh laptop asky memory import -
		`),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return importRun(c.Context(), opts)
		},
	}
	return cmd
}

func importRun(ctx context.Context, opts *ImportOptions) error {
	o, err := opts.openMarkdown()
	if err != nil {
		return err
	}
	entries, perrs, err := parseSource(opts.Source, opts.IO.In)
	if err != nil {
		return err
	}
	sum, err := mdmirror.Apply(ctx, o.st, o.svc, entries, perrs, mdmirror.Options{File: opts.Source})
	if err != nil {
		return err
	}
	report(opts.IO.ErrOut, "memory import", sum)
	return o.sync(ctx, "import", false)
}
