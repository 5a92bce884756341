package corpus

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
)

// EvalOptions are the flags of `corpus eval`.
type EvalOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Files   []string
	TopK    int
	JSON    bool
	Sources []string
}

// NewCmdEval builds `corpus eval`.
func NewCmdEval(f *cmdutil.Factory, runF func(context.Context, *EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "eval <file.jsonl>...",
		Short: "Measure retrieval quality (recall@K, MRR)",
		Long: heredoc.Doc(`
			Run every query of a JSONL file ({"query": "...", "gold_any": ["..."]}
			per line) against the corpus. A query is a hit when any gold string
			appears in one of the top-K chunks (case-insensitive, whitespace
			collapsed, curly quotes straightened). Prints recall@K and MRR per
			file, pooled over all files, and the misses.
		`),
		Example: heredoc.Doc(`
			$ asky corpus eval queries.jsonl
			$ asky corpus eval --top-k 10 --json a.jsonl b.jsonl
			$ asky corpus eval --source ~/eval/licenses queries-licenses.jsonl
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if opts.TopK <= 0 {
				return cmdutil.FlagErrorf("--top-k must be positive, got %d", opts.TopK)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return evalRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.TopK, "top-k", "k", 5, "K for recall@K")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the reports as JSON")
	cmd.Flags().StringArrayVar(&opts.Sources, "source", nil, "search only `source` (id, handle, path, directory or title; repeatable)")
	return cmd
}

func evalRun(ctx context.Context, opts *EvalOptions) error {
	_, st, ix, err := openIndex(opts.Factory)
	if err != nil {
		return err
	}
	sources, err := resolveSourceIDs(ctx, st, opts.Sources)
	if err != nil {
		return err
	}
	type fileReport struct {
		File string `json:"file"`
		*research.EvalReport
	}
	var reports []fileReport
	pooled := &research.EvalReport{K: opts.TopK}
	var rrSum float64
	for _, name := range opts.Files {
		f, err := os.Open(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is named once, below
			}
			return cmdutil.Errorf("check the path", "cannot read %s: %v", name, err)
		}
		qs, err := research.ReadEvalQueries(f)
		f.Close()
		if err != nil {
			return cmdutil.Errorf(`each line must be {"query": "...", "gold_any": ["..."]}`, "%s: %v", name, err)
		}
		rep, err := research.Evaluate(ctx, ix, qs, research.SearchOptions{TopK: opts.TopK, Sources: sources})
		if err != nil {
			return err
		}
		reports = append(reports, fileReport{File: name, EvalReport: rep})
		pooled.Queries += rep.Queries
		pooled.Hits += rep.Hits
		rrSum += rep.MRR * float64(rep.Queries)
	}
	if pooled.Queries > 0 {
		pooled.Recall = float64(pooled.Hits) / float64(pooled.Queries)
		pooled.MRR = rrSum / float64(pooled.Queries)
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"files": reports, "pooled": map[string]any{"k": opts.TopK, "queries": pooled.Queries, "hits": pooled.Hits, "recall": pooled.Recall, "mrr": pooled.MRR}})
	}
	for _, r := range reports {
		fmt.Fprintf(opts.IO.Out, "%s: recall@%d %.3f (%d/%d)  MRR %.3f\n", render.SanitizeLine(r.File), opts.TopK, r.Recall, r.Hits, r.Queries, r.MRR)
		for _, q := range r.Results {
			if q.Rank == 0 {
				fmt.Fprintf(opts.IO.Out, "  miss: %s  (top: %s)\n", render.SanitizeLine(q.Query), render.SanitizeLine(q.Top))
			}
		}
	}
	if len(reports) > 1 {
		fmt.Fprintf(opts.IO.Out, "pooled: recall@%d %.3f (%d/%d)  MRR %.3f\n", opts.TopK, pooled.Recall, pooled.Hits, pooled.Queries, pooled.MRR)
	}
	return nil
}
