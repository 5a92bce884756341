package corpus

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
)

// ListOptions are the flags of `corpus list`.
type ListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
}

// NewCmdList builds `corpus list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List ingested sources",
		Long: heredoc.Doc(`
			List every ingested source with its id, format, chunk count, size and
			title. Ids and corpus://cache/<id> handles are accepted wherever a
			SOURCE is expected.
		`),
		Example: heredoc.Doc(`
			$ asky corpus list
			$ asky corpus list --json | jq '.sources[].path'
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print sources as JSON")
	return cmd
}

type listedSource struct {
	ID        int64  `json:"id"`
	Handle    string `json:"handle"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	Format    string `json:"format"`
	Chunks    int    `json:"chunks"`
	Bytes     int64  `json:"bytes"`
	Chars     int64  `json:"chars"`
	UpdatedAt string `json:"updated_at"`
}

func listRun(ctx context.Context, opts *ListOptions) error {
	st, err := opts.Factory.Store()
	if err != nil {
		return err
	}
	srcs, err := st.ListCorpusSources(ctx)
	if err != nil {
		return err
	}
	out := make([]listedSource, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, listedSource{ID: s.ID, Handle: research.Handle(s.ID), Path: s.Path, Title: s.Title, Format: s.Format,
			Chunks: s.ChunkCount, Bytes: s.Size, Chars: s.Chars, UpdatedAt: s.UpdatedAt.Format("2006-01-02 15:04")})
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"sources": out})
	}
	if len(out) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "the corpus is empty; add documents with `asky corpus ingest PATH`")
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFORMAT\tCHUNKS\tSIZE\tTITLE\tPATH")
	for _, s := range out {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", s.ID, s.Format, s.Chunks, humanBytes(s.Bytes), clip(s.Title, 40), render.SanitizeLine(s.Path))
	}
	return tw.Flush()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// clip makes untrusted text (a title, chunk text) safe for one line and
// cuts it to n runes.
func clip(s string, n int) string {
	s = render.SanitizeLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
