package job

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
)

// ListOptions are the flags of `job list`.
type ListOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	// Running reports whether the daemon, which runs scheduled jobs, is up.
	Running func() bool
	JSON    bool
}

// NewCmdList builds `job list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Store: f.Store, Running: func() bool { return daemonRunning(f) }}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List scheduled questions",
		Example: heredoc.Doc(`
			$ asky job list
			$ asky job list --json | jq -r '.jobs[].question'
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {jobs:[{id, question, schedule, next_run, last_run, …}]}")
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	js, err := st.ListJobs(ctx)
	if err != nil {
		return err
	}
	out := make([]jobJSON, 0, len(js))
	for _, j := range js {
		runs, err := st.JobRuns(ctx, j.ID, 1)
		if err != nil {
			return err
		}
		out = append(out, toJSON(j, runs))
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"jobs": out})
	}
	if len(out) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, `no jobs yet; add one with: asky job add "what changed in Go this week?" --every 1w`)
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCHEDULE\tNEXT RUN\tLAST RUN\tQUESTION")
	scheduled := false
	for _, j := range out {
		last := "-"
		if len(j.Runs) > 0 {
			last = j.Runs[0].Status + " " + j.Runs[0].Started.Local().Format("01-02 15:04")
		}
		scheduled = scheduled || j.NextRun != nil
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", j.ID, j.Schedule, when(j.NextRun), last, render.Clip(j.Question, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// NEXT RUN is only a promise while the daemon runs.
	if scheduled && opts.Running != nil && !opts.Running() {
		fmt.Fprintln(opts.IO.ErrOut, "notice: the daemon is not running, so no job runs on schedule; start it with `asky daemon start`")
	}
	return nil
}

// jobJSON is a job as --json prints it.
type jobJSON struct {
	ID         int64      `json:"id"`
	Question   string     `json:"question"`
	Schedule   string     `json:"schedule"`
	Research   string     `json:"research,omitempty"`
	Notify     string     `json:"notify,omitempty"`
	NextRun    *time.Time `json:"next_run"`
	MaxSeconds int        `json:"max_seconds"`
	MaxCostUSD float64    `json:"max_cost_usd"`
	Session    string     `json:"session"`
	Runs       []runJSON  `json:"runs,omitempty"`
}

type runJSON struct {
	ID          int64     `json:"id"`
	Trigger     string    `json:"trigger"`
	Attempt     int       `json:"attempt"`
	Status      string    `json:"status"`
	Started     time.Time `json:"started"`
	DurationMS  *int64    `json:"duration_ms"`
	CostUSD     *float64  `json:"cost_usd"`
	HistoryID   *int64    `json:"history_id"`
	Error       string    `json:"error,omitempty"`
	NotifyError string    `json:"notify_error,omitempty"`
}

func toJSON(j *store.Job, runs []*store.JobRun) jobJSON {
	out := jobJSON{ID: j.ID, Question: j.Question, Schedule: j.ScheduleKind, Research: j.Research, Notify: j.Notify,
		MaxSeconds: j.MaxSeconds, MaxCostUSD: j.MaxCostUSD, Session: "job-" + strconv.FormatInt(j.ID, 10)}
	if j.Schedule != "" && j.ScheduleKind != "at" {
		out.Schedule += " " + j.Schedule
	}
	if !j.NextRun.IsZero() {
		t := j.NextRun
		out.NextRun = &t
	}
	for _, r := range runs {
		rj := runJSON{ID: r.ID, Trigger: r.Trigger, Attempt: r.Attempt, Status: r.Status, Started: r.Started, CostUSD: r.CostUSD,
			Error: r.Error, NotifyError: r.NotifyError}
		if !r.Finished.IsZero() {
			d := r.Finished.Sub(r.Started).Milliseconds()
			rj.DurationMS = &d
		}
		if r.HistoryID != 0 {
			h := r.HistoryID
			rj.HistoryID = &h
		}
		out.Runs = append(out.Runs, rj)
	}
	return out
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}
