package configcmd

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// ModelAddOptions are the inputs of `config model add`.
type ModelAddOptions struct {
	IO         *iostreams.IOStreams
	Config     func() (*config.Config, error)
	HTTPClient func() *http.Client
	Getenv     func(string) string
	Flags      modelFlags
}

// NewCmdModelAdd builds `config model add`; runF replaces the run function
// in tests.
func NewCmdModelAdd(f *cmdutil.Factory, runF func(context.Context, *ModelAddOptions) error) *cobra.Command {
	opts := &ModelAddOptions{IO: f.IO, Config: f.Config, HTTPClient: f.HTTPClient, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Add a model alias",
		Long: heredoc.Doc(`
			Add a [models.ALIAS] entry (and an [api.NAME] endpoint when
			--base-url is given) to the configuration.

			On a terminal, missing values are asked for; when the endpoint is
			reachable its model list is offered. In scripts pass everything as
			flags: --alias, --id and either --api naming a configured or
			built-in endpoint (openai, anthropic, openrouter, gemini, ollama,
			lmstudio) or --base-url for a new one. --api openai --base-url URL
			means "the openai wire format at URL": it creates a new endpoint
			named after the alias and leaves [api.openai] (and every model
			using it) alone; its key is not sent to the new server (pass
			--key-env or --key-cmd if it needs one).

			The file is edited in place (comments kept) and written atomically.
		`),
		Example: heredoc.Doc(`
			$ asky config model add
			$ asky config model add --alias mini --api openai --id gpt-4o-mini --default
			$ asky config model add --alias qwen --api ollama --id qwen3:8b --context-size 32768
			$ asky config model add --alias sonnet --api anthropic --id claude-sonnet-4-5 --key-cmd "pass show anthropic"
			$ asky config model add --alias local --base-url http://127.0.0.1:8080/v1 --id default
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Flags.capture(c)
			if err := opts.Flags.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return modelAddRun(c.Context(), opts)
		},
	}
	opts.Flags.register(cmd)
	return cmd
}

func modelAddRun(ctx context.Context, opts *ModelAddOptions) error {
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
	if m.Alias != "" {
		if err := refuseDuplicate(cfg, m.Alias); err != nil {
			return err
		}
	}
	if m.API == "" && m.BaseURL != "" {
		m.API = m.Alias
	}
	if opts.IO.CanPrompt() {
		if err := askNewModel(ctx, opts, cfg); err != nil {
			return err
		}
	}
	var missing []string
	if m.Alias == "" {
		missing = append(missing, "--alias")
	}
	if m.API == "" {
		missing = append(missing, "--api or --base-url")
	}
	if m.ID == "" {
		missing = append(missing, "--id")
	}
	if len(missing) > 0 {
		return cmdutil.UsageError("on a terminal asky asks for them; in scripts pass them as flags (see `asky config model add --help`)", "missing required flags: %s", strings.Join(missing, "; "))
	}
	if err := m.validate(); err != nil {
		return err
	}
	if err := refuseDuplicate(cfg, m.Alias); err != nil {
		return err
	}
	kept := forkEndpoint(cfg, m)
	if _, ok := cfg.APIFor(m.API); !ok && m.BaseURL == "" {
		return cmdutil.UsageError("pass --base-url to create it, or use one of: "+strings.Join(apiNames(cfg), ", "), "api %q is not defined", m.API)
	}
	if len(cfg.Models) == 0 {
		m.Default = true // the first model becomes the default
	}
	written, err := config.Apply(opts.Getenv, m.changes(cfg, true)...)
	if err != nil {
		return err
	}
	reportWrites(opts.IO, written)
	def := ""
	if m.Default {
		def = ", now the default"
	}
	fmt.Fprintf(opts.IO.ErrOut, "✓ Added model %s (%s via %s%s) to %s\n", m.Alias, m.ID, m.API, def, files(written))
	if kept != "" {
		fmt.Fprintf(opts.IO.ErrOut, "  new endpoint [api.%s] at %s; [api.%s] is unchanged\n", m.API, m.BaseURL, kept)
	}
	if after, err := config.Load(opts.Getenv); err == nil {
		if a, ok := after.APIFor(m.API); ok && a.APIKeyEnv != "" && a.APIKey == "" && a.APIKeyCmd == "" && opts.Getenv(a.APIKeyEnv) == "" {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s is not set in this environment; export it before asking\n", a.APIKeyEnv)
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "  check it with `asky config doctor`; use it with `asky -m %s …`\n", m.Alias)
	return nil
}

// forkEndpoint keeps `model add` from repointing an endpoint other models
// use: --base-url with an --api that already exists (configured or built
// in) at another URL creates a new [api.NAME] of the same wire format
// instead. The existing endpoint's key is not carried over, since the key
// of one server must not be sent to another: a local server needs none,
// and --key-env / --key-cmd name one. It returns the name left unchanged,
// or "" when nothing was forked.
func forkEndpoint(cfg *config.Config, m *modelFlags) string {
	a, ok := cfg.APIFor(m.API)
	if m.BaseURL == "" || !ok || strings.TrimRight(a.BaseURL, "/") == strings.TrimRight(m.BaseURL, "/") {
		return ""
	}
	kept := m.API
	if m.Type == "" {
		m.Type = a.Type
	}
	m.API = freshAPIName(cfg, m.Alias)
	return kept
}

// freshAPIName is name, or name-api, name-api-2, … : the first one that is
// neither configured nor built in.
func freshAPIName(cfg *config.Config, name string) string {
	for i := 0; ; i++ {
		n := name
		switch {
		case i == 1:
			n = name + "-api"
		case i > 1:
			n = fmt.Sprintf("%s-api-%d", name, i)
		}
		if _, ok := cfg.APIFor(n); !ok {
			return n
		}
	}
}

func refuseDuplicate(cfg *config.Config, alias string) error {
	if _, ok := cfg.Models[alias]; ok {
		return cmdutil.UsageError("change it with `asky config model edit "+alias+"`, or pick another alias", "model alias %q already exists (have: %s)", alias, aliasList(cfg))
	}
	return nil
}

// askNewModel asks for whatever the flags left open.
func askNewModel(ctx context.Context, opts *ModelAddOptions, cfg *config.Config) error {
	p := newPrompter(ctx, opts.IO)
	m := &opts.Flags
	var err error
	for m.Alias == "" {
		if m.Alias, err = p.ask("Alias (short name used with -m)", ""); err != nil {
			return err
		}
		if m.Alias != "" {
			if err := refuseDuplicate(cfg, m.Alias); err != nil {
				fmt.Fprintf(p.out, "  %s\n", err)
				m.Alias = ""
			}
		}
	}
	if m.API == "" {
		def := "openai"
		if names := sortedNames(cfg.API); len(names) > 0 {
			def = names[0]
		}
		if m.API, err = p.choose("Endpoint (a new name creates one)", apiNames(cfg), def); err != nil {
			return err
		}
	}
	if err := askEndpoint(p, cfg, m); err != nil {
		return err
	}
	if m.ID == "" {
		if err := askModelID(ctx, p, &modelDeps{HTTPClient: opts.HTTPClient, Getenv: opts.Getenv}, cfg, m, ""); err != nil {
			return err
		}
	}
	if !m.set["context-size"] {
		if m.ContextSize, err = askInt(p, fmt.Sprintf("Context size in tokens (blank: %d)", cfg.General.DefaultContextSize), 0); err != nil {
			return err
		}
	}
	if !m.set["default"] && len(cfg.Models) > 0 {
		if m.Default, err = p.confirm("Make it the default model", false); err != nil {
			return err
		}
	}
	return nil
}
