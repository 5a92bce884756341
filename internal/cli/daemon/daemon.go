// Package daemon implements `asky daemon`.
package daemon

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdDaemon builds the daemon group.
func NewCmdDaemon(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon [command]",
		Short: "Serve asky over XMPP, Telegram and HTTP",
		Long: heredoc.Doc(`
			The daemon answers the same way as the CLI over chat transports configured in config.toml, sharing history, sessions, memory and the corpus.
		`),
		Example: heredoc.Doc(`
			$ asky daemon run
			$ asky daemon status
		`),
	}
	cmd.AddCommand(
		cmdutil.Pending("run", "Run the daemon in the foreground"),
		cmdutil.Pending("start", "Start the daemon in the background"),
		cmdutil.Pending("stop", "Stop the background daemon"),
		cmdutil.Pending("status", "Show whether the daemon is running"),
	)
	return cmdutil.StrictGroup(cmd)
}
