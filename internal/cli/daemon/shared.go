package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"path/filepath"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
	"github.com/askygo/asky/internal/userprompt"
)

// pidPath is the ownership lock in the state dir.
func pidPath(cfg *config.Config) string { return filepath.Join(cfg.Paths.StateDir, "daemon.pid") }

// logPath is where `daemon start` sends the background daemon's output.
func logPath(cfg *config.Config) string { return filepath.Join(cfg.Paths.StateDir, "daemon.log") }

// daemonConfig decodes [daemon] with a hint on mistakes.
func daemonConfig(cfg *config.Config) (daemon.Config, error) {
	dc, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
	if err != nil {
		return dc, cmdutil.WithHint(err, "fix [daemon] or [xmpp] in your config (`asky config path` shows where it is)")
	}
	return dc, nil
}

// token resolves the bearer token: token_cmd wins over token_env.
func token(ctx context.Context, f *cmdutil.Factory, h daemon.HTTPConfig) (string, error) {
	if h.TokenCmd != "" {
		s, err := config.RunSecretCmd(ctx, h.TokenCmd)
		if err != nil {
			return "", cmdutil.WithHint(fmt.Errorf("daemon.http.token_cmd: %w", err), "check the command in [daemon.http] token_cmd")
		}
		return s.Reveal(), nil
	}
	if h.TokenEnv != "" {
		return f.Getenv(h.TokenEnv), nil
	}
	return "", nil
}

// localURL is the URL to reach the API from this machine: an unspecified
// listen host (0.0.0.0, ::) is reached through 127.0.0.1.
func localURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// coreRunner runs daemon asks through the orchestration core the CLI
// uses, so the daemon answers exactly like `asky query`. Only the terminal
// parts of a query (stdin, presets, -o/-cc, idle prompts) are missing: a
// remote client cannot use them; /name prompt aliases expand only for a
// chat that set a [user_prompts] override.
type coreRunner struct {
	core *compose.Core
	// log is the daemon's log (stderr): notices of background work.
	log io.Writer
	// uploadDir is where chat uploads are stored; a remote question may
	// read there (its chat's linked uploads) even outside the roots.
	uploadDir string
}

// newRunner is the daemon's Runner over the factory.
func newRunner(f *cmdutil.Factory) coreRunner {
	return coreRunner{core: &compose.Core{Config: f.Config, Store: f.Store, HTTPClient: f.HTTPClient, Getenv: f.Getenv,
		Env: f.Env, Now: f.Now, Warn: func(s string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+s) },
		// One process, many turns: a failed embedding provider is
		// remembered in memory rather than in the CLI's marker file.
		EmbedderCooldown: &shortlist.Cooldown{}},
		log: f.IO.ErrOut}
}

func (r coreRunner) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
	q := compose.Request{SessionName: a.Conversation, Question: a.Question, Instructions: a.Instructions, Model: a.Model,
		SummarizationModel: a.SummarizationModel, Lean: a.Lean, Sampling: a.Sampling, Remote: true}
	if r.uploadDir != "" {
		q.RemoteRoots = []string{r.uploadDir}
		if a.Conversation != "" {
			if st, err := r.core.Store(); err == nil {
				unlinkMissingUploads(ctx, st, a.Conversation, r.uploadDir)
			}
		}
	}
	if a.Prompts != nil {
		if err := r.expandPrompts(&q, a.Prompts); err != nil {
			return nil, err
		}
	}
	if a.Conversation == "" {
		// A named conversation has its history in its session; a client
		// resending it would duplicate every turn.
		q.History = a.History
	}
	events := a.Events
	if events == nil {
		events = func(turn.Event) {}
	}
	res, err := r.core.Run(ctx, q, events)
	if err == nil {
		// Elephant mode of the conversation's session: after the answer
		// is returned, never delaying it.
		go r.core.AfterAnswer(context.WithoutCancel(ctx), q, res, func(ev turn.Event) {
			if ev.Kind == turn.EventNotice {
				fmt.Fprintf(r.log, "%s: %s\n", a.Conversation, ev.Text)
			}
		})
	}
	return res, requestError(err)
}

// requestError marks errors the client caused (unknown alias, bad flags)
// so the transport answers 400 rather than 500.
func requestError(err error) error {
	var (
		ua *config.UnknownAliasError
		fe *cmdutil.FlagError
		ce *cmdutil.Error
		cu *compose.UsageError
		pe *llm.ParamError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ua) && ua.From != "":
		return err // the daemon's own default is wrong: not the client's doing
	case errors.As(err, &ua):
		return &daemon.RequestError{Err: err, Hint: "GET /v1/models lists the aliases"}
	case errors.As(err, &fe):
		return &daemon.RequestError{Err: err, Hint: fe.Hint}
	case errors.As(err, &pe):
		return &daemon.RequestError{Err: err}
	case errors.As(err, &cu):
		return &daemon.RequestError{Err: err, Hint: cu.Hint()}
	case errors.As(err, &ce) && ce.Code == cmdutil.ExitUsage:
		return &daemon.RequestError{Err: err, Hint: ce.Hint}
	}
	return err
}

// expandPrompts expands /name in a chat question that set a
// [user_prompts] override: the chat's prompts over the config's. No home
// directory is given, so file:// prompts are not read for a remote chat
// (they stay as typed).
func (r coreRunner) expandPrompts(q *compose.Request, chat map[string]string) error {
	cfg, err := r.core.Config()
	if err != nil {
		return err
	}
	prompts := maps.Clone(cfg.UserPrompts)
	if prompts == nil {
		prompts = map[string]string{}
	}
	maps.Copy(prompts, chat)
	e := &userprompt.Expander{Prompts: prompts, MaxDepth: cfg.Limits.QueryExpansionMaxDepth}
	var warnings []string
	q.Question, warnings = e.Expand(q.Question)
	for _, w := range warnings {
		fmt.Fprintf(r.log, "%s: %s\n", q.SessionName, w)
	}
	return nil
}
