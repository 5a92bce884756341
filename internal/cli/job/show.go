package job

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/usage"
)

// ShowOptions are the flags of `job show`.
type ShowOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	ID    int64
	Limit int
	JSON  bool
}

// NewCmdShow builds `job show`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Show a job and its runs (status, duration, cost)",
		Example: heredoc.Doc(`
			$ asky job show 1
			$ asky history show 42   # the answer of a run (its HISTORY column)
		`),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			if opts.Limit <= 0 {
				return cmdutil.FlagErrorf("--limit must be positive, got %d", opts.Limit)
			}
			opts.ID = id
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return showRun(c.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "show the last `N` runs")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the job with its runs as JSON")
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	j, err := st.GetJob(ctx, opts.ID)
	if err != nil {
		return cmdutil.WithHint(err, "see the ids with `asky job list`")
	}
	runs, err := st.JobRuns(ctx, j.ID, opts.Limit)
	if err != nil {
		return err
	}
	jj := toJSON(j, runs)
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, jj)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "job %d: %s\n", j.ID, render.SanitizeLine(j.Question))
	fmt.Fprintf(w, "schedule: %s\n", describe(j))
	fmt.Fprintf(w, "budget:   %s per run, %s\n", time.Duration(j.MaxSeconds)*time.Second, costLimit(j.MaxCostUSD))
	fmt.Fprintf(w, "session:  %s\n", jj.Session)
	if len(runs) == 0 {
		fmt.Fprintln(w, "no runs yet")
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tTRIGGER\tSTATUS\tDURATION\tCOST\tHISTORY\tNOTE")
	for _, r := range jj.Runs {
		dur, cost, hist := "-", "-", "-"
		if r.DurationMS != nil {
			dur = (time.Duration(*r.DurationMS) * time.Millisecond).Round(100 * time.Millisecond).String()
		}
		if r.CostUSD != nil {
			cost = usage.Money(*r.CostUSD)
		}
		if r.HistoryID != nil {
			hist = fmt.Sprint(*r.HistoryID)
		}
		note := r.Error
		if r.NotifyError != "" {
			if note != "" {
				note += "; "
			}
			note += r.NotifyError
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"), r.Trigger, r.Status, dur, cost, hist, render.Clip(note, 100))
	}
	return tw.Flush()
}

func costLimit(usd float64) string {
	if usd <= 0 {
		return "no cost limit"
	}
	return fmt.Sprintf("at most $%g", usd)
}
