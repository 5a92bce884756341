package memory

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/store"
)

// SearchOptions are the flags of `memory search`.
type SearchOptions struct {
	deps

	Query string
	Limit int
	JSON  bool
}

// NewCmdSearch builds `memory search`.
func NewCmdSearch(f *cmdutil.Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "search <text…>",
		Short: "Find memories similar to text",
		Long: heredoc.Doc(`
			Rank every memory (global and session) by its similarity to the text,
			best first, with the score (0–1) that recall compares with
			[memory] recall_min_similarity: memories scoring below it are not
			recalled into answers about that text.
		`),
		Example: heredoc.Doc(`
			$ asky memory search where do I live
			$ asky memory search editor --json | jq '.results[0]'
		`),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query = strings.TrimSpace(strings.Join(args, " "))
			if opts.Query == "" {
				return cmdutil.FlagErrorf("give the text to search for, e.g. asky memory search editor")
			}
			if opts.Limit <= 0 {
				return cmdutil.FlagErrorf("--limit must be positive, got %d", opts.Limit)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return searchRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 10, "show at most `N` memories")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {results:[{id, text, tags, scope, score, …}]}")
	return cmd
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	cfg, _, svc, err := opts.open()
	if err != nil {
		return err
	}
	matches, err := svc.Search(ctx, opts.Query, store.MemoryScope{All: true}, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]memoryJSON, 0, len(matches))
		for _, m := range matches {
			j := toJSON(m.Memory)
			score := math.Round(m.Score*1000) / 1000
			j.Score = &score
			out = append(out, j)
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"results": out})
	}
	if len(matches) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "no memory is similar to %q\n", opts.Query)
		return nil
	}
	ms := make([]*store.Memory, len(matches))
	scores := make([]float64, len(matches))
	for i, m := range matches {
		ms[i], scores[i] = m.Memory, m.Score
	}
	if err := printMemories(opts.IO, ms, scores); err != nil {
		return err
	}
	if opts.IO.IsStdoutTTY() {
		fmt.Fprintf(opts.IO.ErrOut, "memories scoring at least %.2f are recalled into answers\n", cfg.Memory.RecallMinSimilarity)
	}
	return nil
}
