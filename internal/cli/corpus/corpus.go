// Package corpus implements `asky corpus`: ingest local documents into the
// offline hybrid index and search, inspect, summarize and evaluate it.
package corpus

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdCorpus builds the corpus group.
func NewCmdCorpus(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus <command>",
		Short: "Ingest and search local documents (offline)",
		Long: heredoc.Doc(`
			The corpus is a local index of your documents (txt, md, html, json, csv, pdf, epub) searchable without a network or a model, and used by asky -r to answer with cited sources.

			Search is hybrid: SQLite FTS5 (BM25) fused with vectors of the configured embedder, and a rare exact token or "quoted phrase" of the query (an error code, a function name) puts its chunk first. The builtin embedder (minilm-l6-static, compiled in) is semantic: a static token table distilled from all-MiniLM-L6-v2, joined with hash-v1's fuzzy n-grams. For transformer quality configure [research.embedding] with Ollama or an OpenAI-compatible endpoint, then run corpus reindex; or keep the fast embedder and add a deep tier ([research.deep]): a second, slower embedder filled after ingest by corpus embed (or the daemon), fused where it covers the candidates.
		`),
		Example: heredoc.Doc(`
			$ asky corpus ingest ~/papers ./notes
			$ asky corpus query "how does the pager roll back"
			$ asky corpus list
		`),
	}
	cmd.AddCommand(
		NewCmdIngest(f, nil),
		NewCmdList(f, nil),
		NewCmdQuery(f, nil),
		NewCmdSections(f, nil),
		NewCmdSummarize(f, nil),
		NewCmdRemove(f, nil),
		NewCmdEval(f, nil),
		NewCmdReindex(f, nil),
		NewCmdEmbed(f, nil),
	)
	return cmdutil.StrictGroup(cmd)
}
