// Package usagecmd is `asky usage`: tokens and cost of every recorded
// model call, summed by model, day, session or purpose.
package usagecmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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

// Options are the flags of `asky usage`.
type Options struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	Now   func() time.Time

	Since string
	By    string
	JSON  bool
}

// NewCmdUsage builds `asky usage`.
func NewCmdUsage(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Store: f.Store, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show tokens and cost of model calls",
		Long: heredoc.Doc(`
			Show the tokens and cost of every model call asky made: answers,
			summaries, compaction, evidence extraction and provider embeddings,
			from the CLI and the daemon alike.

			Cost comes from the model's prices in config (price_in, price_out,
			price_cache_read, price_cache_write: USD per million tokens). A model
			without prices is counted in tokens only; its calls show under
			UNPRICED and never get a guessed cost. Set prices with
			asky config model edit ALIAS --price-in N --price-out N.

			--by day adds a bar column so the trend shows at a glance.
		`),
		Example: heredoc.Doc(`
			$ asky usage
			$ asky usage --since today --by purpose
			$ asky usage --since 30d --by day
			$ asky usage --since 2026-11-01 --by session --json | jq .total.cost_usd
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if !slices.Contains(usage.Groupings, opts.By) {
				return cmdutil.FlagErrorf("--by must be one of %s, got %q", strings.Join(usage.Groupings, ", "), opts.By)
			}
			if _, err := usage.ParseSince(opts.Since, time.Now()); err != nil {
				return cmdutil.FlagErrorf("%s", err)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return run(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Since, "since", "30d", "from `when`: today, yesterday, all, Nh, Nd, Nw or a date (2026-11-01)")
	cmd.Flags().StringVar(&opts.By, "by", "model", "group by `model`, day, session or purpose")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {since, by, rows:[{key, calls, prompt_tokens, …, cost_usd, unpriced_calls}], total}")
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	since, err := usage.ParseSince(opts.Since, opts.Now())
	if err != nil {
		return cmdutil.FlagErrorf("%s", err)
	}
	st, err := opts.Store()
	if err != nil {
		return err
	}
	events, err := st.UsageSince(ctx, since)
	if err != nil {
		return err
	}
	rep := usage.Summarize(events, opts.By, since)
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	if len(rep.Rows) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no model calls recorded in this period; ask something, or widen it with --since all")
		return nil
	}
	// Say the period the totals cover: the default is the last 30 days.
	if rep.Since == nil {
		fmt.Fprintln(opts.IO.Out, "Model calls, all recorded:")
	} else {
		fmt.Fprintf(opts.IO.Out, "Model calls since %s (--since %s):\n", rep.Since.Local().Format("2006-01-02 15:04"), opts.Since)
	}
	return printReport(opts.IO.Out, rep)
}

// barWidth is the length of the longest bar of the by-day view.
const barWidth = 24

func printReport(w io.Writer, rep usage.Report) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{strings.ToUpper(rep.By), "CALLS", "PROMPT", "COMPLETION", "CACHE READ", "CACHE WRITE", "COST", "UNPRICED", ""}
	bar := rep.By == "day"
	if !bar {
		header = header[:len(header)-1]
	}
	// A bar scales with cost when anything was priced, else with tokens.
	measure := func(t usage.Totals) float64 {
		if rep.Total.CostUSD > 0 {
			return t.CostUSD
		}
		return float64(t.PromptTokens + t.CompletionTokens)
	}
	for i := range rep.Rows {
		// Session names may come from a chat or carry terminal escapes.
		rep.Rows[i].Key = render.SanitizeLine(rep.Rows[i].Key)
	}
	top, keyW := 0.0, max(len(header[0]), len(rep.Total.Key))
	for _, r := range rep.Rows {
		top = max(top, measure(r))
		keyW = max(keyW, len([]rune(r.Key)))
	}
	// The tabwriter right-aligns every cell (numbers); the key and bar
	// columns are padded by hand so they read left-aligned.
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(0, w-len([]rune(s)))) }
	header[0] = pad(header[0], keyW)
	line := func(t usage.Totals, withBar bool) {
		cells := []string{pad(t.Key, keyW), strconv.Itoa(t.Calls), count(t.PromptTokens), count(t.CompletionTokens),
			count(t.CacheReadTokens), count(t.CacheWriteTokens), cost(t), strconv.Itoa(t.UnpricedCalls)}
		if bar {
			b := ""
			if withBar && top > 0 {
				b = strings.Repeat("█", int(measure(t)/top*barWidth+0.5))
			}
			cells = append(cells, pad(b, barWidth))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, r := range rep.Rows {
		line(r, true)
	}
	line(rep.Total, false)
	if err := tw.Flush(); err != nil {
		return err
	}
	// Right alignment pads the first column too; drop that margin and the
	// padding after the last cell.
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if l = strings.TrimRight(strings.TrimPrefix(l, "  "), " \n"); l != "" {
			fmt.Fprintln(w, l)
		}
	}
	if rep.Total.UnpricedCalls > 0 {
		fmt.Fprintf(w, "%d call(s) used models without prices: their tokens count, their cost is not included.\n", rep.Total.UnpricedCalls)
	}
	return nil
}

func cost(t usage.Totals) string {
	if t.UnpricedCalls == t.Calls {
		return "-"
	}
	return usage.Money(t.CostUSD)
}

// count prints a token count with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
