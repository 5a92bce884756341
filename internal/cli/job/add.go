package job

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
)

// AddOptions are the flags of `job add`.
type AddOptions struct {
	IO      *iostreams.IOStreams
	Store   func() (*store.Store, error)
	Now     func() time.Time
	Getwd   func() (string, error)
	Getenv  func(string) string
	Running func() bool
	Config  func() (*config.Config, error)

	Question string
	Every    string
	Cron     string
	At       string
	Research string
	Notify   string
	Timeout  time.Duration
	MaxCost  float64
	JSON     bool
}

// NewCmdAdd builds `job add`.
func NewCmdAdd(f *cmdutil.Factory, runF func(context.Context, *AddOptions) error) *cobra.Command {
	opts := &AddOptions{IO: f.IO, Store: f.Store, Now: f.Now, Getwd: os.Getwd, Getenv: f.Getenv, Running: func() bool { return daemonRunning(f) }, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "add <question…>",
		Short: "Add a scheduled question",
		Long: heredoc.Doc(`
			Add a question for the daemon to ask on a schedule: --every (30m, 6h,
			1d, 1w; the first run is right away), --cron (five fields, local time)
			or --at (one run: 09:00, 2026-11-25 09:00). Without one the job only
			runs with asky job run.

			--research web or a file/directory runs it in research mode over that
			source. --notify delivers each answer: file:PATH appends it to a
			markdown file; xmpp:JID and telegram:CHAT are sent by the daemon's chat
			transports, only to a JID in [xmpp] allowed_jids or a chat id in
			[daemon.telegram] allowed_chats or allowed_users (telegram:CHAT:TOPIC
			posts in a forum topic of that chat). A run records a
			refused target, a transport that is not enabled, or a failed send
			(asky job show ID).

			Each run stops after --timeout and once its model calls cost more than
			--max-cost (USD, from the model's prices; 0: no per-run limit).
		`),
		Example: heredoc.Doc(`
			$ asky job add "summarize Hacker News front page" --every 1d --notify file:~/hn.md
			$ asky job add "status of the RFC 9110 errata" --cron "0 8 * * 1" --research web
			$ asky job add "remind me what the Lisbon trip plan is" --at "2026-12-01 08:00"
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Question = strings.TrimSpace(strings.Join(args, " "))
			if opts.Question == "" {
				return cmdutil.FlagErrorf("the question is empty; usage: asky job add <question…> [--every …]")
			}
			n := 0
			for _, s := range []string{opts.Every, opts.Cron, opts.At} {
				if s != "" {
					n++
				}
			}
			if n > 1 {
				return cmdutil.FlagErrorf("--every, --cron and --at cannot be combined")
			}
			if opts.Timeout < 10*time.Second || opts.Timeout > 24*time.Hour {
				return cmdutil.FlagErrorf("--timeout must be between 10s and 24h, got %s", opts.Timeout)
			}
			if opts.MaxCost < 0 {
				return cmdutil.FlagErrorf("--max-cost must be 0 (no limit) or a positive amount in USD, got %g", opts.MaxCost)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return addRun(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Every, "every", "", "run every `interval`: 30m, 6h, 1d, 1w")
	fl.StringVar(&opts.Cron, "cron", "", "run on a cron `expression` (minute hour day month weekday)")
	fl.StringVar(&opts.At, "at", "", "run once at `time`: 09:00, 2026-11-25 09:00")
	fl.StringVar(&opts.Research, "research", "", "research mode over `web` or a file/directory")
	fl.StringVar(&opts.Notify, "notify", "", "deliver answers to `target`: file:PATH, xmpp:JID or telegram:CHAT")
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "stop a run after this `duration`")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0.5, "stop a run once its calls cost more than this many `USD` (0: no limit)")
	fl.BoolVar(&opts.JSON, "json", false, "print the job as JSON")
	return cmd
}

func addRun(ctx context.Context, opts *AddOptions) error {
	now := opts.Now()
	j := &store.Job{Question: opts.Question, ScheduleKind: jobs.Manual, MaxSeconds: int(opts.Timeout / time.Second), MaxCostUSD: opts.MaxCost}
	var err error
	switch {
	case opts.Every != "":
		if _, err = jobs.ParseEvery(opts.Every); err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		j.ScheduleKind, j.Schedule, j.NextRun = jobs.Every, opts.Every, now
	case opts.Cron != "":
		c, err := jobs.ParseCron(opts.Cron)
		if err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if j.NextRun = c.Next(now); j.NextRun.IsZero() {
			return cmdutil.FlagErrorf("--cron %q never matches a date", opts.Cron)
		}
		j.ScheduleKind, j.Schedule = jobs.Cron, opts.Cron
	case opts.At != "":
		at, err := jobs.ParseAt(opts.At, now)
		if err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if !at.After(now) {
			return cmdutil.FlagErrorf("--at %s is in the past", at.Format("2006-01-02 15:04"))
		}
		j.ScheduleKind, j.Schedule, j.NextRun = jobs.At, at.Format(time.RFC3339), at
	}
	cwd, _ := opts.Getwd()
	if j.Research, err = researchTarget(opts.Research, cwd, opts.Getenv); err != nil {
		return err
	}
	if opts.Notify != "" {
		n := opts.Notify
		if rest, ok := strings.CutPrefix(n, "file:~/"); ok {
			n = "file:" + filepath.Join(opts.Getenv("HOME"), rest)
		}
		t, err := jobs.ParseTarget(n, cwd)
		if err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		j.Notify = t.String()
	}
	st, err := opts.Store()
	if err != nil {
		return err
	}
	if err := st.CreateJob(ctx, j); err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, toJSON(j, nil))
	}
	fmt.Fprintf(opts.IO.Out, "job %d added: %s\n", j.ID, describe(j))
	if warn := undeliverable(opts, j.Notify); warn != "" {
		fmt.Fprintln(opts.IO.ErrOut, "warning: "+warn)
	}
	if !j.NextRun.IsZero() && !opts.Running() {
		fmt.Fprintln(opts.IO.ErrOut, "notice: jobs run in the daemon, which is not running; start it with `asky daemon start` (or run this one now with `asky job run "+fmt.Sprint(j.ID)+"`)")
	}
	return nil
}

// undeliverable says why answers to a chat target would not arrive: the
// daemon delivers them through a transport the config does not turn on.
func undeliverable(opts *AddOptions, notify string) string {
	kind, _, _ := strings.Cut(notify, ":")
	if (kind != "xmpp" && kind != "telegram") || opts.Config == nil {
		return ""
	}
	cfg, err := opts.Config()
	if err != nil {
		return ""
	}
	dc, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
	switch {
	case err != nil:
		return ""
	case kind == "xmpp" && !dc.XMPP.Enabled:
		return "XMPP is not enabled, so answers to " + notify + " are not delivered; turn it on with `asky config daemon edit --xmpp-enabled --xmpp-jid BOT_JID`"
	case kind == "telegram" && !dc.Telegram.Enabled:
		return "Telegram is not enabled, so answers to " + notify + " are not delivered; turn it on with `asky config daemon edit --telegram-enabled --telegram-token-env VAR`"
	}
	return ""
}

// researchTarget checks --research: web, or an existing path (made
// absolute so the daemon reads what the user meant).
func researchTarget(r, cwd string, getenv func(string) string) (string, error) {
	switch {
	case r == "":
		return "", nil
	case strings.EqualFold(r, "web"):
		return "web", nil
	}
	if rest, ok := strings.CutPrefix(r, "~/"); ok {
		r = filepath.Join(getenv("HOME"), rest)
	}
	if !filepath.IsAbs(r) {
		r = filepath.Join(cwd, r)
	}
	if _, err := os.Stat(r); err != nil {
		return "", &cmdutil.FlagError{Err: fmt.Errorf("--research %s: no such file or directory", r), Hint: "give web, or a file or directory to research"}
	}
	return r, nil
}

// describe is a job's schedule and target in words.
func describe(j *store.Job) string {
	var s string
	switch j.ScheduleKind {
	case jobs.Every:
		s = "every " + j.Schedule
	case jobs.Cron:
		s = "cron " + j.Schedule
	case jobs.At:
		s = "once"
	default:
		s = "manual (asky job run)"
	}
	if !j.NextRun.IsZero() {
		s += ", next run " + j.NextRun.Local().Format("2006-01-02 15:04")
	}
	if j.Research != "" {
		s += ", research " + j.Research
	}
	if j.Notify != "" {
		s += ", answers to " + j.Notify
	}
	return render.SanitizeLine(s)
}
