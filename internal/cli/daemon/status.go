package daemon

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
)

// StatusOptions are the inputs of `daemon status`.
type StatusOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Now    func() time.Time
	JSON   bool
}

// NewCmdStatus builds `daemon status`; runF replaces the run function in
// tests.
func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Config: f.Config, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the daemon is running",
		Long: heredoc.Doc(`
			Show whether a daemon is running for this configuration, with its pid,
			URL and uptime, and each transport's state (connected, reconnecting,
			failed…), its last error and how many questions it has in flight. The answer comes from the daemon's lock, so a daemon
			that crashed is never reported as running.
		`),
		Example: heredoc.Doc(`
			$ asky daemon status
			$ asky daemon status --json | jq -r .url
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return statusRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

func statusRun(_ context.Context, opts *StatusOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	info, running, err := daemon.Status(pidPath(cfg))
	if err != nil {
		return err
	}
	var uptime time.Duration
	if running && !info.Started.IsZero() {
		uptime = opts.Now().Sub(info.Started).Round(time.Second)
	}
	var states []daemon.TransportState
	if running {
		// A daemon that just started may not have written them yet.
		states, _ = daemon.LoadStates(daemon.StatesPath(pidPath(cfg)))
	}
	if opts.JSON {
		out := map[string]any{"running": running, "pid": nil, "url": nil, "started_at": nil, "uptime_seconds": nil, "log": logPath(cfg), "transports": []any{}}
		if running {
			out["pid"], out["uptime_seconds"] = info.PID, int64(uptime.Seconds())
			if info.URL != "" {
				out["url"] = info.URL
			}
			out["started_at"] = info.Started.UTC().Format(time.RFC3339)
			if states != nil {
				out["transports"] = states
			}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	if !running {
		fmt.Fprintln(opts.IO.Out, "not running")
		return nil
	}
	if info.URL != "" {
		fmt.Fprintf(opts.IO.Out, "running (pid %d) at %s, up %s\n", info.PID, info.URL, uptime)
	} else {
		fmt.Fprintf(opts.IO.Out, "running (pid %d), up %s\n", info.PID, uptime)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	for _, s := range states {
		fmt.Fprintln(tw, stateLine(s, opts.Now()))
	}
	return tw.Flush()
}

// stateLine is one transport's row. The last error may quote a chat
// server's words, so it is printed without terminal escapes.
func stateLine(s daemon.TransportState, now time.Time) string {
	line := fmt.Sprintf("  %s\t%s\tqueue %d", s.Name, s.State, s.QueueDepth)
	if s.LastError != "" {
		line += fmt.Sprintf("\tlast error %s ago: %s", now.Sub(s.LastErrorAt).Round(time.Second), render.SanitizeLine(s.LastError))
	}
	return line
}
