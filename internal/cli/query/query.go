// Package query implements asking a question: `asky <question…>` and its
// explicit form `asky query <question…>`.
package query

import (
	"context"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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

	// Help prints the command's help (bare `asky` on a terminal).
	Help func() error
	// FlagsGiven counts the flags on the command line: flags without a
	// question are a usage error (or a session update), not a help request.
	FlagsGiven int

	Words        []string
	Model        string
	Lean         bool
	Turns        int
	SystemPrompt string
	ToolOff      []string
	ListTools    bool
	Tools        string // --tools [off [a,b]|reset]
	ToolsReset   bool   // --tools reset: forget the session's tools-off list
	JSON         bool

	// StdinWait is how long to wait for the first byte of piped stdin
	// before saying so (zero: stdinWaitNotice).
	StdinWait time.Duration

	// Remote is set for questions from the daemon (RunRemote): an
	// extension that runs local commands (custom tools) must stay off
	// unless enabled for remote use (reliability.md §3.8).
	Remote bool

	// Set by later capabilities; each is handled by its extension file.
	Continue       string // -c [selector]
	Summarize      bool   // -s
	Research       string // -r [pointer]
	ResearchSet    bool   // -r given (possibly without a value)
	Shortlist      string // --shortlist on|off|reset
	StickySession  string // -ss NAME
	ResumeSession  string // -rs SEL
	NewSession     bool   // --session: name a new session from the query
	ElephantMode   bool   // -em
	OpenReport     bool   // --open: write the report and open it
	Output         string // -o [PATH]: write the HTML report (" " = archive dir)
	CopyClipboard  bool   // -cc
	SessionEnd     bool   // -se
	SessionHistory string // -sh [N]
	PrintSession   string // -ps SEL
	FromMessage    string // -sfm ID
	PrintAnswer    string // -pa SEL
	History        string // -H [N]
	Reply          bool   // --reply
	TerminalLines  string // -tl [N]
	SendMail       string // --sendmail addr,…
	Subject        string // --subject
	PushData       string // --push-data ENDPOINT[?k=v]
}

// emptyValues refuses a text flag given an empty value (`-ss "$NAME"` with
// NAME unset): the flag would otherwise be silently left out. Flags whose
// value is optional (-c, -r, -o, …) are not checked.
func emptyValues(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err == nil && f.Value.Type() == "string" && f.NoOptDefVal == "" && strings.TrimSpace(f.Value.String()) == "" {
			err = cmdutil.FlagErrorf("--%s needs a value, got an empty one", f.Name)
		}
	})
	return err
}

// exclusive refuses more than one of the named flags.
func exclusive(fs *pflag.FlagSet, names ...string) error {
	var given []string
	for _, n := range names {
		if fs.Changed(n) {
			given = append(given, "--"+n)
		}
	}
	if len(given) > 1 {
		return cmdutil.FlagErrorf("%s cannot be combined; give one of them", strings.Join(given, " and "))
	}
	return nil
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
			$ asky query --shortlist on -v "latest Go release notes"
			$ asky query -tl 40 why did this build fail      # inside tmux, kitty or WezTerm
			$ asky query -o report.html --open "compare raft and paxos"
			$ asky query -ss trip -em "I am vegetarian; dinner ideas in Lisbon?"
			$ asky query --tools off web_search "explain this regex: ^a+$"
			$ asky query --sendmail me@example.org "weekly Go news"
		`),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := emptyValues(c.Flags()); err != nil {
				return err
			}
			// One of each kind wins silently otherwise: the session a
			// question goes to, and what a listing flag prints.
			if err := exclusive(c.Flags(), "sticky-session", "resume-session", "session", "reply", "session-from-message"); err != nil {
				return err
			}
			if err := exclusive(c.Flags(), "history", "print-answer", "session-history", "print-session"); err != nil {
				return err
			}
			opts.Words = args
			opts.Help = c.Help
			opts.FlagsGiven = c.Flags().NFlag()
			opts.ResearchSet = c.Flags().Changed("research")
			opts.Research = strings.TrimSpace(opts.Research)
			opts.ToolOff = tools.ParseToolList(opts.ToolOff)
			if opts.Turns < 0 || opts.Turns == 0 && c.Flags().Changed("turns") {
				return cmdutil.FlagErrorf("--turns must be positive, got %d", opts.Turns)
			}
			if opts.Lean && opts.ResearchSet {
				// Lean runs no tools and no preloading: research would
				// be silently skipped.
				return cmdutil.UsageError("drop -L to research, or drop -r to ask without research",
					"-L (lean) does no research; it cannot be combined with -r")
			}
			switch opts.Shortlist {
			case "", "on", "off", "reset":
			default:
				return cmdutil.FlagErrorf("--shortlist takes on, off or reset, got %q", opts.Shortlist)
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
	fl.StringVar(&opts.Tools, "tools", "", "list the tools (no value), turn them `off [a,b]` for this question and session, or reset")
	fl.Lookup("tools").NoOptDefVal = toolsFlagList
	fl.BoolVar(&opts.ListTools, "list-tools", false, "list the tools the model can use and exit")
	fl.BoolVar(&opts.ToolsReset, "tools-reset", false, "forget the session's tools-off list")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON (answer, sources, tool calls, usage, truncated)")
	fl.StringVarP(&opts.Continue, "continue-chat", "c", "", "continue from history `selector` (no value: the last turn); without a session it becomes one")
	fl.Lookup("continue-chat").NoOptDefVal = "~1"
	fl.BoolVarP(&opts.Summarize, "summarize", "s", false, "summarize fetched pages and use summaries for -c context")
	fl.StringVarP(&opts.Research, "research", "r", "", "research mode over `pointer`: files, dirs, comma list, or web")
	fl.Lookup("research").NoOptDefVal = " "
	fl.StringVar(&opts.Shortlist, "shortlist", "", "search, read and rank web sources before the model runs: `on`, off, or reset (kept on the session)")
	fl.StringVar(&opts.StickySession, "sticky-session", "", "create session `name` and bind this shell to it (alias -ss)")
	fl.StringVar(&opts.ResumeSession, "resume-session", "", "bind this shell to session `selector` (alias -rs)")
	fl.BoolVar(&opts.NewSession, "session", false, "start a new session named from the question")
	fl.BoolVar(&opts.ElephantMode, "elephant-mode", false, "after each answer, save facts you state about yourself to the session's memory (alias -em)")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the answer as an HTML report to `path` (no value: the archive dir)")
	fl.Lookup("output").NoOptDefVal = " "
	fl.BoolVar(&opts.OpenReport, "open", false, "write the HTML report (see -o) and open it in the browser")
	fl.BoolVar(&opts.CopyClipboard, "copy-clipboard", false, "copy the final answer to the clipboard (alias -cc)")
	fl.BoolVar(&opts.SessionEnd, "session-end", false, "detach this shell from its session (alias -se)")
	fl.StringVar(&opts.SessionHistory, "session-history", "", "list `N` sessions (alias -sh)")
	fl.Lookup("session-history").NoOptDefVal = "10"
	fl.StringVar(&opts.PrintSession, "print-session", "", "print session `selector` (alias -ps)")
	fl.StringVar(&opts.FromMessage, "session-from-message", "", "turn history `id` into a session (alias -sfm)")
	fl.StringVar(&opts.PrintAnswer, "print-answer", "", "print history answers `selector` (alias -pa)")
	fl.StringVarP(&opts.History, "history", "H", "", "list the last `N` turns")
	fl.Lookup("history").NoOptDefVal = "10"
	fl.BoolVar(&opts.Reply, "reply", false, "continue the last conversation as a session")
	fl.StringVar(&opts.TerminalLines, "terminal-lines", "", "send the last `N` lines of this terminal (tmux, kitty, WezTerm) to the model with the question; default [general] terminal_context_lines (alias -tl)")
	fl.Lookup("terminal-lines").NoOptDefVal = " "
	fl.StringVar(&opts.SendMail, "sendmail", "", "mail the answer as HTML to `addresses` (comma list) through [email] SMTP")
	fl.StringVar(&opts.Subject, "subject", "", "mail `subject` for --sendmail (default: the answer's title)")
	fl.StringVar(&opts.PushData, "push-data", "", "POST the answer as JSON to [push_data.NAME] `endpoint` (NAME?key=value passes parameters)")
	for _, name := range []string{"list-tools", "tools-reset"} {
		_ = fl.MarkHidden(name)
	}
	hideNoValueSentinels(cmd)
	cmd.Flags().SetInterspersed(true)
	return cmd
}

func joinWords(words []string) string { return strings.TrimSpace(strings.Join(words, " ")) }

// hideNoValueSentinels keeps pflag's help from printing the internal
// no-value markers of the optional-value flags (-o, -r, -tl, --tools) as
// `path[=" "]`: their usage text already says what no value means. The
// markers are blanked only while the help is written.
func hideNoValueSentinels(cmd *cobra.Command) {
	help := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		var blanked []*pflag.Flag
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.NoOptDefVal == " " || fl.Name == "tools" && fl.NoOptDefVal == toolsFlagList {
				blanked = append(blanked, fl)
			}
		})
		saved := make([]string, len(blanked))
		for i, fl := range blanked {
			saved[i], fl.NoOptDefVal = fl.NoOptDefVal, ""
		}
		defer func() {
			for i, fl := range blanked {
				fl.NoOptDefVal = saved[i]
			}
		}()
		help(c, args)
	})
}
