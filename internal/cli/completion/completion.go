// Package completion implements `asky completion`.
package completion

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdCompletion builds the completion group. Generating a script never
// reads config or opens the database.
func NewCmdCompletion(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion <shell>",
		Short: "Print a shell completion script",
		Long: heredoc.Doc(`
			Print the completion script for bash, zsh, fish or powershell. Load it
			in your shell's startup file to complete commands, flags, model aliases
			and session names.
		`),
		Example: heredoc.Doc(`
			$ source <(asky completion bash)
			$ asky completion zsh > "${fpath[1]}/_asky"
			$ asky completion fish > ~/.config/fish/completions/asky.fish
		`),
	}
	shells := []struct {
		name string
		gen  func(c *cobra.Command) error
	}{
		{"bash", func(c *cobra.Command) error { return c.Root().GenBashCompletionV2(f.IO.Out, true) }},
		{"zsh", func(c *cobra.Command) error { return c.Root().GenZshCompletion(f.IO.Out) }},
		{"fish", func(c *cobra.Command) error { return c.Root().GenFishCompletion(f.IO.Out, true) }},
		{"powershell", func(c *cobra.Command) error { return c.Root().GenPowerShellCompletionWithDesc(f.IO.Out) }},
	}
	examples := map[string]string{
		"bash":       "$ source <(asky completion bash)\n$ asky completion bash > ~/.local/share/bash-completion/completions/asky\n",
		"zsh":        "$ asky completion zsh > \"${fpath[1]}/_asky\"\n",
		"fish":       "$ asky completion fish > ~/.config/fish/completions/asky.fish\n",
		"powershell": "PS> asky completion powershell | Out-String | Invoke-Expression\n",
	}
	for _, s := range shells {
		cmd.AddCommand(&cobra.Command{
			Use:     s.name,
			Short:   "Print the " + s.name + " completion script",
			Example: examples[s.name],
			Args:    cobra.NoArgs,
			RunE:    func(c *cobra.Command, _ []string) error { return s.gen(c) },
		})
	}
	return cmdutil.StrictGroup(cmd)
}
