package configcmd

import (
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// ShowOptions are the inputs of `config show`.
type ShowOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	JSON   bool
}

// NewCmdShow builds `config show`; runF replaces the run function in tests.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the merged configuration (secrets redacted)",
		Long: heredoc.Doc(`
			Print the configuration asky uses: the built-in defaults with
			config.toml and the split files (general.toml, api.toml, …) merged
			over them. Literal API keys, passwords and credential headers are
			shown as "[redacted]"; keys named by api_key_env are never read here.
		`),
		Example: heredoc.Doc(`
			$ asky config show
			$ asky config show --json | jq .models
		`),
		// `config show general` is a natural first guess: point at get.
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return cmdutil.UsageError("to see one table or key: `asky config get "+args[0]+"`",
				"asky config show prints the whole configuration and takes no arguments, got %q", strings.Join(args, " "))
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the configuration as JSON")
	return cmd
}

func showRun(opts *ShowOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	warnDiagnostics(opts.IO, cfg)
	if opts.JSON {
		tree, err := cfg.Tree()
		if err != nil {
			return err
		}
		return cmdutil.WriteJSON(opts.IO.Out, tree)
	}
	out, err := cfg.EncodeTOML()
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(out)
	return err
}
