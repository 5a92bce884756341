package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
	"github.com/askygo/asky/internal/cli/configcmd"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/cli/daemon"
	"github.com/askygo/asky/internal/cli/history"
	"github.com/askygo/asky/internal/cli/job"
	"github.com/askygo/asky/internal/cli/memory"
	"github.com/askygo/asky/internal/cli/prompts"
	"github.com/askygo/asky/internal/cli/query"
	"github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/cli/usagecmd"
)

// NewCmdRoot builds the whole command tree. The root command is itself the
// query command: bare words ask a question.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := query.NewCmdQuery(f, nil)
	root.Use = "asky [flags] <question…>"
	root.Short = "A terminal-first research assistant"
	root.Long = heredoc.Doc(`
		asky answers questions from the shell with web search, URL reading, your
		local documents and what it remembers about you. Every turn is kept in a
		local SQLite history.

		Bare words ask a question; piped stdin is added to the question as
		context. Answers stream to stdout; progress and hints go to stderr.

		Exit status: 0 ok, 1 error, 2 usage error, 3 no model configured or
		provider unreachable, 130 interrupted.
	`)
	root.Example = heredoc.Doc(`
		$ asky what is the difference between TCP and UDP
		$ git diff | asky "write a commit message for this change"
		$ asky -L "tar flags to extract a .tar.gz"      # lean: no tools, fastest
		$ asky -m sonnet --json "capital of France" | jq .answer
		$ asky history list
	`)
	// -V as well as --version: -v is verbose. Handled here rather than by
	// cobra's Version field, which prints the version and drops any words:
	// `asky -V what is this` is refused as `asky version what is this` is.
	showVersion := root.Flags().BoolP("version", "V", false, "show asky's version")
	ask := root.RunE
	root.RunE = func(c *cobra.Command, args []string) error {
		if *showVersion {
			return printVersion(c, args)
		}
		return ask(c, args)
	}
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().CountVarP(&f.Verbosity, "verbose", "v", "show tool calls and timings on stderr (-vv: full request/response payloads, keys redacted)")

	root.AddGroup(&cobra.Group{ID: "ask", Title: "Asking:"}, &cobra.Group{ID: "data", Title: "Your data:"}, &cobra.Group{ID: "setup", Title: "Setup:"})
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add("ask", query.NewCmdQuery(f, nil))
	add("data", history.NewCmdHistory(f), session.NewCmdSession(f), memory.NewCmdMemory(f), corpus.NewCmdCorpus(f), prompts.NewCmdPrompts(f), usagecmd.NewCmdUsage(f, nil), job.NewCmdJob(f))
	add("setup", configcmd.NewCmdConfig(f), daemon.NewCmdDaemon(f, remoteCommands{f: f}), completion.NewCmdCompletion(f), newCmdVersion())
	root.SetHelpCommand(newCmdHelp(root))
	root.SetHelpCommandGroupID("setup")
	guardNearMiss(root)
	indentExamples(root)
	completion.RegisterDynamic(root, f)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if hint := movedFlagHint(err); hint != "" {
			return &cmdutil.FlagError{Err: err, Hint: hint}
		}
		return &cmdutil.FlagError{Err: plainFlagValueError(err), Hint: "see `" + c.CommandPath() + " --help`"}
	})
	usageArgErrors(root)
	return root
}

// usageArgErrors makes cobra's positional-argument checks ("requires at
// least 1 arg(s)") usage errors (exit 2) that show the command's usage
// line, like bad flags; cobra returns them as plain errors.
func usageArgErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &cmdutil.FlagError{Err: plainArgsError(cmd, args, err), Hint: "usage: " + cmd.UseLine() + "; see `" + cmd.CommandPath() + " --help`"}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgErrors(sub)
	}
}

// indentExamples indents every command's examples under their heading, as
// the rest of cobra's help is indented.
func indentExamples(c *cobra.Command) {
	if c.Example != "" {
		lines := strings.Split(strings.TrimRight(c.Example, "\n"), "\n")
		for i, l := range lines {
			if l != "" && !strings.HasPrefix(l, " ") {
				lines[i] = "  " + l
			}
		}
		c.Example = strings.Join(lines, "\n")
	}
	for _, sub := range c.Commands() {
		indentExamples(sub)
	}
}

// plainFlagValueError words a flag value of the wrong type (`-t abc`) for
// a person: "--turns takes a whole number, got "abc"" rather than the
// strconv error.
func plainFlagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	want := ""
	switch ive.GetFlag().Value.Type() {
	case "int", "int64", "int32", "uint", "count":
		want = "a whole number"
	case "float64", "float32":
		want = "a number"
	case "bool":
		want = "true or false"
	case "duration":
		want = "a duration such as 30s or 5m"
	default:
		return err
	}
	return fmt.Errorf("--%s takes %s, got %q", ive.GetFlag().Name, want, ive.GetValue())
}

// plainArgsError words cobra's positional-argument errors ("requires at
// least 1 arg(s), only received 0", `unknown command "x" for …` from
// NoArgs) as what the command needs.
func plainArgsError(cmd *cobra.Command, args []string, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "requires at least"), strings.HasPrefix(msg, "accepts "):
		var need []string
		for _, w := range strings.Fields(cmd.Use) {
			if strings.HasPrefix(w, "<") {
				need = append(need, w)
			}
		}
		if len(args) < len(need) {
			return fmt.Errorf("%s needs %s", cmd.CommandPath(), strings.Join(need, " "))
		}
	case strings.HasPrefix(msg, "unknown command ") && len(args) > 0:
		return fmt.Errorf("%s takes no arguments, got %q", cmd.CommandPath(), strings.Join(args, " "))
	}
	return err
}
