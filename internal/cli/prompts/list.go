package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
)

// ListOptions are the inputs of `prompts list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	JSON   bool
}

// NewCmdList builds `prompts list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List prompt aliases and command presets",
		Long: heredoc.Doc(`
			List the prompt aliases of [user_prompts] (used as /name inside a
			question; /cp inserts the clipboard) and the command presets of
			[command_presets] (used as \name args at the start of a command line;
			$1..$9 and $* take the arguments).
		`),
		Example: heredoc.Doc(`
			$ asky prompts list
			$ asky /review main.go          # expands [user_prompts] review
			$ asky '\tr' hello french       # expands [command_presets] tr
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print prompts and presets as JSON")
	return cmd
}

func listRun(_ context.Context, opts *ListOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"prompts": nonNil(cfg.UserPrompts), "presets": nonNil(cfg.CommandPresets)})
	}
	if len(cfg.UserPrompts) == 0 && len(cfg.CommandPresets) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no prompts or presets; add [user_prompts] or [command_presets] to config.toml (see `asky config path`)")
		return nil
	}
	section := func(title, prefix string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		fmt.Fprintln(opts.IO.Out, title)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := strings.Join(strings.Fields(m[k]), " ")
			if r := []rune(v); len(r) > 70 {
				v = string(r[:69]) + "…"
			}
			fmt.Fprintf(opts.IO.Out, "  %s%-16s %s\n", prefix, k, render.Sanitize(v))
		}
	}
	section("Prompts (/name in a question):", "/", cfg.UserPrompts)
	if len(cfg.UserPrompts) > 0 && len(cfg.CommandPresets) > 0 {
		fmt.Fprintln(opts.IO.Out)
	}
	section(`Presets (\name args):`, `\`, cfg.CommandPresets)
	return nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
