package corpus

import (
	"context"
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
		Use:   "summarize <source>",
		Short: "Summarize a source or one of its sections",
		Long: heredoc.Doc(`
			Summarize a whole source, or one section of it, with the summarization
			model (general.summarization_model, else the default model). Long text
			is summarized in pieces first. This is the only corpus command that
			needs a model.
		`),
		Example: heredoc.Doc(`
			$ asky corpus summarize 3
			$ asky corpus summarize rfc6749.pdf --section "Refresh Token" --detail compact
			$ asky corpus summarize 3 --json | jq -r .summary
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
