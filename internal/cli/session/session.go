// Package session implements `asky session`.
package session

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdSession builds the session group.
func NewCmdSession(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session <command>",
		Short: "Manage shell-sticky conversation sessions",
		Long: heredoc.Doc(`
			A session keeps a conversation going: while this shell is bound to a session every plain asky question continues it. Other terminals stay independent.
		`),
		Example: heredoc.Doc(`
			$ asky session create trip-planning
			$ asky session list
			$ asky session end
		`),
	}
	cmd.AddCommand(
		cmdutil.Pending("list [N]", "List sessions"),
		cmdutil.Pending("show [selector]", "Print a session transcript"),
		cmdutil.Pending("create <name>", "Create a session and bind this shell to it"),
		cmdutil.Pending("use <selector>", "Bind this shell to an existing session"),
		cmdutil.Pending("end", "Detach this shell from its session"),
		cmdutil.Pending("delete <selector>|--all", "Delete sessions"),
		cmdutil.Pending("rename <selector> <name>", "Rename a session"),
		cmdutil.Pending("clean-research <selector>", "Drop research findings of a session"),
		cmdutil.Pending("from-message <id|last>", "Turn a history entry into a session"),
	)
	return cmdutil.StrictGroup(cmd)
}
