package corpus

import (
	"context"
	"fmt"
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
}

// NewCmdQuery builds `corpus query`.
func NewCmdQuery(f *cmdutil.Factory, runF func(context.Context, *QueryOptions) error) *cobra.Command {
	opts := &QueryOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "query <text>",
		Short: "Search the corpus without a model",
		Long: heredoc.Doc(`
			Search the corpus offline with hybrid retrieval (FTS5 BM25 fused with
			the embedder's vectors by reciprocal rank) and print the best chunks
			with their source, section and score. Any text is accepted: quotes,
			AND/OR/NEAR, colons and dashes are searched as words.
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
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return queryRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.TopK, "top-k", "k", 5, "number of results")
	cmd.Flags().StringArrayVar(&opts.Sources, "source", nil, "limit to `source` (id, handle, path, directory or title; repeatable)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print results as JSON")
	return cmd
}

type queryResult struct {
	Source  string  `json:"source"`
	Title   string  `json:"title"`
	Path    string  `json:"path"`
	Section string  `json:"section"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
}

func queryRun(ctx context.Context, opts *QueryOptions) error {
	_, st, ix, err := openIndex(opts.Factory)
	if err != nil {
		return err
	}
	ids, err := resolveSourceIDs(ctx, st, opts.Sources)
	if err != nil {
		return err
	}
	hits, err := ix.Search(ctx, opts.Text, research.SearchOptions{TopK: opts.TopK, Sources: ids})
	if err != nil {
		return err
	}
	if ix.Missing > 0 && !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "note: %d chunks have no vectors for the current embedder (keyword search only for them); run `asky corpus reindex`\n", ix.Missing)
	}
	res := make([]queryResult, 0, len(hits))
	for _, h := range hits {
		res = append(res, queryResult{Source: research.Handle(h.SourceID), Title: h.Title, Path: h.Path, Section: h.Section, Text: h.Text, Score: h.Score})
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"results": res})
	}
	if len(res) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no results; see `asky corpus list` for what is ingested")
		return nil
	}
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		// Breadcrumbs usually start with the document title already.
		where := r.Title
		switch {
		case r.Section == "":
		case strings.HasPrefix(r.Section, r.Title):
			where = r.Section
		default:
			where += " › " + r.Section
		}
		fmt.Fprintf(opts.IO.Out, "%d. %s  (%s, score %.3f)\n   %s\n", i+1, render.SanitizeLine(where), r.Source, r.Score, render.SanitizeLine(r.Path))
		fmt.Fprintf(opts.IO.Out, "   %s\n", clip(r.Text, 600))
	}
	return nil
}
