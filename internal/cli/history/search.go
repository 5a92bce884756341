package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
)

// SearchOptions are the inputs of `history search`.
type SearchOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	Text  string
	Limit int
	JSON  bool
}

// NewCmdSearch builds `history search <text>`.
func NewCmdSearch(f *cmdutil.Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "search <text>",
		Short: "Full-text search over questions and answers",
		Long: heredoc.Doc(`
			Search every past question and answer, best matches first (BM25; a
			match in the question counts twice). Words are matched with stemming
			("baking" finds "bake") and all words must appear. Punctuation is
			ignored. On a large history the 250 most recent matches are ranked, so
			add words to reach older turns.
		`),
		Example: heredoc.Doc(`
			$ asky history search sourdough starter
			$ asky history search "tcp udp" --limit 5 --json | jq '.results[].id'
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Text = strings.TrimSpace(strings.Join(args, " "))
			if store.FTSQuery(opts.Text) == "" {
				return cmdutil.FlagErrorf("search for words, got %q", opts.Text)
			}
			if opts.Limit < 1 {
				return cmdutil.FlagErrorf("--limit must be positive")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return searchRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 20, "show at most `N` results")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print results as JSON")
	return cmd
}

type searchJSON struct {
	ID        int64     `json:"id"`
	SessionID *int64    `json:"session_id"`
	Session   string    `json:"session"`
	CreatedAt time.Time `json:"created_at"`
	Model     string    `json:"model"`
	Query     string    `json:"query"`
	Snippet   string    `json:"snippet"`
	Score     float64   `json:"score"`
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	hits, err := st.SearchTurns(ctx, opts.Text, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]searchJSON, 0, len(hits))
		for _, h := range hits {
			t := h.Turn
			out = append(out, searchJSON{t.ID, sessionID(t.SessionID), t.SessionName, t.CreatedAt, t.Model, t.Query,
				strings.NewReplacer("«", "", "»", "").Replace(h.Snippet), -h.Score})
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"results": out})
	}
	if len(hits) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "no turn matches %q\n", opts.Text)
		return nil
	}
	color := opts.IO.ColorEnabled()
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	for _, h := range hits {
		t := h.Turn
		where := ""
		if t.SessionName != "" {
			where = " [" + render.Sanitize(t.SessionName) + "]"
		} else if t.SessionID != 0 {
			where = fmt.Sprintf(" [S%d]", t.SessionID)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s%s\n", t.ID, t.CreatedAt.Local().Format("2006-01-02"), searchClip(render.Sanitize(t.Query), 70), where)
		fmt.Fprintf(tw, "\t\t%s\n", searchHighlight(searchClip(render.Sanitize(searchOneLine(h.Snippet)), 110), color))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "show one with `asky history show ID`")
	return nil
}

// searchHighlight turns the «match» markers into bold (or leaves plain brackets
// when color is off).
func searchHighlight(s string, color bool) string {
	if color {
		return strings.NewReplacer("«", "\x1b[1m", "»", "\x1b[22m").Replace(s)
	}
	return strings.NewReplacer("«", "", "»", "").Replace(s)
}

func searchOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func searchClip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
