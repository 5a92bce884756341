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

// EmbedOptions are the flags of `corpus embed`.
type EmbedOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
}

// NewCmdEmbed builds `corpus embed`.
func NewCmdEmbed(f *cmdutil.Factory, runF func(context.Context, *EmbedOptions) error) *cobra.Command {
	opts := &EmbedOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "embed",
		Short: "Fill the deep tier: embed the chunks with the [research.deep] model",
		Long: heredoc.Doc(`
			The deep tier is a second, slower embedder ([research.deep], e.g. a
			transformer) whose vectors are fused with the keyword and the fast
			semantic search. Ingest keeps everything searchable at once; the
			deep vectors are filled afterwards, from the stored chunk text, by
			this pass (corpus ingest runs it too, unless given --no-deep).

			It commits every 32 chunks: stop it at any time (Ctrl-C) and run it
			again to continue where it stopped. Until a query's candidates all
			have deep vectors, that query is ranked without the deep tier.
			Changing the [research.deep] model drops its old vectors and embeds
			again.
		`),
		Example: heredoc.Doc(`
			$ asky corpus embed
			$ asky config set research.deep.provider off   # turn the deep tier off
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return embedRun(c.Context(), opts)
		},
	}
	return cmd
}

func embedRun(ctx context.Context, opts *EmbedOptions) error {
	_, _, ix, err := openIndex(opts.Factory)
	if err != nil {
		return err
	}
	if ix.Deep == nil {
		return cmdutil.Errorf("set [research.deep] to a second embedder, e.g. `asky config set research.deep.provider ollama` and research.deep.model",
			"the deep tier is off ([research.deep] provider = \"off\")")
	}
	if err := ix.Deep.Load(); err != nil {
		return cmdutil.WithHint(err, "check [research.deep] in your config, or turn the deep tier off: `asky config set research.deep.provider off`")
	}
	n, elapsed, err := fillDeep(ctx, opts.IO, ix, opts.IO.IsStderrTTY())
	if err != nil {
		return err
	}
	cov, err := ix.DeepCoverage(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "deep tier: embedded %d chunks in %s; %d/%d chunks have %s vectors (space %s)\n",
		n, elapsed.Round(10*time.Millisecond), cov.Vectors, cov.Chunks, ix.Deep.Model(), cov.Fingerprint)
	return nil
}

// fillDeep runs the deep pass, with a progress bar when bar is set. An
// interrupted pass keeps what it committed and says how to go on.
func fillDeep(ctx context.Context, ios *iostreams.IOStreams, ix *research.Index, bar bool) (int, time.Duration, error) {
	var pb *progressBar
	if bar {
		pb = &progressBar{w: ios.ErrOut}
	}
	start := time.Now()
	first := -1
	n, err := ix.FillDeep(ctx, func(done, total int) {
		if first < 0 {
			first = done
		}
		if pb != nil {
			// The rate (and ETA) counts this run's chunks only.
			pb.draw(done-first, total-first, time.Since(start), fmt.Sprintf("deep tier %d/%d chunks", done, total))
		}
	})
	if pb != nil {
		pb.clear()
	}
	if err != nil && ctx.Err() != nil {
		// The root prints only "interrupted" for a cancelled command.
		fmt.Fprintf(ios.ErrOut, "deep tier: stopped after %d chunks (they are kept); run `asky corpus embed` to continue\n", n)
		return n, time.Since(start), &cmdutil.Error{Code: cmdutil.ExitInterrupted,
			Err:  fmt.Errorf("deep tier interrupted after %d chunks (they are kept)", n),
			Hint: "run `asky corpus embed` (or ingest again) to continue; keyword and fast semantic search work meanwhile"}
	}
	return n, time.Since(start), err
}
