// Package query implements asking a question: `asky <question…>` and its
// explicit form `asky query <question…>`.
package query

import (
	"context"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
)

// Options are the flags and dependencies of a query.
type Options struct {
	IO      *iostreams.IOStreams
	Config  func() (*config.Config, error)
	Store   func() (*store.Store, error)
	Factory *cmdutil.Factory
	Now     func() time.Time

	Words        []string
	Model        string
	Lean         bool
	Turns        int
	SystemPrompt string
	ToolOff      []string
	ListTools    bool
	JSON         bool
}

// NewCmdQuery builds the query command; runF replaces the run function in
// tests.
func NewCmdQuery(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Config: f.Config, Store: f.Store, Factory: f, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "query <question…>",
		Short: "Ask a question (the same as bare `asky <question…>`)",
		Long: heredoc.Doc(`
			Ask a question. The answer streams to stdout (rendered markdown on a
			terminal, raw markdown when piped); progress and tool calls go to stderr.

			When stdin is piped, its text is added to the question as context
			("Input from stdin"), up to [input] stdin_max_bytes (100 KB).
		`),
		Example: heredoc.Doc(`
			$ asky query "what is new in Go 1.26"
			$ cat error.log | asky query why does this fail
			$ asky query -L --json "2+2" | jq -r .answer
		`),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Words = args
			opts.ToolOff = tools.ParseToolList(opts.ToolOff)
			if opts.Turns < 0 {
				return cmdutil.FlagErrorf("--turns must be positive, got %d", opts.Turns)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return run(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Model, "model", "m", "", "model `alias` from config (default: $ASKY_MODEL, general.default_model)")
	fl.BoolVarP(&opts.Lean, "lean", "L", false, "lean mode: no tools, no preloading, no extras (fastest)")
	fl.IntVarP(&opts.Turns, "turns", "t", 0, "maximum tool-using turns for this question")
	fl.StringVar(&opts.SystemPrompt, "system-prompt", "", "replace the whole system prompt with `text` (alias -sp)")
	fl.StringArrayVar(&opts.ToolOff, "tool-off", nil, "disable a tool by `name` (repeatable, comma list, or all; alias -off)")
	fl.BoolVar(&opts.ListTools, "tools", false, "list the tools the model can use and exit")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON (answer, sources, tool calls, usage)")
	cmd.Flags().SetInterspersed(true)
	return cmd
}

func joinWords(words []string) string { return strings.TrimSpace(strings.Join(words, " ")) }
