package configcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
)

// DaemonEditOptions edit the [daemon.http] table.
type DaemonEditOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Getenv func(string) string

	Listen       string
	TokenEnv     string
	TokenCmd     string
	AllowedHosts []string
	set          map[string]bool
}

// NewCmdDaemonEdit builds `config daemon edit`.
func NewCmdDaemonEdit(f *cmdutil.Factory, runF func(context.Context, *DaemonEditOptions) error) *cobra.Command {
	opts := &DaemonEditOptions{IO: f.IO, Config: f.Config, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "edit",
		Short: "Edit the daemon's HTTP API settings",
		Long: heredoc.Doc(`
			Edit [daemon.http]: where the HTTP API listens, where its bearer token
			comes from, and which extra Host names it accepts. With no flags on a
			terminal, each value is asked for; in scripts pass the flags.

			A listen address other than loopback requires a token; the daemon
			refuses to start without one.
		`),
		Example: heredoc.Doc(`
			$ asky config daemon edit
			$ asky config daemon edit --listen 127.0.0.1:9000 --token-env ASKY_DAEMON_TOKEN
			$ asky config daemon edit --token-cmd "pass show asky/daemon" --allowed-host asky.lan
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.set = map[string]bool{}
			c.Flags().Visit(func(fl *pflag.Flag) { opts.set[fl.Name] = true })
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return daemonEditRun(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Listen, "listen", "", "`host:port` of the HTTP API (default 127.0.0.1:8765)")
	fl.StringVar(&opts.TokenEnv, "token-env", "", "environment `variable` holding the bearer token")
	fl.StringVar(&opts.TokenCmd, "token-cmd", "", "shell `command` printing the bearer token (wins over --token-env)")
	fl.StringArrayVar(&opts.AllowedHosts, "allowed-host", nil, "extra Host header `name` to accept (repeatable)")
	return cmd
}

func daemonEditRun(ctx context.Context, opts *DaemonEditOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	cur, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
	if err != nil {
		return err
	}
	if len(opts.set) == 0 {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageError("pass --listen, --token-env, --token-cmd or --allowed-host (see --help)", "nothing to change")
		}
		p := newPrompter(ctx, opts.IO)
		if opts.Listen, err = p.ask("Listen address", cur.HTTP.Listen); err != nil {
			return err
		}
		if opts.TokenEnv, err = p.ask("Token environment variable", cur.HTTP.TokenEnv); err != nil {
			return err
		}
		hosts, err := p.ask("Extra allowed Host names (comma separated)", strings.Join(cur.HTTP.AllowedHosts, ","))
		if err != nil {
			return err
		}
		opts.AllowedHosts = splitList(hosts)
		opts.set = map[string]bool{"listen": true, "token-env": true, "allowed-host": true}
	}
	var changes []config.Change
	add := func(flag, key string, v any) {
		if opts.set[flag] {
			changes = append(changes, config.Change{Key: "daemon.http." + key, Value: v})
		}
	}
	add("listen", "listen", opts.Listen)
	add("token-env", "token_env", opts.TokenEnv)
	add("token-cmd", "token_cmd", opts.TokenCmd)
	hosts := make([]any, 0, len(opts.AllowedHosts))
	for _, h := range opts.AllowedHosts {
		hosts = append(hosts, h)
	}
	add("allowed-host", "allowed_hosts", hosts)
	written, err := config.Apply(opts.Getenv, changes...)
	if err != nil {
		return err
	}
	reportWrites(opts.IO, written)
	// Read back what the daemon will see, so a mistake shows now rather
	// than at `asky daemon start`.
	if cfg, err = config.Load(opts.Getenv); err == nil {
		if _, err = daemon.ParseConfig(cfg.Daemon, cfg.XMPP); err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "✓ Updated [daemon.http] in %s; restart the daemon (`asky daemon stop && asky daemon start`) to apply\n", files(written))
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
