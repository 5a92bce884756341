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

			On Windows, which has no SIGTERM, a stop request file in the state
			directory asks the daemon to stop the same way; one that has not
			exited when the timeout ends is ended with TerminateProcess.
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
	req, err := terminate(info.PID, path)
	if err != nil {
		var ce *cmdutil.Error
		if errors.As(err, &ce) {
			return err
		}
		return cmdutil.WithHint(err, "is it another user's daemon?")
	}
	defer req.close()
	err = waitExit(ctx, path, opts.Timeout)
	if errors.Is(err, errStillRunning) {
		late := fmt.Sprintf("the daemon (pid %d) did not exit within %s", info.PID, opts.Timeout)
		if req.force() != nil {
			return cmdutil.Errorf(forceHint(info.PID), "%s", late)
		}
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s; ended it (questions in flight are shown as interrupted)\n", late)
		if err = waitExit(ctx, path, forcedExit); errors.Is(err, errStillRunning) {
			return cmdutil.Errorf(forceHint(info.PID), "%s", late)
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "stopped asky daemon (pid %d)\n", info.PID)
	return nil
}

// forcedExit bounds the wait for the lock to drop once the daemon was
// ended forcibly: the system closes its files at once.
const forcedExit = 5 * time.Second

var errStillRunning = errors.New("the daemon is still running")

// waitExit waits up to d for the daemon holding the lock at path to exit;
// errStillRunning says it did not.
func waitExit(ctx context.Context, path string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		if _, running, err := daemon.Status(path); err == nil && !running {
			return nil
		}
		if time.Now().After(deadline) {
			return errStillRunning
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stopping is a stop request sent to a running daemon.
type stopping interface {
	// force ends the daemon at once, when this platform lets asky do it
	// (an error where only the user should: forceHint).
	force() error
	close()
}
