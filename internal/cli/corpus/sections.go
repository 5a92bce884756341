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

// SectionsOptions are the flags of `corpus sections`.
type SectionsOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Source  string
	JSON    bool
}

// NewCmdSections builds `corpus sections`.
func NewCmdSections(f *cmdutil.Factory, runF func(context.Context, *SectionsOptions) error) *cobra.Command {
	opts := &SectionsOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "sections <source>",
		Short: "List the sections of a source",
		Long: heredoc.Doc(`
			List the sections detected in a source (markdown/HTML/EPUB headings,
			or heading heuristics for PDF and text) with their ids and sizes. A
			section id selects it in corpus summarize --section.
		`),
		Example: heredoc.Doc(`
			$ asky corpus sections 3
			$ asky corpus sections rfc6749.pdf --json
		`),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return sectionsRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print sections as JSON")
	return cmd
}

func sectionsRun(ctx context.Context, opts *SectionsOptions) error {
	st, err := opts.Factory.Store()
	if err != nil {
		return err
	}
	src, _, err := research.ResolveSource(ctx, st, opts.Source)
	if err != nil {
		return resolveErr(err)
	}
	secs := research.SectionsOf(src)
	type row struct {
		ID    string `json:"id"`
		Ref   string `json:"ref"`
		Title string `json:"title"`
		Level int    `json:"level"`
		Path  string `json:"path"`
		Chars int    `json:"chars"`
	}
	rows := make([]row, 0, len(secs))
	for _, s := range secs {
		rows = append(rows, row{ID: s.ID, Ref: research.Handle(src.ID) + "#section=" + s.ID, Title: s.Title, Level: s.Level, Path: s.Path, Chars: s.End - s.Start})
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"source": research.Handle(src.ID), "title": src.Title, "sections": rows})
	}
	fmt.Fprintf(opts.IO.Out, "%s  %s\n", research.Handle(src.ID), render.SanitizeLine(src.Title))
	for _, r := range rows {
		title := r.Title
		if title == "" {
			title = "(before the first heading)"
		}
		indent := strings.Repeat("  ", max(r.Level-1, 0))
		fmt.Fprintf(opts.IO.Out, "  %s%s  [%s, %d chars]\n", indent, render.SanitizeLine(title), render.SanitizeLine(r.ID), r.Chars)
	}
	return nil
}
