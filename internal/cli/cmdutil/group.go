package cmdutil

import (
	"github.com/spf13/cobra"
)

// StrictGroup makes a group command reject unknown or missing verbs with a
// usage error and its help, instead of ever treating them as a query.
func StrictGroup(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		c.SetOut(c.ErrOrStderr())
		_ = c.Help()
		if len(args) == 0 {
			return UsageError("run `"+c.CommandPath()+" --help` to see its commands", "missing subcommand for %q", c.CommandPath())
		}
		return UsageError("run `"+c.CommandPath()+" --help` to see its commands", "unknown subcommand %q for %q", args[0], c.CommandPath())
	}
	return cmd
}
