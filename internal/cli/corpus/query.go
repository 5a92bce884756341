package corpus

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
)

// QueryOptions are the flags of `corpus query`.
type QueryOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Text    string
	TopK    int
	Sources []string
	JSON    bool
	// MinScore is the relevance floor; nil means [research] min_relevance.
	MinScore *float64
}

// NewCmdQuery builds `corpus query`.
func NewCmdQuery(f *cmdutil.Factory, runF func(context.Context, *QueryOptions) error) *cobra.Command {
	opts := &QueryOptions{IO: f.IO, Factory: f}
	var minScore float64
	cmd := &cobra.Command{
		Use:   "query <text>",
		Short: "Search the corpus without a model",
		Long: heredoc.Doc(`
			Search the corpus offline with hybrid retrieval (FTS5 BM25 fused with
			the embedder's vectors by reciprocal rank) and print the best chunks
			with their source and section. Any text is accepted: quotes,
			AND/OR/NEAR, colons and dashes are searched as words.

			The fused rank picks the top K, shown best relevance first. The
			relevance, from 0 to 1 and comparable across queries, is the
			weighted mean of "words" (the share of the query's words found in
			the chunk, rare words counting more) and "meaning" (the embedder's
			cosine similarity), weighted by [research] dense_weight /
			lexical_weight. Chunks below --min-score
			(default [research] min_relevance) are left out; when none is left
			the answer is "no good match". --json carries score (the relevance),
			lexical, dense and rank (the fused rank score, 1 = first in both lists).
		`),
		Example: heredoc.Doc(`
			$ asky corpus query "how does the pager roll back"
			$ asky corpus query --top-k 10 --source 3 "refresh token"
			$ asky corpus query --source ~/papers "main conclusions"
			$ asky corpus query --json "data race" | jq -r '.results[0].text'
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Text = strings.TrimSpace(strings.Join(args, " "))
			if opts.Text == "" {
				return cmdutil.FlagErrorf("empty query")
			}
			if opts.TopK <= 0 {
				return cmdutil.FlagErrorf("--top-k must be positive, got %d", opts.TopK)
			}
			if c.Flags().Changed("min-score") {
				if minScore < 0 || minScore > 1 {
					return cmdutil.FlagErrorf("--min-score must be between 0 and 1, got %g", minScore)
				}
				opts.MinScore = &minScore
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return queryRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.TopK, "top-k", "k", 5, "number of results")
	cmd.Flags().StringArrayVar(&opts.Sources, "source", nil, "limit to `source` (id, handle, path, directory or title; repeatable)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print results as JSON")
	cmd.Flags().Float64Var(&minScore, "min-score", 0, "leave out chunks with relevance below `score` (0–1; default [research] min_relevance, 0 shows all)")
	return cmd
}

type queryResult struct {
	Source  string  `json:"source"`
	Title   string  `json:"title"`
	Path    string  `json:"path"`
	Section string  `json:"section"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
	Lexical float64 `json:"lexical"`
	Dense   float64 `json:"dense"`
	Rank    float64 `json:"rank"`
}

// queryHeapLimit is the heap a query may grow to before the collector
// runs: a query allocates a few MB, so it never does, while a query that
// first rebuilds a missing vector snapshot from SQLite (streaming GBs)
// stays within it.
const queryHeapLimit = 32 << 20

func queryRun(ctx context.Context, opts *QueryOptions) error {
	// One query is one short process: its few MB of garbage die with it,
	// and collecting them cost 3–4 cycles (≈10% of a cold query's CPU).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(queryHeapLimit))
	cfg, st, ix, err := openIndex(opts.Factory)
	var broken *research.ModelLoadError
	if errors.As(err, &broken) && ix != nil {
		// A damaged local model must not take the whole corpus away.
		fmt.Fprintf(opts.IO.ErrOut, "warning: %v; searching by keyword only (fix the model or set [research.embedding] provider = \"builtin\")\n", broken)
		err = nil
	}
	if err != nil {
		return err
	}
	floor := cfg.Research.MinRelevance
	if opts.MinScore != nil {
		floor = *opts.MinScore
	}
	ids, err := resolveSourceIDs(ctx, st, opts.Sources)
	if err != nil {
		return err
	}
	// The nearest chunk says how far from the floor an empty answer was.
	hits, best, err := ix.SearchNearest(ctx, opts.Text, research.SearchOptions{TopK: opts.TopK, Sources: ids, MinRelevance: floor})
	if err != nil {
		return err
	}
	if ix.Missing > 0 && !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "note: %d chunks have no vectors for the current embedder (keyword search only for them); run `asky corpus reindex`\n", ix.Missing)
	}
	res := make([]queryResult, 0, len(hits))
	for _, h := range hits {
		res = append(res, queryResult{Source: research.Handle(h.SourceID), Title: h.Title, Path: h.Path, Section: h.Section, Text: h.Text, Score: h.Relevance, Lexical: h.Lexical, Dense: h.Dense, Rank: h.Score})
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"results": res, "min_score": floor})
	}
	if len(res) == 0 {
		if best != nil && floor > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "no good match: the nearest chunk has relevance %.2f, below the %.2f floor\n", best.Relevance, floor)
			fmt.Fprintln(opts.IO.ErrOut, "hint: try other words, or `--min-score 0` to see the nearest chunks anyway")
			return nil
		}
		fmt.Fprintln(opts.IO.ErrOut, "no results; see `asky corpus list` for what is ingested")
		return nil
	}
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		where := research.Breadcrumb(r.Title, r.Section)
		fmt.Fprintf(opts.IO.Out, "%d. %s  (%s, relevance %.2f: words %.2f, meaning %.2f)\n   %s\n", i+1, render.SanitizeLine(where), render.SanitizeLine(r.Source), r.Score, r.Lexical, r.Dense, render.SanitizeLine(r.Path))
		fmt.Fprintf(opts.IO.Out, "   %s\n", clip(r.Text, 600))
	}
	return nil
}
