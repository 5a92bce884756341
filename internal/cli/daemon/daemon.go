// Package daemon implements `asky daemon`: run, start, stop and status of
// the long-running process that answers over its transports (HTTP API,
// XMPP, Telegram), wiring the CLI's turn composition into them.
package daemon

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
)

// NewCmdDaemon builds the daemon group; commands runs command-looking
// chat text (the root command provides it: this package cannot import
// the command tree it is part of).
func NewCmdDaemon(f *cmdutil.Factory, commands daemon.CommandHandler) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon [command]",
		Short: "Serve asky over HTTP, XMPP and Telegram",
		Long: heredoc.Doc(`
			The daemon answers the same way as the CLI, sharing history, sessions,
			memory and the corpus, over every enabled transport in one process.
			"asky daemon" alone runs it in the foreground, as "asky daemon run".

			HTTP API (on unless [daemon.http] enabled = false), on 127.0.0.1:8765:
			POST /v1/chat/completions (OpenAI-compatible), POST /v1/ask (the same
			JSON as asky query --json), GET /v1/models and GET /v1/health.

			  [daemon.http]
			  listen = "127.0.0.1:8765"
			  token_env = "ASKY_DAEMON_TOKEN"   # or token_cmd = "pass show asky/daemon"
			  allowed_hosts = []                # extra Host names besides localhost
			  rate = 2                          # requests per second per client
			  burst = 10                        # requests allowed at once
			  allow_no_token = false            # true serves loopback without a token

			XMPP ([xmpp], the original's xmpp.toml): direct chat from allowed_jids
			(bare = any resource, full = that one), group chat in rooms an allowed
			JID invited the bot to. Each chat is the session xmpp:<jid> or
			xmpp-room:<room>, so "asky -c" continues it from the shell.

			  [xmpp]
			  enabled = true
			  jid = "bot@example.org"
			  password_env = "ASKY_XMPP_PASSWORD"
			  allowed_jids = ["me@example.org"]
			  ca_file = ""                      # PEM for a self-signed server

			Telegram ([daemon.telegram]): long polling; chats from allowed_users or
			allowed_chats, session telegram:<chat-id>; each forum topic has its own,
			telegram:<chat-id>:<topic-id> (the General topic keeps the chat's).

			  [daemon.telegram]
			  enabled = true
			  token_env = "ASKY_TELEGRAM_TOKEN"
			  allowed_users = [12345678]

			Requests need "Authorization: Bearer <token>"; the daemon refuses to
			start without a token unless allow_no_token = true (loopback only).
			POST bodies must be sent as Content-Type: application/json, and
			requests a browser marks as cross-site or from a foreign Origin are
			refused, so a web page cannot use the API.
		`),
		Example: heredoc.Doc(`
			$ asky daemon                # in the foreground, until Ctrl-C
			$ asky daemon start
			$ curl -s localhost:8765/v1/ask -H "Authorization: Bearer $ASKY_DAEMON_TOKEN" -H 'Content-Type: application/json' -d '{"question":"2+2"}'
			$ asky daemon status
			$ asky daemon stop
		`),
	}
	run := NewCmdRun(f, commands, nil)
	cmd.AddCommand(
		run,
		NewCmdStart(f, nil),
		NewCmdStop(f, nil),
		NewCmdStatus(f, nil),
	)
	// `asky daemon` alone runs in the foreground, as `asky daemon run`
	// (the command tree's `daemon [run|start|stop|status]`); any other
	// word is still a usage error naming the verbs.
	cmdutil.StrictGroup(cmd)
	strict := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return run.RunE(c, nil)
		}
		return strict(c, args)
	}
	return cmd
}
