package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// StrictGroup makes a group command reject unknown or missing verbs with a
// usage error, instead of ever treating them as a query. A missing verb
// shows the group's help; a wrong one is a single line that suggests the
// nearest verb or, when the words read like a question, how to ask it.
func StrictGroup(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			c.SetOut(c.ErrOrStderr())
			_ = c.Help()
			return UsageError("run `"+c.CommandPath()+" --help` to see its commands", "missing subcommand for %q", c.CommandPath())
		}
		return UnknownVerb(c, args)
	}
	return cmd
}

// UnknownVerb is the one-line usage error for `asky GROUP WORD…` when WORD
// is not one of the group's verbs. It names the nearest verb when there is
// one; otherwise it shows how to ask the words as a question, since
// `asky history of rome` is most likely one.
func UnknownVerb(c *cobra.Command, args []string) error {
	group := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && Near(strings.ToLower(args[0]), sub.Name()) {
			return &Error{Code: ExitUsage, Err: fmt.Errorf("%q is not a %s command; did you mean `%s %s`?", args[0], group, c.CommandPath(), sub.Name())}
		}
	}
	question := group + " " + strings.Join(args, " ")
	return &Error{Code: ExitUsage, Err: fmt.Errorf("%q is not a %s command; to ask it: %s query %s (%s commands: %s)",
		args[0], group, c.Root().Name(), ShellQuote(question), group, strings.Join(Verbs(c), ", "))}
}

// Verbs lists the names of c's available subcommands, in help order.
func Verbs(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, sub.Name())
		}
	}
	return out
}

// ShellQuote quotes s for a POSIX shell so a suggested command can be
// pasted as is: double quotes unless s holds characters the shell expands
// inside them, then single quotes.
func ShellQuote(s string) string {
	if !strings.ContainsAny(s, "\"$`\\!") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Near reports whether typed is a likely typo of name: within edit
// distance 2, or 1 when either is four letters or shorter (so "hello" is
// not taken for "help").
func Near(typed, name string) bool {
	limit := 2
	if min(len(typed), len(name)) <= 4 {
		limit = 1
	}
	return EditDistance(typed, name) <= limit
}

// EditDistance is the optimal-string-alignment edit distance: Levenshtein
// plus adjacent transpositions at cost 1, so "histroy" is one edit from
// "history", as a typist would count it.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
