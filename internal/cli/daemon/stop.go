package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
)

// StopOptions are the inputs of `daemon stop`.
type StopOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	// Timeout bounds the wait for the daemon to exit; it finishes
	// writing interrupted turns first.
	Timeout time.Duration
}

// NewCmdStop builds `daemon stop`; runF replaces the run function in
// tests.
func NewCmdStop(f *cmdutil.Factory, runF func(context.Context, *StopOptions) error) *cobra.Command {
	opts := &StopOptions{IO: f.IO, Config: f.Config, Timeout: 20 * time.Second}
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the background daemon",
		Long: heredoc.Doc(`
			Send SIGTERM to the running daemon and wait until it has exited.
			Questions it is still answering are saved as interrupted. Stopping a
			daemon that is not running is not an error.
		`),
		Example: heredoc.Doc(`
			$ asky daemon stop
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return stopRun(c.Context(), opts)
		},
	}
}

func stopRun(ctx context.Context, opts *StopOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	path := pidPath(cfg)
	info, running, err := daemon.Status(path)
	if err != nil {
		return err
	}
	if !running {
		fmt.Fprintln(opts.IO.ErrOut, "asky daemon is not running")
		return nil
	}
	if info.PID <= 0 {
		return cmdutil.Errorf("try again in a moment", "the daemon is still starting")
	}
	if err := terminate(info.PID); err != nil {
		var ce *cmdutil.Error
		if errors.As(err, &ce) {
			return err
		}
		return cmdutil.WithHint(err, "is it another user's daemon?")
	}
	deadline := time.Now().Add(opts.Timeout)
	for {
		if _, running, err := daemon.Status(path); err == nil && !running {
			fmt.Fprintf(opts.IO.ErrOut, "stopped asky daemon (pid %d)\n", info.PID)
			return nil
		}
		if time.Now().After(deadline) {
			return cmdutil.Errorf(fmt.Sprintf("kill -9 %d", info.PID), "the daemon (pid %d) did not exit within %s", info.PID, opts.Timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
