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

// DaemonEditOptions edit the daemon's tables: [daemon.http], [xmpp] and
// [daemon.telegram].
type DaemonEditOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Getenv func(string) string

	HTTPEnabled  bool
	Listen       string
	TokenEnv     string
	TokenCmd     string
	AllowedHosts []string

	XMPPEnabled     bool
	XMPPJID         string
	XMPPPasswordEnv string
	XMPPPasswordCmd string
	XMPPHost        string
	XMPPPort        int
	XMPPAllowedJIDs []string
	XMPPCAFile      string

	TelegramEnabled  bool
	TelegramTokenEnv string
	TelegramTokenCmd string
	TelegramAPIURL   string
	TelegramUsers    []int64
	TelegramChats    []int64
	// TranscriptionModel and VisionModel answer chat voice and images.
	TranscriptionModel, VisionModel string
	// ConfirmTranscripts asks the user's yes before a transcript is asked.
	ConfirmTranscripts bool

	set map[string]bool
}

// NewCmdDaemonEdit builds `config daemon edit`.
func NewCmdDaemonEdit(f *cmdutil.Factory, runF func(context.Context, *DaemonEditOptions) error) *cobra.Command {
	opts := &DaemonEditOptions{IO: f.IO, Config: f.Config, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "edit",
		Short: "Edit the daemon's transports: HTTP API, XMPP, Telegram",
		Long: heredoc.Doc(`
			Edit the daemon's settings. [daemon.http]: whether the HTTP API runs,
			where it listens, where its bearer token comes from, and which extra
			Host names it accepts. [xmpp] (the original's xmpp.toml): the bot's
			account, server and allowed JIDs. [daemon.telegram]: the bot token's
			source and the allowed user and chat ids. With no flags on a terminal,
			each section is asked for in turn, the current values as defaults;
			in scripts pass the flags.

			Secrets are never written: name an environment variable (*-env) or a
			command printing them (*-cmd). A listen address other than loopback
			requires a token; the daemon refuses to start without one.
		`),
		Example: heredoc.Doc(`
			$ asky config daemon edit
			$ asky config daemon edit --listen 127.0.0.1:9000 --token-env ASKY_DAEMON_TOKEN
			$ asky config daemon edit --token-cmd "pass show asky/daemon" --allowed-host asky.lan
			$ asky config daemon edit --xmpp-enabled --xmpp-jid bot@example.org --xmpp-allowed-jid me@example.org
			$ asky config daemon edit --telegram-enabled --telegram-token-env TG_TOKEN --telegram-allowed-user 12345
			$ asky config daemon edit --http-enabled=false
			$ asky config daemon edit --transcription-model whisper --vision-model gpt4o
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
	fl.BoolVar(&opts.HTTPEnabled, "http-enabled", true, "serve the HTTP API")
	fl.BoolVar(&opts.XMPPEnabled, "xmpp-enabled", false, "log in to XMPP")
	fl.StringVar(&opts.XMPPJID, "xmpp-jid", "", "the bot's `jid` (user@domain)")
	fl.StringVar(&opts.XMPPPasswordEnv, "xmpp-password-env", "", "environment `variable` holding the XMPP password")
	fl.StringVar(&opts.XMPPPasswordCmd, "xmpp-password-cmd", "", "shell `command` printing the XMPP password")
	fl.StringVar(&opts.XMPPHost, "xmpp-host", "", "XMPP server `host` (default: the JID's domain)")
	fl.IntVar(&opts.XMPPPort, "xmpp-port", 5222, "XMPP server `port`")
	fl.StringArrayVar(&opts.XMPPAllowedJIDs, "xmpp-allowed-jid", nil, "`jid` allowed to chat (bare = any resource; repeatable)")
	fl.StringVar(&opts.XMPPCAFile, "xmpp-ca-file", "", "PEM `file` the server certificate must chain to")
	fl.BoolVar(&opts.TelegramEnabled, "telegram-enabled", false, "serve a Telegram bot")
	fl.StringVar(&opts.TelegramTokenEnv, "telegram-token-env", "", "environment `variable` holding the bot token")
	fl.StringVar(&opts.TelegramTokenCmd, "telegram-token-cmd", "", "shell `command` printing the bot token")
	fl.StringVar(&opts.TelegramAPIURL, "telegram-api-url", "", "Bot API `url` (default https://api.telegram.org)")
	fl.Int64SliceVar(&opts.TelegramUsers, "telegram-allowed-user", nil, "Telegram user `id` allowed to chat (repeatable)")
	fl.Int64SliceVar(&opts.TelegramChats, "telegram-allowed-chat", nil, "Telegram chat `id` allowed (repeatable)")
	fl.StringVar(&opts.TranscriptionModel, "transcription-model", "", "model `alias` transcribing chat voice messages (OpenAI-compatible; \"\" turns it off)")
	fl.BoolVar(&opts.ConfirmTranscripts, "confirm-transcripts", true, "show a voice message's transcript and ask it only after the user's yes (false: ask it at once)")
	fl.StringVar(&opts.VisionModel, "vision-model", "", "model `alias` describing chat images (image_support = true; \"\" turns it off)")
	return cmd
}

func daemonEditRun(ctx context.Context, opts *DaemonEditOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	cur, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
	if err != nil && len(opts.set) == 0 {
		// With flags the broken value may be the one being fixed: the
		// result is checked below before anything is written.
		return cmdutil.WithHint(err, "fix it with the flag that sets it (e.g. `asky config daemon edit --listen 127.0.0.1:8765`), or in the file (`asky config path`)")
	}
	if len(opts.set) == 0 {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageError("pass --listen, --token-env, --xmpp-jid, --telegram-enabled … (see --help)", "nothing to change")
		}
		opts.set = map[string]bool{}
		if err := promptDaemon(newPrompter(ctx, opts.IO), opts.Getenv, opts, cur); err != nil {
			return err
		}
	}
	var changes []config.Change
	set := func(flag, key string, v any) {
		if opts.set[flag] {
			changes = append(changes, config.Change{Key: key, Value: v})
		}
	}
	add := func(flag, key string, v any) { set(flag, "daemon.http."+key, v) }
	add("listen", "listen", opts.Listen)
	add("token-env", "token_env", opts.TokenEnv)
	add("token-cmd", "token_cmd", opts.TokenCmd)
	add("allowed-host", "allowed_hosts", anyList(opts.AllowedHosts))
	add("http-enabled", "enabled", opts.HTTPEnabled)
	set("xmpp-enabled", "xmpp.enabled", opts.XMPPEnabled)
	set("xmpp-jid", "xmpp.jid", opts.XMPPJID)
	set("xmpp-password-env", "xmpp.password_env", opts.XMPPPasswordEnv)
	set("xmpp-password-cmd", "xmpp.password_cmd", opts.XMPPPasswordCmd)
	set("xmpp-host", "xmpp.host", opts.XMPPHost)
	set("xmpp-port", "xmpp.port", int64(opts.XMPPPort))
	set("xmpp-allowed-jid", "xmpp.allowed_jids", anyList(opts.XMPPAllowedJIDs))
	set("xmpp-ca-file", "xmpp.ca_file", opts.XMPPCAFile)
	set("telegram-enabled", "daemon.telegram.enabled", opts.TelegramEnabled)
	set("telegram-token-env", "daemon.telegram.token_env", opts.TelegramTokenEnv)
	set("telegram-token-cmd", "daemon.telegram.token_cmd", opts.TelegramTokenCmd)
	set("telegram-api-url", "daemon.telegram.api_url", opts.TelegramAPIURL)
	set("telegram-allowed-user", "daemon.telegram.allowed_users", anyList(opts.TelegramUsers))
	set("telegram-allowed-chat", "daemon.telegram.allowed_chats", anyList(opts.TelegramChats))
	set("transcription-model", "daemon.transcription_model", opts.TranscriptionModel)
	set("vision-model", "daemon.vision_model", opts.VisionModel)
	set("confirm-transcripts", "daemon.confirm_transcripts", opts.ConfirmTranscripts)
	// Settings the daemon would refuse (a listen address that is not
	// host:port, a model it cannot use) are refused before anything is
	// written.
	probe, err := daemon.ParseConfig(daemonAfter(cfg.Daemon, changes), cfg.XMPP)
	if err != nil {
		return cmdutil.UsageError("see `asky config daemon edit --help`", "%s; nothing written", strings.TrimPrefix(err.Error(), "config: "))
	}
	if err := probe.CheckMediaModels(cfg); err != nil {
		return cmdutil.WithHint(err, "use another alias, or add one with `asky config model add`; a vision model needs image_support = true in its [models.ALIAS] table (`asky config path` shows the file)")
	}
	written, err := config.Apply(opts.Getenv, changes...)
	if err != nil {
		return err
	}
	reportWrites(opts.IO, written)
	// Read back what the daemon will see, so a mistake shows now rather
	// than at `asky daemon start`.
	if cfg, err = config.Load(opts.Getenv); err == nil {
		dc, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
		if err == nil {
			err = dc.CheckMediaModels(cfg)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "✓ Updated the daemon settings in %s; restart the daemon (`asky daemon stop && asky daemon start`) to apply\n", files(written))
	return nil
}

// daemonAfter is the [daemon] table with the daemon.* changes applied,
// leaving cur untouched.
func daemonAfter(cur map[string]any, changes []config.Change) map[string]any {
	var clone func(map[string]any) map[string]any
	clone = func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			if t, ok := v.(map[string]any); ok {
				v = clone(t)
			}
			out[k] = v
		}
		return out
	}
	out := clone(cur)
	for _, ch := range changes {
		path, ok := strings.CutPrefix(ch.Key, "daemon.")
		if !ok {
			continue
		}
		keys := strings.Split(path, ".")
		t := out
		for _, k := range keys[:len(keys)-1] {
			sub, ok := t[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
				t[k] = sub
			}
			t = sub
		}
		t[keys[len(keys)-1]] = ch.Value
	}
	return out
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

func anyList[T any](xs []T) []any {
	out := make([]any, 0, len(xs))
	for _, x := range xs {
		out = append(out, x)
	}
	return out
}
