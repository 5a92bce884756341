package corpus

import (
	"context"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
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
			not touched.
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
	st, err := opts.Factory.Store()
	if err != nil {
		return err
	}
	for _, ref := range opts.Sources {
		src, _, err := research.ResolveSource(ctx, st, ref)
		if err != nil {
			return resolveErr(err)
		}
		if err := st.DeleteCorpusSource(ctx, src.ID); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "removed %d %s (%d chunks)\n", src.ID, render.SanitizeLine(src.Path), src.ChunkCount)
	}
	return nil
}
