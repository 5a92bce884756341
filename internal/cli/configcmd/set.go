package configcmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
)

// SetOptions are the inputs of `config set`.
type SetOptions struct {
	IO *iostreams.IOStreams
	// Getenv locates the config; set reloads it itself, so that it edits
	// what is on disk now.
	Getenv func(string) string
	Key    string
	Value  string
}

// NewCmdSet builds `config set`; runF replaces the run function in tests.
func NewCmdSet(f *cmdutil.Factory, runF func(*SetOptions) error) *cobra.Command {
	opts := &SetOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "set <key> <value>",
		Short: "Set one configuration value in config.toml",
		Long: heredoc.Doc(`
			Set a dotted key. The value is checked against the key's type
			(integer, number, true/false, list) before anything is written;
			lists may be comma-separated or a TOML array.

			The change is made in place: comments and layout of the file are
			kept, and only the key's line changes (or one line is added to its
			table). The file that already sets the key (or its table) is edited,
			so a split-file layout from the original asky (models.toml, …) keeps
			working; new keys go to config.toml. Files are written atomically
			(temporary file, fsync, rename) with mode 0600.
		`),
		Example: heredoc.Doc(`
			$ asky config set general.default_model sonnet
			$ asky config set general.max_turns 30
			$ asky config set research.local_document_roots "~/notes, ~/papers"
			$ asky config set models.gpt.parameters.temperature 0.2
		`),
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Key, opts.Value = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return setRun(opts)
		},
	}
	// A value may be negative (a penalty of -0.5): after the key nothing
	// is a flag.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

func setRun(opts *SetOptions) error {
	v, err := config.ParseValue(opts.Key, opts.Value)
	if err != nil {
		return keyErr(err)
	}
	if err := checkDaemonKey(opts, v); err != nil {
		return err
	}
	if err := checkTypoedName(opts); err != nil {
		return err
	}
	written, err := config.Apply(opts.Getenv, config.Change{Key: opts.Key, Value: v})
	var bad *config.ValueError
	if errors.As(err, &bad) && bad.Key == opts.Key {
		// The value given is wrong, not the file: say so, and that the
		// file was left alone.
		return cmdutil.UsageError("give another value; the current one: `asky config get "+opts.Key+"`",
			"%s: %s; nothing written", opts.Key, bad.Message)
	}
	if err != nil {
		return err
	}
	reportWrites(opts.IO, written)
	shown := opts.Value
	leaf := opts.Key[strings.LastIndexByte(opts.Key, '.')+1:]
	if leaf == "api_key" || leaf == "password" {
		shown = config.Redacted
		fmt.Fprintln(opts.IO.ErrOut, "warning: a literal secret in a config file is readable by anything that reads the file; prefer api_key_env or api_key_cmd")
	}
	fmt.Fprintf(opts.IO.ErrOut, "✓ Set %s = %s in %s\n", opts.Key, shown, files(written))
	if opts.Key == "general.default_model" || opts.Key == "general.summarization_model" {
		if cfg, err := config.Load(opts.Getenv); err == nil && opts.Value != "" && !slices.Contains(cfg.Aliases(), opts.Value) {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %q is not a configured model alias (have: %s); add it with `asky config model add --alias %s`\n", opts.Value, aliasList(cfg), opts.Value)
		}
	}
	return nil
}

// checkTypoedName refuses models.NAME.* or api.NAME.* when NAME is new but
// one edit or two from an existing alias or endpoint: setting it would
// start a half-made [models.fak] table instead of changing [models.fake].
// A name not near any existing one, or a key that starts an entry (id,
// api, base_url), is a new entry and is written.
func checkTypoedName(opts *SetOptions) error {
	parts, err := config.SplitKey(opts.Key) // models."gpt-4.1".context_size is one alias
	if err != nil || len(parts) < 3 || parts[0] != "models" && parts[0] != "api" {
		return nil
	}
	cfg, err := config.Load(opts.Getenv)
	if err != nil {
		return nil // Apply reports the broken file
	}
	var names []string
	if parts[0] == "models" {
		names = cfg.Aliases()
	} else {
		for n := range config.KnownAPIs() {
			names = append(names, n)
		}
		for n := range cfg.API {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	// The keys that start a new entry pass: models.gpt5.id is a new
	// model even with gpt4 configured.
	creating := map[string][]string{"models": {"id", "api"}, "api": {"base_url", "url"}}
	if slices.Contains(names, parts[1]) || slices.Contains(creating[parts[0]], parts[2]) {
		return nil
	}
	for _, n := range names {
		if cmdutil.Near(parts[1], n) {
			what, add := "model alias", "`asky config model add --alias "+parts[1]+"`"
			if parts[0] == "api" {
				what, add = "endpoint", "`asky config model add` (it asks for the endpoint)"
			}
			return cmdutil.UsageError("to add a new one, use "+add,
				"there is no %s %q; did you mean %s? nothing written", what, parts[1], config.JoinKey(append([]string{parts[0], n}, parts[2:]...)))
		}
	}
	return nil
}

// checkDaemonKey refuses a daemon.* value the daemon would refuse at start:
// the config loader leaves the [daemon] table to the daemon's own parser.
func checkDaemonKey(opts *SetOptions, v any) error {
	if !strings.HasPrefix(opts.Key, "daemon.") {
		return nil
	}
	cfg, err := config.Load(opts.Getenv)
	if err != nil {
		return err
	}
	if _, err := daemon.ParseConfig(daemonAfter(cfg.Daemon, []config.Change{{Key: opts.Key, Value: v}}), cfg.XMPP); err != nil {
		return cmdutil.UsageError("see `asky config daemon edit --help` for the daemon's settings",
			"%s; nothing written", strings.TrimPrefix(err.Error(), "config: "))
	}
	return nil
}
