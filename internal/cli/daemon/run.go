package daemon

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/build"
	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/job"
	"github.com/askygo/asky/internal/cli/query"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/http"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// RunOptions are the inputs of `daemon run`.
type RunOptions struct {
	IO      *iostreams.IOStreams
	Config  func() (*config.Config, error)
	Factory *cmdutil.Factory
	// Ready, when set, is called once the API is listening (tests).
	Ready func(url string)
}

// NewCmdRun builds `daemon run`; runF replaces the run function in tests.
func NewCmdRun(f *cmdutil.Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Config: f.Config, Factory: f}
	return &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground",
		Long: heredoc.Doc(`
			Run the daemon in this terminal until Ctrl-C or SIGTERM. The API's URL
			is printed on stdout; one line per request is logged on stderr.
			Questions still running when it stops are saved as interrupted.
		`),
		Example: heredoc.Doc(`
			$ ASKY_DAEMON_TOKEN=$(openssl rand -hex 32) asky daemon run
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
		},
	}
}

func runRun(ctx context.Context, opts *RunOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	for _, d := range cfg.Diagnostics {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", d)
	}
	dc, err := daemonConfig(cfg)
	if err != nil {
		return err
	}
	tok, err := token(ctx, opts.Factory, dc.HTTP)
	if err != nil {
		return err
	}
	if tok == "" && !dc.HTTP.Loopback() {
		return cmdutil.Errorf("export "+dc.HTTP.TokenEnv+"=$(openssl rand -hex 32) (or set [daemon.http] token_cmd), or listen on 127.0.0.1",
			"refusing to serve on %s without a token", dc.HTTP.Listen)
	}
	lock, err := daemon.Lock(pidPath(cfg))
	if err != nil {
		return lockError(err)
	}
	defer lock.Release()
	ln, err := net.Listen("tcp", dc.HTTP.Listen)
	if err != nil {
		return cmdutil.WithHint(err, "is another program using that port? change [daemon.http] listen")
	}
	url := localURL(ln.Addr())
	if err := lock.Write(daemon.Info{PID: os.Getpid(), URL: url, Started: opts.Factory.Now()}); err != nil {
		ln.Close()
		return err
	}
	if n := unsupportedNotice(dc); n != "" {
		fmt.Fprintln(opts.IO.ErrOut, n)
	}
	if tok == "" {
		fmt.Fprintf(opts.IO.ErrOut, "notice: no token set (%s is empty): any program on this machine can use the API\n", dc.HTTP.TokenEnv)
	}
	fmt.Fprintln(opts.IO.Out, url)
	fmt.Fprintf(opts.IO.ErrOut, "asky daemon %s serving %s (pid %d)\n", build.Version, url, os.Getpid())

	hosts := dc.HTTP.AllowedHosts
	if h, _, err := net.SplitHostPort(dc.HTTP.Listen); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	srv := httpapi.New(httpapi.Options{
		Service:      daemon.NewService(newRunner(opts.Factory), 0),
		Token:        tok,
		AllowedHosts: hosts,
		Version:      build.Version,
		Models:       func() []httpapi.Model { return models(cfg, opts.Factory.Getenv) },
		AskResult:    query.JSONResult,
		Usage:        usageLedger{opts.Factory.Store},
		Log:          opts.IO.ErrOut,
		Now:          opts.Factory.Now,
	})
	if opts.Ready != nil {
		opts.Ready(url)
	}
	// Scheduled jobs run beside the transports, through the same core.
	// Chat transports that can deliver answers register a jobs.Notifier
	// for their target kind in sched.Notifiers.
	sched, err := job.NewScheduler(opts.Factory, func(line string) { fmt.Fprintln(opts.IO.ErrOut, line) })
	if err != nil {
		ln.Close()
		return err
	}
	jobsCtx, stopJobs := context.WithCancel(ctx)
	jobsDone := make(chan struct{})
	go func() { defer close(jobsDone); sched.Loop(jobsCtx) }()
	defer func() { stopJobs(); <-jobsDone }()
	start := time.Now()
	err = srv.Serve(ctx, ln)
	fmt.Fprintf(opts.IO.ErrOut, "asky daemon stopped after %s\n", time.Since(start).Round(time.Second))
	return err
}

// lockError explains a held lock.
func lockError(err error) error {
	if re, ok := err.(*daemon.RunningError); ok {
		return cmdutil.Errorf("stop it with `asky daemon stop`, or see `asky daemon status`", "%s", re.Error())
	}
	return err
}

// models lists the configured aliases for GET /v1/models.
func models(cfg *config.Config, getenv func(string) string) []httpapi.Model {
	def := cfg.DefaultAlias(getenv)
	var list []httpapi.Model
	for _, a := range cfg.Aliases() {
		list = append(list, httpapi.Model{Alias: a, ID: cfg.Models[a].ID, Default: a == def})
	}
	return list
}

// usageLedger opens the store on the first GET /v1/usage.
type usageLedger struct{ open func() (*store.Store, error) }

func (u usageLedger) UsageSince(ctx context.Context, since time.Time) ([]store.UsageEvent, error) {
	st, err := u.open()
	if err != nil {
		return nil, err
	}
	return st.UsageSince(ctx, since)
}
