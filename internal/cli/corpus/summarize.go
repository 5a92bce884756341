package corpus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/provider"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/usage"
)

// SummarizeOptions are the flags of `corpus summarize`.
type SummarizeOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Source  string
	Section string
	Detail  string
	Model   string
	JSON    bool
	// NewClient builds the model client (tests inject a fake).
	NewClient func(m *config.ResolvedModel, hc *http.Client) (llm.Client, error)
}

// NewCmdSummarize builds `corpus summarize`.
func NewCmdSummarize(f *cmdutil.Factory, runF func(context.Context, *SummarizeOptions) error) *cobra.Command {
	opts := &SummarizeOptions{IO: f.IO, Factory: f, NewClient: func(m *config.ResolvedModel, hc *http.Client) (llm.Client, error) {
		return provider.New(m, hc, provider.Options{})
	}}
	cmd := &cobra.Command{
		Use:     "summarize <source>",
		Aliases: []string{"summarize-section"},
		Short:   "Summarize a source or one of its sections",
		Long: heredoc.Doc(`
			Summarize a whole source, or one section of it, with the summarization
			model (general.summarization_model, else the default model). Long text
			is summarized in pieces first. This is the only corpus command that
			needs a model.

			The source is an id, a handle, a path or a title; a section title
			that no source is named after summarizes that section of the one
			source that has it (as the original's summarize-section).
		`),
		Example: heredoc.Doc(`
			$ asky corpus summarize 3
			$ asky corpus summarize rfc6749.pdf --section "Refresh Token" --detail compact
			$ asky corpus summarize 3 --json | jq -r .summary
			$ asky corpus summarize "Refresh Token"        # a section title
		`),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Source = args[0]
			switch opts.Detail {
			case "compact", "balanced", "max":
			default:
				return cmdutil.FlagErrorf("--detail must be compact, balanced or max, got %q", opts.Detail)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return summarizeRun(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Section, "section", "", "summarize only this section (`id` or title, see corpus sections)")
	cmd.Flags().StringVar(&opts.Detail, "detail", "balanced", "summary length: compact, balanced or max")
	cmd.Flags().StringVarP(&opts.Model, "model", "m", "", "model `alias` (default: general.summarization_model)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {source, title, section, model, summary}")
	return cmd
}

func summarizeRun(ctx context.Context, opts *SummarizeOptions) error {
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	st, err := opts.Factory.Store()
	if err != nil {
		return err
	}
	meta, handleSection, err := research.ResolveSource(ctx, st, opts.Source)
	if errors.Is(err, research.ErrNoSource) && opts.Section == "" {
		// As the original's summarize-section: a section title of
		// whichever source has it.
		meta, handleSection, err = sourceBySection(ctx, st, opts.Source, err)
	}
	if err != nil {
		return resolveErr(err)
	}
	src, err := st.CorpusSource(ctx, meta.ID)
	if err != nil {
		return err
	}
	want := opts.Section
	if want == "" {
		want = handleSection
	}
	text, label, err := sectionText(src.Content, research.SectionsOf(src), want)
	if err != nil {
		return err
	}
	alias := opts.Model
	if alias == "" {
		alias = cfg.General.SummarizationModel
	}
	model, err := cfg.ResolveModel(ctx, alias, opts.Factory.Env())
	if err != nil {
		return err
	}
	client, err := opts.NewClient(model, opts.Factory.HTTPClient())
	if err != nil {
		return err
	}
	client = llm.Metered(client, &usage.Recorder{Ledger: st, Model: model})
	title := src.Title
	if label != "" {
		title += " › " + label
	}
	if opts.IO.IsStderrTTY() {
		fmt.Fprintf(opts.IO.ErrOut, "summarizing %s (%d chars) with %s…\n", render.SanitizeLine(title), len(text), model.ID)
	}
	sum, err := research.Summarize(llm.WithPurpose(ctx, llm.PurposeSummary), client, model.ID, title, text, opts.Detail)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, summaryJSON{Source: research.Handle(src.ID), Title: src.Title, Section: label, Model: model.Alias, Summary: sum})
	}
	fmt.Fprintln(opts.IO.Out, render.Sanitize(sum))
	return nil
}

// summaryJSON is the --json shape of `corpus summarize`.
type summaryJSON struct {
	Source  string `json:"source"`
	Title   string `json:"title"`
	Section string `json:"section"`
	Model   string `json:"model"`
	Summary string `json:"summary"`
}

// sectionText returns the text to summarize and its label.
// sourceBySection finds the one source with a section titled title
// (exact, case-insensitive); notFound is returned when none has it.
func sourceBySection(ctx context.Context, st *store.Store, title string, notFound error) (*store.CorpusSource, string, error) {
	srcs, err := st.ListCorpusSources(ctx)
	if err != nil {
		return nil, "", err
	}
	var (
		found   *store.CorpusSource
		section string
		matches []string
	)
	for i := range srcs {
		for _, sec := range research.SectionsOf(&srcs[i]) {
			if sec.Title != "" && strings.EqualFold(strings.TrimSpace(sec.Title), strings.TrimSpace(title)) {
				found, section = &srcs[i], sec.ID
				matches = append(matches, research.Handle(srcs[i].ID)+"#section="+sec.ID)
			}
		}
	}
	switch len(matches) {
	case 0:
		return nil, "", notFound
	case 1:
		return found, section, nil
	}
	return nil, "", cmdutil.WithHint(fmt.Errorf("section %q is in several places: %s", title, strings.Join(matches, ", ")),
		"name one: asky corpus summarize HANDLE (e.g. "+matches[0]+")")
}

func sectionText(content string, secs []research.Section, want string) (string, string, error) {
	if want == "" {
		return content, "", nil
	}
	sec, cands := research.MatchSection(secs, want)
	if sec == nil {
		hint := "list sections with `asky corpus sections SOURCE`"
		if len(cands) > 0 {
			return "", "", cmdutil.WithHint(fmt.Errorf("section %q is ambiguous: %s", want, strings.Join(cands, ", ")), hint)
		}
		return "", "", cmdutil.WithHint(fmt.Errorf("no section matches %q", want), hint)
	}
	text := content[sec.Start:sec.End]
	if len(strings.TrimSpace(text)) < research.MinSectionChars {
		return "", "", cmdutil.Errorf("pick a larger section or summarize the whole source", "section %q is too short to summarize (%d chars)", sec.Title, len(strings.TrimSpace(text)))
	}
	return text, sec.Title, nil
}
