package memory

import (
	"context"
	"path/filepath"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/memory/mdmirror"
)

// ReindexOptions are the flags of `memory reindex`.
type ReindexOptions struct{ deps }

// NewCmdReindex builds `memory reindex`.
func NewCmdReindex(f *cmdutil.Factory, runF func(context.Context, *ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the memory index from MEMORY.md",
		Long: heredoc.Doc(`
			Make the memories match MEMORY.md in [memory] markdown_dir, the source
			of truth when you edit it by hand: new lines are added, changed lines
			updated, missing ids forgotten, and every fact is re-embedded. A line
			that cannot be read is reported with file:line and skipped, and then
			nothing is forgotten.
		`),
		Example: heredoc.Doc(`
			$ asky config set memory.markdown_dir ~/notes/asky
			$ vim ~/notes/asky/MEMORY.md && asky memory reindex
		`),
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reindexRun(c.Context(), opts)
		},
	}
	return cmd
}

func reindexRun(ctx context.Context, opts *ReindexOptions) error {
	o, err := opts.openMarkdown()
	if err != nil {
		return err
	}
	if o.mirror == nil {
		return cmdutil.Errorf("set it with `asky config set memory.markdown_dir DIR` (asky writes MEMORY.md there)", "[memory] markdown_dir is not set: there is no markdown to reindex from")
	}
	path := filepath.Join(o.mirror.Dir, mdmirror.MemoryFile)
	entries, perrs, err := parseSource(path, nil)
	if err != nil {
		return cmdutil.Errorf("run any memory command to write it, or `asky memory export "+o.mirror.Dir+"`", "%v", err)
	}
	sum, err := mdmirror.Apply(ctx, o.st, o.svc, entries, perrs, mdmirror.Options{File: path, Exact: true, Reembed: true,
		Removable: o.mirror.Shown()})
	if err != nil {
		return err
	}
	report(opts.IO.ErrOut, "memory reindex", sum)
	return o.sync(ctx, "reindex", true)
}
