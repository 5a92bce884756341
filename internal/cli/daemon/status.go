package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
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
			URL and uptime. The answer comes from the daemon's lock, so a daemon
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
	if opts.JSON {
		out := map[string]any{"running": running, "pid": nil, "url": nil, "started_at": nil, "uptime_seconds": nil, "log": logPath(cfg)}
		if running {
			out["pid"], out["url"], out["uptime_seconds"] = info.PID, info.URL, int64(uptime.Seconds())
			out["started_at"] = info.Started.UTC().Format(time.RFC3339)
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	if !running {
		fmt.Fprintln(opts.IO.Out, "not running")
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "running (pid %d) at %s, up %s\n", info.PID, info.URL, uptime)
	return nil
}
