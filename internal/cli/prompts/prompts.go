// Package prompts implements `asky prompts`.
package prompts

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdPrompts builds the prompts group.
func NewCmdPrompts(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompts <command>",
		Short: "List saved prompt aliases and presets",
		Long: heredoc.Doc(`
			Prompt aliases ([user_prompts]) expand /name in a question; command
			presets ([command_presets]) expand \name args.
		`),
		Example: heredoc.Doc(`
			$ asky prompts list
		`),
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
	)
	return cmdutil.StrictGroup(cmd)
}
