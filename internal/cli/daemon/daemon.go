// Package daemon implements `asky daemon`: run, start, stop and status of
// the long-running process that answers over the HTTP API (XMPP and
// Telegram are not served by this version).
package daemon

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdDaemon builds the daemon group.
func NewCmdDaemon(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon [command]",
		Short: "Serve asky over an HTTP API",
		Long: heredoc.Doc(`
			The daemon answers the same way as the CLI, sharing history, sessions,
			memory and the corpus. This version serves an HTTP API on
			127.0.0.1:8765: POST /v1/chat/completions (OpenAI-compatible),
			POST /v1/ask (the same JSON as asky query --json), GET /v1/models and
			GET /v1/health. XMPP and Telegram are not served yet.

			Configure it under [daemon.http] in config.toml:

			  listen = "127.0.0.1:8765"
			  token_env = "ASKY_DAEMON_TOKEN"   # or token_cmd = "pass show asky/daemon"
			  allowed_hosts = []                # extra Host names besides localhost
			  rate = 2                          # requests per second per client
			  burst = 10                        # requests allowed at once
			  allow_no_token = false            # true serves loopback without a token

			Requests need "Authorization: Bearer <token>"; the daemon refuses to
			start without a token unless allow_no_token = true (loopback only).
			POST bodies must be sent as Content-Type: application/json, and
			requests a browser marks as cross-site or from a foreign Origin are
			refused, so a web page cannot use the API.
		`),
		Example: heredoc.Doc(`
			$ asky daemon start
			$ curl -s localhost:8765/v1/ask -H "Authorization: Bearer $ASKY_DAEMON_TOKEN" -H 'Content-Type: application/json' -d '{"question":"2+2"}'
			$ asky daemon status
			$ asky daemon stop
		`),
	}
	cmd.AddCommand(
		NewCmdRun(f, nil),
		NewCmdStart(f, nil),
		NewCmdStop(f, nil),
		NewCmdStatus(f, nil),
	)
	return cmdutil.StrictGroup(cmd)
}
