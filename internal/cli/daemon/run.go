package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"
	"golang.org/x/time/rate"

	"github.com/askygo/asky/internal/build"
	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/job"
	"github.com/askygo/asky/internal/cli/query"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/http"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

// RunOptions are the inputs of `daemon run`.
type RunOptions struct {
	IO      *iostreams.IOStreams
	Config  func() (*config.Config, error)
	Factory *cmdutil.Factory
	// Ready, when set, is called once the transports run, with the HTTP
	// API's URL ("" when it is off) (tests).
	Ready func(url string)
	// Commands runs command-looking chat text with the remote policy;
	// the root command injects it (transports never import the CLI).
	Commands daemon.CommandHandler
}

// NewCmdRun builds `daemon run`; runF replaces the run function in tests.
func NewCmdRun(f *cmdutil.Factory, commands daemon.CommandHandler, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Config: f.Config, Factory: f, Commands: commands}
	return &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground",
		Long: heredoc.Doc(`
			Run the daemon in this terminal until Ctrl-C, SIGTERM or "asky daemon
			stop", serving every enabled transport (HTTP API, XMPP, Telegram). The
			API's URL is printed on stdout when HTTP is on; requests and connection
			changes are logged on stderr. A transport that cannot connect keeps retrying without
			stopping the others. Questions still running when it stops are saved
			as interrupted, and chat users are told so.
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
	if len(dc.Transports()) == 0 {
		return cmdutil.Errorf("enable one in config.toml: [xmpp] enabled = true, [daemon.telegram] enabled = true, or remove [daemon.http] enabled = false",
			"no transport is enabled")
	}
	lock, err := daemon.Lock(pidPath(cfg))
	if err != nil {
		return lockError(err)
	}
	defer lock.Release()

	board := daemon.NewBoard(opts.Factory.Now)
	wake := newDeepWake()
	chat, err := newChat(ctx, opts, cfg, dc, wake)
	if err != nil {
		return err
	}
	svc := chat.Service
	var runs []transportRun
	url := ""
	if dc.HTTP.Enabled {
		r, u, err := httpTransport(ctx, opts, cfg, dc, svc, board)
		if err != nil {
			return err
		}
		runs, url = append(runs, r), u
	}
	if dc.XMPP.Enabled {
		r, err := xmppTransport(ctx, opts, cfg, dc, chat, board)
		if err != nil {
			closeAll(runs)
			return err
		}
		runs = append(runs, r)
	}
	if dc.Telegram.Enabled {
		r, err := telegramTransport(ctx, opts, cfg, dc, chat, board)
		if err != nil {
			closeAll(runs)
			return err
		}
		runs = append(runs, r)
	}
	statesPath := daemon.StatesPath(pidPath(cfg))
	defer os.Remove(statesPath)
	if err := daemon.SaveStates(statesPath, board.Snapshot(svc)); err != nil {
		closeAll(runs)
		return err
	}
	// A stop request left by a daemon killed before it saw it is stale.
	stopPath := daemon.StopPath(pidPath(cfg))
	_ = os.Remove(stopPath)
	defer os.Remove(stopPath)
	if err := lock.Write(daemon.Info{PID: os.Getpid(), URL: url, Started: opts.Factory.Now(), Transports: dc.Transports()}); err != nil {
		closeAll(runs)
		return err
	}
	if url != "" {
		fmt.Fprintln(opts.IO.Out, url)
	}
	fmt.Fprintf(opts.IO.ErrOut, "asky daemon %s serving %s (pid %d)\n", build.Version, strings.Join(dc.Transports(), ", "), os.Getpid())

	// Scheduled jobs run beside the transports, through the same core.
	// Enabled chat transports deliver answers to their target kind
	// (xmpp:, telegram:).
	sched, err := job.NewScheduler(opts.Factory, func(line string) { fmt.Fprintln(opts.IO.ErrOut, line) })
	if err != nil {
		closeAll(runs)
		return err
	}
	busy := svc.Busy()
	sched.Asker = busyAsker{Asker: sched.Asker, busy: busy}
	sched.Notifiers = map[string]jobs.Notifier{}
	for _, r := range runs {
		if r.notify != nil {
			sched.Notifiers[r.name] = r.notify
		}
	}
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobsDone := make(chan struct{})
	go func() { defer close(jobsDone); sched.Loop(runCtx) }()
	defer func() { cancel(); <-jobsDone }()
	// `asky daemon stop` where there is no SIGTERM (Windows) asks through
	// a stop request file, checked as often as the states are saved.
	stopDone := make(chan struct{})
	go func() {
		defer close(stopDone)
		daemon.WatchStop(runCtx, pidPath(cfg), os.Getpid(), 250*time.Millisecond, func() {
			fmt.Fprintln(opts.IO.ErrOut, "stopping: asked by asky daemon stop")
			cancel()
		})
	}()
	defer func() { cancel(); <-stopDone }()
	deepDone := make(chan struct{})
	go func() {
		defer close(deepDone)
		fillDeepLoop(runCtx, opts.Factory, cfg, busy, wake, func(line string) { fmt.Fprintln(opts.IO.ErrOut, line) })
	}()
	defer func() { cancel(); <-deepDone }()
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.run(runCtx)
			if errs[i] != nil {
				board.Set(r.name, daemon.StateFailed, errs[i])
				fmt.Fprintf(opts.IO.ErrOut, "%s: stopped: %v\n", r.name, errs[i])
			}
		}()
	}
	saved := make(chan struct{})
	go func() {
		defer close(saved)
		saveStates(runCtx, statesPath, board, svc)
	}()
	if opts.Ready != nil {
		opts.Ready(url)
	}
	wg.Wait()
	cancel()
	<-saved
	// The background work says its last (the deep fill: how far it got)
	// before the daemon says it stopped.
	<-deepDone
	<-jobsDone
	<-stopDone
	fmt.Fprintf(opts.IO.ErrOut, "asky daemon stopped after %s\n", time.Since(start).Round(time.Second))
	return errors.Join(errs...)
}

// transportRun is one transport's serve loop; it returns when ctx ends
// (after draining its turns) or on a failure that no retry can fix.
type transportRun struct {
	name  string
	run   func(context.Context) error
	close func()
	// notify delivers scheduled jobs' answers to targets named after the
	// transport (nil: it cannot).
	notify jobs.Notifier
}

func closeAll(runs []transportRun) {
	for _, r := range runs {
		if r.close != nil {
			r.close()
		}
	}
}

// busyAsker counts a scheduled job's run in the daemon's Busy, like a
// transport's turn: background work gives way to it too.
type busyAsker struct {
	jobs.Asker
	busy *daemon.Busy
}

func (b busyAsker) Run(ctx context.Context, q compose.Request, emit func(turn.Event)) (*turn.Result, error) {
	defer b.busy.Begin()()
	return b.Asker.Run(ctx, q, emit)
}

// saveStates writes the board for `asky daemon status` whenever it
// changes, until ctx ends.
func saveStates(ctx context.Context, path string, board *daemon.Board, svc *daemon.Service) {
	var last []byte
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		snap := board.Snapshot(svc)
		if b, _ := json.Marshal(snap); !bytes.Equal(b, last) {
			if err := daemon.SaveStates(path, snap); err == nil {
				last = b
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-board.Changed():
		}
	}
}

// httpTransport listens for the HTTP API.
func httpTransport(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, svc *daemon.Service, board *daemon.Board) (transportRun, string, error) {
	tok, err := requireToken(ctx, opts.Factory, dc.HTTP)
	if err != nil {
		return transportRun{}, "", err
	}
	ln, err := net.Listen("tcp", dc.HTTP.Listen)
	if err != nil {
		return transportRun{}, "", cmdutil.WithHint(err, "is another program using that port? change [daemon.http] listen, or set enabled = false there")
	}
	if tok == "" {
		fmt.Fprintln(opts.IO.ErrOut, "notice: serving without a token (allow_no_token = true): any program on this machine can use the API")
	}
	hosts := dc.HTTP.AllowedHosts
	if h, _, err := net.SplitHostPort(dc.HTTP.Listen); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	srv := httpapi.New(httpapi.Options{
		Service:      svc,
		Token:        tok,
		AllowedHosts: hosts,
		Version:      build.Version,
		Models:       func() []httpapi.Model { return models(cfg, opts.Factory.Getenv) },
		AskResult:    query.JSONResult,
		Usage:        usageLedger{opts.Factory.Store},
		Log:          opts.IO.ErrOut,
		Now:          opts.Factory.Now,
		Rate:         rate.Limit(dc.HTTP.Rate),
		Burst:        dc.HTTP.Burst,
	})
	board.Register("http", "http:")
	board.Set("http", daemon.StateListening, nil)
	return transportRun{name: "http", close: func() { ln.Close() }, run: func(ctx context.Context) error {
		err := srv.Serve(ctx, ln)
		board.Set("http", daemon.StateStopped, nil)
		return err
	}}, localURL(ln.Addr()), nil
}

// requireToken resolves the API token and refuses to go on without one,
// unless the config explicitly allows a tokenless loopback daemon.
func requireToken(ctx context.Context, f *cmdutil.Factory, h daemon.HTTPConfig) (string, error) {
	tok, err := token(ctx, f, h)
	if err != nil {
		return "", err
	}
	if tok == "" && !h.Loopback() {
		return "", cmdutil.Errorf("export "+h.TokenEnv+"=$(openssl rand -hex 32) (or set [daemon.http] token_cmd), or listen on 127.0.0.1",
			"refusing to serve on %s without a token", h.Listen)
	}
	if tok == "" && !h.AllowNoToken {
		return "", cmdutil.Errorf("export "+h.TokenEnv+"=$(openssl rand -hex 32) (or set [daemon.http] token_cmd); to serve without one, set [daemon.http] allow_no_token = true",
			"refusing to serve without a token (%s is empty)", h.TokenEnv)
	}
	return tok, nil
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
