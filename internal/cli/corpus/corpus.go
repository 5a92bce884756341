// Package corpus implements `asky corpus`.
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
		`),
		Example: heredoc.Doc(`
			$ asky corpus ingest ~/papers ./notes
			$ asky corpus query "how does the pager roll back"
			$ asky corpus list
		`),
	}
	cmd.AddCommand(
		cmdutil.Pending("ingest <path|glob>...", "Add or update documents"),
		cmdutil.Pending("list", "List ingested sources"),
		cmdutil.Pending("query <text>", "Search the corpus without a model"),
		cmdutil.Pending("sections <source>", "List the sections of a source"),
		cmdutil.Pending("summarize <source>", "Summarize a source or one of its sections"),
		cmdutil.Pending("remove <source>", "Remove a source"),
		cmdutil.Pending("eval <file.jsonl>", "Measure retrieval quality (recall@K, MRR)"),
	)
	return cmdutil.StrictGroup(cmd)
}
