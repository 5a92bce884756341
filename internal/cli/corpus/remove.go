package corpus

import (
	"context"
	"fmt"
	"slices"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

// RemoveOptions are the flags of `corpus remove`.
type RemoveOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Sources []string
}

// NewCmdRemove builds `corpus remove`.
func NewCmdRemove(f *cmdutil.Factory, runF func(context.Context, *RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "remove <source>...",
		Aliases: []string{"rm"},
		Short:   "Remove a source",
		Long: heredoc.Doc(`
			Remove sources (by id, corpus://cache/<id> handle, path or title)
			with their chunks, index entries and vectors. The files on disk are
			not touched. Every source is looked up before any is removed, and the
			vector caches are brought current, so the next query starts at once.
		`),
		Example: heredoc.Doc(`
			$ asky corpus remove 3
			$ asky corpus remove ~/papers/old.pdf
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Sources = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return removeRun(c.Context(), opts)
		},
	}
	return cmd
}

func removeRun(ctx context.Context, opts *RemoveOptions) error {
	_, st, ix, err := openIndex(opts.Factory)
	if st == nil {
		return err
	}
	if ix == nil {
		// An embedder that cannot be built does not stop a removal; the
		// next query rebuilds the vector caches.
		ix = &research.Index{St: st}
	}
	// Every source is resolved before any is removed: a typo removes
	// nothing.
	var srcs []*store.CorpusSource
	var ids []int64
	for _, ref := range opts.Sources {
		src, _, err := research.ResolveSource(ctx, st, ref)
		if err != nil {
			return resolveErr(err)
		}
		if !slices.Contains(ids, src.ID) {
			srcs, ids = append(srcs, src), append(ids, src.ID)
		}
	}
	var bar *progressBar
	var progress research.SnapshotProgress
	if opts.IO.IsStderrTTY() {
		bar = &progressBar{w: opts.IO.ErrOut}
		progress = bar.snapshot()
	}
	err = ix.RemoveSources(ctx, ids, progress, func(i int) {
		fmt.Fprintf(opts.IO.Out, "removed %d %s (%d chunks)\n", srcs[i].ID, render.SanitizeLine(srcs[i].Path), srcs[i].ChunkCount)
	})
	if bar != nil {
		bar.clear()
	}
	return err
}
