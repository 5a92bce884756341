package configcmd

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// ModelEditOptions are the inputs of `config model edit`.
type ModelEditOptions struct {
	IO         *iostreams.IOStreams
	Config     func() (*config.Config, error)
	HTTPClient func() *http.Client
	Getenv     func(string) string
	Flags      modelFlags
}

// NewCmdModelEdit builds `config model edit`; runF replaces the run
// function in tests.
func NewCmdModelEdit(f *cmdutil.Factory, runF func(context.Context, *ModelEditOptions) error) *cobra.Command {
	opts := &ModelEditOptions{IO: f.IO, Config: f.Config, HTTPClient: f.HTTPClient, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "edit [alias]",
		Short: "Edit a model alias",
		Long: heredoc.Doc(`
			Change an existing model alias. Only the flags given are changed;
			--base-url, --type, --key-env and --key-cmd change the model's
			[api.NAME] endpoint. On a terminal without flags, each field is
			asked for with its current value as the default.

			The file that defines the alias is edited in place (comments kept)
			and written atomically.
		`),
		Example: heredoc.Doc(`
			$ asky config model edit mini
			$ asky config model edit mini --id gpt-4.1-mini --context-size 1047576
			$ asky config model edit sonnet --default
		`),
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Flags.capture(c)
			if len(args) == 1 {
				if opts.Flags.Alias != "" && opts.Flags.Alias != args[0] {
					return opts.Flags.usage("give the alias once (argument or --alias)")
				}
				opts.Flags.Alias = args[0]
			}
			if err := opts.Flags.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return modelEditRun(c.Context(), opts)
		},
	}
	opts.Flags.register(cmd)
	return cmd
}

func modelEditRun(ctx context.Context, opts *ModelEditOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	m := &opts.Flags
	if m.set == nil {
		m.set = map[string]bool{}
	}
	interactive := opts.IO.CanPrompt()
	// One prompter per run: it buffers stdin.
	p := newPrompter(ctx, opts.IO)
	if len(cfg.Models) == 0 {
		return cmdutil.UsageError("add one with `asky config model add`", "no model aliases are configured")
	}
	if m.Alias == "" {
		if !interactive {
			return cmdutil.UsageError("name the alias: `asky config model edit ALIAS`", "missing alias (have: %s)", aliasList(cfg))
		}
		if m.Alias, err = p.choose("Model to edit", cfg.Aliases(), ""); err != nil {
			return err
		}
	}
	cur, ok := cfg.Models[m.Alias]
	if !ok {
		return cmdutil.UsageError("pick one of the configured aliases, or add it with `asky config model add --alias "+m.Alias+"`", "unknown model alias %q (have: %s)", m.Alias, aliasList(cfg))
	}
	given := len(m.set) > 0 && !(len(m.set) == 1 && m.set["alias"])
	switch {
	case !given && interactive:
		if err := askEdit(ctx, p, opts, cfg, cur); err != nil {
			return err
		}
	case !given:
		return cmdutil.UsageError("pass the fields to change, e.g. `asky config model edit "+m.Alias+" --id NEW_ID`", "nothing to change")
	}
	if m.API == "" {
		m.API = cur.API
	} else if _, ok := cfg.APIFor(m.API); !ok && m.BaseURL == "" {
		return cmdutil.UsageError("pass --base-url to create it, or use a configured endpoint", "api %q is not defined", m.API)
	}
	changes := m.changes(cfg, false)
	if len(changes) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "nothing changed for %s\n", m.Alias)
		return nil
	}
	written, err := config.Apply(opts.Getenv, changes...)
	if err != nil {
		return err
	}
	reportWrites(opts.IO, written)
	fmt.Fprintf(opts.IO.ErrOut, "✓ Updated model %s in %s\n", m.Alias, files(written))
	return nil
}

// askEdit asks for each field with the current value as the default and
// marks the fields whose answer differs as given.
func askEdit(ctx context.Context, p *prompter, opts *ModelEditOptions, cfg *config.Config, cur config.Model) error {
	m := &opts.Flags
	api, err := p.ask("Endpoint ("+strings.Join(apiNames(cfg), ", ")+")", cur.API)
	if err != nil {
		return err
	}
	if api != cur.API {
		m.API, m.set["api"] = api, true
		if err := askEndpoint(p, cfg, m); err != nil {
			return err
		}
	} else {
		m.API = cur.API
	}
	if err := askModelID(ctx, p, &modelDeps{HTTPClient: opts.HTTPClient, Getenv: opts.Getenv}, cfg, m, cur.ID); err != nil {
		return err
	}
	m.set["id"] = m.ID != cur.ID
	if m.ContextSize, err = askInt(p, "Context size in tokens", cur.ContextSize); err != nil {
		return err
	}
	m.set["context-size"] = m.ContextSize != cur.ContextSize
	if m.MaxTurns, err = askInt(p, "Max tool turns (blank: general.max_turns)", cur.MaxTurns); err != nil {
		return err
	}
	m.set["max-turns"] = m.MaxTurns != cur.MaxTurns
	for _, f := range []struct {
		label, flag string
		cur         float64
		dst         *float64
	}{{"Price per Mtok in (USD)", "price-in", cur.PriceIn, &m.PriceIn}, {"Price per Mtok out (USD)", "price-out", cur.PriceOut, &m.PriceOut}} {
		d := ""
		if f.cur > 0 {
			d = strconv.FormatFloat(f.cur, 'f', -1, 64)
		}
		s, err := p.ask(f.label, d)
		if err != nil {
			return err
		}
		v, perr := strconv.ParseFloat(s, 64)
		if s == "" {
			v, perr = 0, nil
		}
		if perr != nil || v < 0 {
			fmt.Fprintf(p.out, "  %q is not a price; kept %v\n", s, f.cur)
			v = f.cur
		}
		*f.dst = v
		m.set[f.flag] = v != f.cur
	}
	if cfg.General.DefaultModel != m.Alias {
		if m.Default, err = p.confirm("Make it the default model", false); err != nil {
			return err
		}
	}
	return nil
}
