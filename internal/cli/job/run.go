package job

import (
	"context"
	"errors"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
)

// RunOptions are the flags of `job run`.
type RunOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	ID      int64
}

// NewCmdRun builds `job run`.
func NewCmdRun(f *cmdutil.Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:   "run <id>",
		Short: "Run a job now, in this terminal",
		Long: heredoc.Doc(`
			Run a job now, as the daemon would (same budget, same session, same
			notify target), and print the answer. It does not move the job's
			schedule. xmpp: and telegram: targets are delivered only by the
			daemon, so here the answer is printed and not sent. A job already running (here or in the daemon) is not started
			twice.
		`),
		Example: "  $ asky job run 1",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
		},
	}
}

func runRun(ctx context.Context, opts *RunOptions) error {
	s, err := NewScheduler(opts.Factory, nil)
	if err != nil {
		return err
	}
	// Chat targets need the daemon's connections; this process has none.
	daemonOnly := jobs.NotifierFunc(func(_ context.Context, to jobs.Target, _ jobs.Message) error {
		return fmt.Errorf("not delivered to %s: chat targets are delivered by the daemon's transports (`asky daemon run`), not by `asky job run`", to)
	})
	s.Notifiers = map[string]jobs.Notifier{"xmpp": daemonOnly, "telegram": daemonOnly}
	j, err := s.Store.GetJob(ctx, opts.ID)
	if err != nil {
		return cmdutil.WithHint(err, "see the ids with `asky job list`")
	}
	if opts.IO.IsStderrTTY() {
		fmt.Fprintf(opts.IO.ErrOut, "running job %d: %s\n", j.ID, render.SanitizeLine(j.Question))
	}
	run, res, err := s.RunJob(ctx, j, "manual", 1)
	if errors.Is(err, store.ErrJobBusy) {
		return cmdutil.Errorf("wait for it to end (see `asky job show "+fmt.Sprint(j.ID)+"`)", "job %d is already running", j.ID)
	}
	if err != nil {
		return err
	}
	if res != nil && run.Status == store.RunOK {
		fmt.Fprintln(opts.IO.Out, render.Sanitize(res.Answer))
	}
	if run.NotifyError != "" {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", render.SanitizeLine(run.NotifyError))
	}
	if run.Status != store.RunOK {
		return cmdutil.Errorf("see `asky job show "+fmt.Sprint(j.ID)+"`", "job %d run %d: %s", j.ID, run.ID, run.Error)
	}
	return nil
}
