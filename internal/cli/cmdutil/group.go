package cmdutil

import (
	"fmt"

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

// Pending returns a verb whose feature is owned by a later change. It is
// listed in help so the command tree is complete, and answers clearly.
func Pending(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(c *cobra.Command, args []string) error {
			return NotAvailable(fmt.Sprintf("`%s`", c.CommandPath()))
		},
		DisableFlagParsing: true,
	}
}
