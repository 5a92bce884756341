package history

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// defaultListLimit is how many turns `history list` shows without N.
const defaultListLimit = 10

// ListOptions are the flags and dependencies of `history list`.
type ListOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	Now   func() time.Time

	Limit int
	JSON  bool
}

// NewCmdList builds `history list`; runF replaces the run function in tests.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Store: f.Store, Now: f.Now, Limit: defaultListLimit}
	cmd := &cobra.Command{
		Use:   "list [N]",
		Short: "List recent turns",
		Long: heredoc.Doc(`
			List the N most recent turns (default 10; N or -n/--limit N), newest
			first: history id, when, model, session and the question. Turns that
			were interrupted or failed are marked.

			On a terminal the columns are aligned and the question is cut to the
			terminal width; piped, each turn is one tab-separated line
			(id, time, model, session, status, question); --json prints an array
			of {id, created_at, model, session_id, session_name, query,
			answer_preview, status}.
		`),
		Example: heredoc.Doc(`
			$ asky history list
			$ asky history list 50
			$ asky history list -n 50
			$ asky history list 100 | cut -f1,6
			$ asky history list --json | jq -r '.[].query'
		`),
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.UsageError("e.g. `asky history list 20`", "history list takes one count, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			flagSet := c.Flags().Changed("limit")
			if flagSet && opts.Limit < 1 {
				return cmdutil.UsageError("give a positive number of turns, e.g. `asky history list -n 20`", "invalid --limit %d", opts.Limit)
			}
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 1 {
					return cmdutil.UsageError("give a positive number of turns, e.g. `asky history list 20`", "invalid count %q", args[0])
				}
				if flagSet && n != opts.Limit {
					return cmdutil.UsageError("give the count once: `asky history list 20` or `asky history list -n 20`", "count %d and --limit %d disagree", n, opts.Limit)
				}
				opts.Limit = n
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", defaultListLimit, "show the `N` most recent turns (same as the positional N)")
	return cmd
}

// listEntry is the --json shape of one listed turn.
type listEntry struct {
	ID            int64     `json:"id"`
	CreatedAt     time.Time `json:"created_at"`
	Model         string    `json:"model"`
	SessionID     *int64    `json:"session_id"` // null outside a session, as in query --json
	SessionName   string    `json:"session_name"`
	Query         string    `json:"query"`
	AnswerPreview string    `json:"answer_preview"`
	Status        string    `json:"status"`
}

// answerPreviewChars bounds answer_preview in --json.
const answerPreviewChars = 200

func listRun(ctx context.Context, opts *ListOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	entries, err := st.ListHistory(ctx, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]listEntry, len(entries))
		for i, e := range entries {
			out[i] = listEntry{ID: e.ID, CreatedAt: e.CreatedAt, Model: e.Model, SessionID: sessionID(e.SessionID), SessionName: e.SessionName,
				Query: e.Query, AnswerPreview: preview(e.AnswerPreview, answerPreviewChars), Status: e.Status}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	if len(entries) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no history yet; ask something: asky \"your question\"")
		return nil
	}
	if !opts.IO.IsStdoutTTY() {
		return listTSV(opts, entries)
	}
	listTable(opts, entries)
	return nil
}

// preview cuts an answer to about n characters on a rune boundary, in
// one line.
func preview(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func listTSV(opts *ListOptions, entries []store.HistoryEntry) error {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.CreatedAt.UTC().Format(time.RFC3339),
			oneLine(e.Model), oneLine(e.SessionName), e.Status, oneLine(e.Query))
	}
	_, err := fmt.Fprint(opts.IO.Out, b.String())
	return err
}

// listTable prints aligned columns; the question takes what is left of the
// terminal width. Widths are measured in terminal cells, so CJK session
// names do not break the alignment.
func listTable(opts *ListOptions, entries []store.HistoryEntry) {
	sty := styler{on: opts.IO.ColorEnabled()}
	now := opts.Now()
	type row struct{ id, when, model, session, status, query string }
	rows := make([]row, len(entries))
	headers := row{id: "ID", when: "WHEN", model: "MODEL", session: "SESSION", query: "QUESTION"}
	wID, wWhen, wModel, wSession := len(headers.id), len(headers.when), len(headers.model), 0
	for i, e := range entries {
		r := row{
			id:      strconv.FormatInt(e.ID, 10),
			when:    relativeTime(e.CreatedAt, now),
			model:   truncate(sanitize(oneLine(e.Model)), 24),
			session: truncate(sanitize(oneLine(e.SessionName)), 20),
			status:  e.Status,
			query:   sanitize(oneLine(e.Query)),
		}
		rows[i] = r
		wID = max(wID, len(r.id))
		wWhen = max(wWhen, ansi.StringWidth(r.when))
		wModel = max(wModel, ansi.StringWidth(r.model))
		if r.session != "" {
			wSession = max(wSession, ansi.StringWidth(r.session), len(headers.session))
		}
	}
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s))) }
	used := wID + 2 + wWhen + 2 + wModel + 2
	if wSession > 0 {
		used += wSession + 2
	}
	qWidth := max(opts.IO.TerminalWidth()-used, 10)

	var b strings.Builder
	line := func(r row, header bool) {
		id := strings.Repeat(" ", wID-len(r.id)) + r.id
		cols := []string{sty.cyan(id), sty.dim(pad(r.when, wWhen)), pad(r.model, wModel)}
		if wSession > 0 {
			cols = append(cols, pad(r.session, wSession))
		}
		q := r.query
		if m := statusMarker(r.status); m != "" {
			q = sty.status(r.status) + " " + truncate(q, qWidth-len(m)-1)
		} else {
			q = truncate(q, qWidth)
		}
		if header {
			cols = []string{pad(r.id, wID), pad(r.when, wWhen), pad(r.model, wModel)}
			if wSession > 0 {
				cols = append(cols, pad(r.session, wSession))
			}
			b.WriteString(sty.bold(strings.Join(append(cols, r.query), "  ")) + "\n")
			return
		}
		b.WriteString(strings.Join(append(cols, q), "  ") + "\n")
	}
	line(headers, true)
	for _, r := range rows {
		line(r, false)
	}
	fmt.Fprint(opts.IO.Out, b.String())
}

// sessionID is a turn's session id for --json: null when the turn is not
// in a session (as query --json and memory list --json say it), never 0,
// which jq would take for true.
func sessionID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
