package corpus

import (
	"context"
	"fmt"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/research"
)

// ReindexOptions are the flags of `corpus reindex`.
type ReindexOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
}

// NewCmdReindex builds `corpus reindex`.
func NewCmdReindex(f *cmdutil.Factory, runF func(context.Context, *ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Re-embed the corpus for the configured embedder",
		Long: heredoc.Doc(`
			Embed every chunk that has no vector for the configured embedder
			(after changing [research.embedding], or when the model behind a name
			changed), from the stored chunk text; files are not re-read. Vectors
			of other embedders are dropped: spaces are never mixed. The deep
			tier's vectors ([research.deep]) are kept, and both vector caches
			are brought up to date, so the next query starts at once.
		`),
		Example: heredoc.Doc(`
			$ asky corpus reindex
		`),
		Args: cobra.NoArgs,
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
	_, st, ix, err := openIndex(opts.Factory)
	if err != nil {
		return err
	}
	var bar *progressBar
	var snap research.SnapshotProgress
	if opts.IO.IsStderrTTY() {
		bar = &progressBar{w: opts.IO.ErrOut}
		snap = bar.snapshot()
	}
	start := time.Now()
	n, err := research.Reindex(ctx, ix, func(done, total int) {
		if bar != nil {
			bar.draw(done, total, time.Since(start), fmt.Sprintf("%d/%d chunks", done, total))
		}
	}, snap)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return err
	}
	chunks, _, err := st.CorpusCounts(ctx, ix.Fingerprint())
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "re-embedded %d chunks; %d chunks indexed with %s (space %s)\n", n, chunks, ix.Spec().Model, ix.Fingerprint())
	return nil
}
