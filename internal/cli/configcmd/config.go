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
			(general.toml, api.toml, models.toml, …) are read too and merged over
			it, so an existing asky config directory works as it is.

			Keys: [general] default_model, max_turns, request_timeout, …;
			[api.NAME] base_url (or the original's full url), type = "openai" or
			"anthropic", api_key_env | api_key_cmd | api_key; [models.ALIAS] api,
			id, context_size, max_turns, price_in, price_out, [parameters].
		`),
		Example: heredoc.Doc(`
			$ asky config path
			$ asky config doctor
			$ asky config get general.default_model
			$ asky config set general.max_turns 30
			$ asky config model add --alias gpt --api openai --id gpt-4o-mini
		`),
	}
	model := cmdutil.StrictGroup(&cobra.Command{Use: "model <command>", Short: "Add or edit model aliases"})
	model.Long = heredoc.Doc(`
		Model aliases name a model on an endpoint: [models.ALIAS] api, id,
		context_size, … and [api.NAME] base_url, type, api_key_env. Pick one
		per question with -m ALIAS; the default is $ASKY_MODEL, then
		general.default_model, then the first alias.
	`)
	model.Example = heredoc.Doc(`
		$ asky config model add
		$ asky config model edit mini --context-size 128000
	`)
	model.AddCommand(NewCmdModelAdd(f, nil), NewCmdModelEdit(f, nil))
	daemon := cmdutil.StrictGroup(&cobra.Command{Use: "daemon <command>", Short: "Edit daemon settings",
		Example: heredoc.Doc(`
			$ asky config daemon edit
			$ asky config daemon edit --listen 127.0.0.1:9000 --token-env ASKY_DAEMON_TOKEN
		`)})
	daemon.AddCommand(NewCmdDaemonEdit(f, nil))
	cmd.AddCommand(
		NewCmdShow(f, nil),
		NewCmdPath(f, nil),
		NewCmdGet(f, nil),
		NewCmdSet(f, nil),
		NewCmdDoctor(f, nil),
		model, daemon,
	)
	return cmdutil.StrictGroup(cmd)
}
