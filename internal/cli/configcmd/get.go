package configcmd

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// GetOptions are the inputs of `config get`.
type GetOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Key    string
	JSON   bool
}

// NewCmdGet builds `config get`; runF replaces the run function in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*GetOptions) error) *cobra.Command {
	opts := &GetOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "get <key>",
		Short: "Print one configuration value",
		Long: heredoc.Doc(`
			Print the effective value of a dotted key (defaults included).
			Strings print bare, arrays one item per line, tables as TOML.
			Secrets print as "[redacted]".
		`),
		Example: heredoc.Doc(`
			$ asky config get general.default_model
			$ asky config get models.gpt.context_size
			$ asky config get api --json
		`),
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Key = args[0]
			if runF != nil {
				return runF(opts)
			}
			return getRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the value as JSON")
	return cmd
}

func getRun(opts *GetOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	warnDiagnostics(opts.IO, cfg)
	v, ok, err := cfg.Lookup(opts.Key)
	if err != nil {
		return keyErr(err)
	}
	if !ok {
		return cmdutil.Errorf("list what is set with `asky config show`", "%s is not set", opts.Key)
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, v)
	}
	switch x := v.(type) {
	case string:
		fmt.Fprintln(opts.IO.Out, x)
	case []any:
		for _, e := range x {
			s, err := literal(e)
			if err != nil {
				return err
			}
			fmt.Fprintln(opts.IO.Out, strings.Trim(s, `"`))
		}
	case map[string]any:
		return toml.NewEncoder(opts.IO.Out).Encode(x)
	default:
		s, err := literal(x)
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.Out, s)
	}
	return nil
}

func literal(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = ")), nil
}
