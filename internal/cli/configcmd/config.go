// Package configcmd implements `asky config`.
package configcmd

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdConfig builds the config group.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Show, check and edit configuration",
		Long: heredoc.Doc(`
			Configuration lives in config.toml in the config directory ($ASKY_HOME,
			else $XDG_CONFIG_HOME/asky). The original asky's split files
			(general.toml, api.toml, models.toml, …) are read too and merged.
		`),
		Example: heredoc.Doc(`
			$ asky config path
			$ asky config doctor
			$ asky config model add --alias gpt --api openai --id gpt-4o-mini
		`),
	}
	model := cmdutil.StrictGroup(&cobra.Command{Use: "model <command>", Short: "Add or edit model aliases"})
	model.AddCommand(cmdutil.Pending("add", "Add a model alias"), cmdutil.Pending("edit [alias]", "Edit a model alias"))
	daemon := cmdutil.StrictGroup(&cobra.Command{Use: "daemon <command>", Short: "Edit daemon settings"})
	daemon.AddCommand(cmdutil.Pending("edit", "Edit daemon transports"))
	cmd.AddCommand(
		cmdutil.Pending("show", "Print the merged configuration (secrets redacted)"),
		cmdutil.Pending("path", "Print config, data and cache locations"),
		cmdutil.Pending("get <key>", "Print one configuration value"),
		cmdutil.Pending("set <key> <value>", "Set one configuration value in config.toml"),
		cmdutil.Pending("doctor", "Check configuration, keys, endpoints and the database"),
		model, daemon,
	)
	return cmdutil.StrictGroup(cmd)
}
