package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/telegram"
	"github.com/askygo/asky/internal/daemon/transport/xmpp"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/jobs"
)

// secret resolves a *_cmd / *_env / literal secret, in that order.
func secret(ctx context.Context, f *cmdutil.Factory, key, cmd, env string, literal config.Secret) (string, error) {
	if cmd != "" {
		s, err := config.RunSecretCmd(ctx, cmd)
		if err != nil {
			return "", cmdutil.WithHint(fmt.Errorf("%s_cmd: %w", key, err), "check the command in "+key+"_cmd")
		}
		return s.Reveal(), nil
	}
	if env != "" {
		if v := f.Getenv(env); v != "" {
			return v, nil
		}
	}
	return literal.Reveal(), nil
}

// xmppTransport builds the XMPP client from [xmpp].
func xmppTransport(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, chat *daemon.Chat, board *daemon.Board) (transportRun, error) {
	x := dc.XMPP
	pw, err := secret(ctx, opts.Factory, "xmpp.password", x.PasswordCmd, x.PasswordEnv, x.Password)
	if err != nil {
		return transportRun{}, err
	}
	tr, err := xmpp.New(xmpp.Options{Config: x, Password: pw, Chat: chat, Board: board, Log: opts.IO.ErrOut,
		RoomsFile: filepath.Join(cfg.Paths.StateDir, "xmpp-rooms.json"), Now: opts.Factory.Now})
	if err != nil {
		return transportRun{}, cmdutil.WithHint(err, "fix [xmpp] in your config (`asky config path` shows where it is)")
	}
	return transportRun{name: xmpp.Name, run: tr.Run, notify: notifier(tr)}, nil
}

// telegramTransport builds the Telegram bot from [daemon.telegram].
func telegramTransport(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, chat *daemon.Chat, board *daemon.Board) (transportRun, error) {
	tc := dc.Telegram
	tok, err := secret(ctx, opts.Factory, "daemon.telegram.token", tc.TokenCmd, tc.TokenEnv, "")
	if err != nil {
		return transportRun{}, err
	}
	if tok == "" {
		return transportRun{}, cmdutil.Errorf("export "+tc.TokenEnv+"=<token from @BotFather>, or set [daemon.telegram] token_cmd",
			"no Telegram bot token (%s is empty)", tc.TokenEnv)
	}
	tr, err := telegram.New(telegram.Options{Token: tok, APIURL: tc.APIURL, AllowedUsers: tc.AllowedUsers, AllowedChats: tc.AllowedChats,
		Chat: chat, Board: board, Log: opts.IO.ErrOut, OffsetFile: filepath.Join(cfg.Paths.StateDir, "telegram-offset.json"), Now: opts.Factory.Now})
	if err != nil {
		return transportRun{}, cmdutil.WithHint(err, "fix [daemon.telegram] in your config (`asky config path` shows where it is)")
	}
	return transportRun{name: telegram.Name, run: tr.Run, notify: notifier(tr)}, nil
}

// deliverer is a chat transport that can send an answer unprompted.
type deliverer interface {
	Deliver(ctx context.Context, to, text string) error
}

// notifier delivers scheduled jobs' answers through a chat transport.
func notifier(d deliverer) jobs.Notifier {
	return jobs.NotifierFunc(func(ctx context.Context, to jobs.Target, m jobs.Message) error {
		return d.Deliver(ctx, to.Addr, m.ChatText())
	})
}

// uploads stores chat documents under the first [research]
// local_document_roots entry (else the data dir's research-corpus) and
// ingests them with `asky corpus ingest`.
func uploads(opts *RunOptions, cfg *config.Config) *daemon.Uploads {
	dir := filepath.Join(cfg.Paths.DataDir, "research-corpus")
	if roots := cfg.Research.LocalDocumentRoots; len(roots) > 0 && strings.TrimSpace(roots[0]) != "" {
		dir = roots[0]
		if dir == "~" || strings.HasPrefix(dir, "~/") {
			dir = filepath.Join(opts.Factory.Getenv("HOME"), dir[1:])
		}
	}
	return &daemon.Uploads{Dir: filepath.Join(dir, "uploads"), Ingest: func(ctx context.Context, _ string, paths []string) (string, error) {
		ios, _, out, errOut := iostreams.Test()
		cmd := corpus.NewCmdIngest(opts.Factory.WithIO(ios), nil)
		cmd.SetArgs(paths)
		cmd.SetOut(out)
		cmd.SetErr(errOut)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.ExecuteContext(ctx); err != nil {
			return "", err
		}
		return strings.TrimSpace(out.String() + "\n" + errOut.String()), nil
	}}
}
