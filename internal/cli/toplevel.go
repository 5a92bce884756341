package cli

import (
	"fmt"
	"runtime"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/build"
	"github.com/askygo/asky/internal/cli/cmdutil"
)

// newCmdVersion is `asky version`, the same line as `--version` / `-V`.
func newCmdVersion() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Show asky's version",
		Example: "$ asky version\n$ asky -V\n$ asky version --json | jq -r .version\n",
		Args:    cobra.ArbitraryArgs,
		RunE:    printVersion,
	}
	cmd.Flags().Bool("json", false, "print {version, go, os, arch}")
	return cmd
}

// printVersion prints the version line, or refuses extra words: `asky
// version control for beginners` and `asky -V what is this` are questions.
func printVersion(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		q := strings.Join(args, " ")
		if c != c.Root() {
			q = c.Name() + " " + q
		}
		return &cmdutil.Error{Code: cmdutil.ExitUsage,
			Err: fmt.Errorf("version takes no arguments; to ask it: %s query %s", c.Root().Name(), cmdutil.ShellQuote(q))}
	}
	if asJSON, _ := c.Flags().GetBool("json"); asJSON {
		return cmdutil.WriteJSON(c.OutOrStdout(), map[string]string{
			"version": build.Version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH})
	}
	_, err := fmt.Fprint(c.OutOrStdout(), versionLine(c.Root()))
	return err
}

func versionLine(root *cobra.Command) string {
	return fmt.Sprintf("%s version %s (%s, %s/%s)\n", root.Name(), build.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// newCmdHelp replaces cobra's help command, which shows the root help for
// anything it does not know: `asky help me write a haiku` is a question
// typed after a command name, so it gets one line saying how to ask it
// instead of a page of help that hides the mistake.
func newCmdHelp(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				return &cmdutil.Error{Code: cmdutil.ExitUsage,
					Err:  fmt.Errorf("no help topic %q; to ask it: %s query %s", topic, root.Name(), cmdutil.ShellQuote("help "+topic)),
					Hint: "help topics are the commands: " + strings.Join(cmdutil.Verbs(root), ", ")}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// guardNearMiss wraps the root's run function: bare words ask a question,
// but `asky histroy list` is a typo of a command, and sending it to the
// model would spend tokens on an answer nobody wanted. The first word is
// refused with "did you mean" when it is within edit distance 2 of a
// command name (1 for names or words of four letters or fewer, see
// cmdutil.Near) and either
// it is the only word, or the next word is one of that command's verbs.
// A longer question that merely starts with a similar word ("prompt
// engineering tips", "demon slayer plot") still goes to the model; a
// quoted first argument or `--` always does, and so do words or aliases
// shorter than three letters ("hi", `h` for history).
func guardNearMiss(root *cobra.Command) {
	run := root.RunE
	root.RunE = func(c *cobra.Command, args []string) error {
		if c.ArgsLenAtDash() != 0 && len(args) > 0 {
			if cmd := nearMiss(root, args); cmd != nil {
				fix := append([]string{root.Name(), cmd.Name()}, args[1:]...)
				return &cmdutil.Error{Code: cmdutil.ExitUsage,
					Err:  fmt.Errorf("%q is not a command; did you mean `%s`?", args[0], strings.Join(fix, " ")),
					Hint: "to ask it as a question: " + root.Name() + " query " + cmdutil.ShellQuote(strings.Join(args, " "))}
			}
		}
		return run(c, args)
	}
}

// nearMiss returns the command args[0] is a likely typo of, or nil.
func nearMiss(root *cobra.Command, args []string) *cobra.Command {
	word := strings.ToLower(args[0])
	if len(word) < 3 || strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) >= 0 {
		return nil
	}
	for _, cmd := range root.Commands() {
		if !cmd.IsAvailableCommand() && cmd.Name() != "help" {
			continue
		}
		for _, name := range append([]string{cmd.Name()}, cmd.Aliases...) {
			if len(name) < 3 || word == name || !cmdutil.Near(word, name) {
				continue
			}
			if len(args) == 1 && word[0] == name[0] || len(args) > 1 && takesVerb(root, cmd, args[1]) {
				return cmd
			}
		}
	}
	return nil
}

// takesVerb reports whether word is a subcommand of cmd (for help: any
// command), which makes a typo of cmd's name near certain.
func takesVerb(root, cmd *cobra.Command, word string) bool {
	parent := cmd
	if cmd.Name() == "help" {
		parent = root
	}
	for _, sub := range parent.Commands() {
		if sub.Name() == word || sub.HasAlias(word) {
			return true
		}
	}
	return false
}
