package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
)

// resolveSelector parses the selector arguments (several arguments are a
// list, like "3 7 9") and resolves them. Parse errors are usage errors that
// name every accepted form; items that match nothing come back in Missing
// so each verb decides how strict to be.
func resolveSelector(ctx context.Context, st *store.Store, args []string) (store.Resolution, error) {
	sel, err := store.ParseHistorySelector(strings.Join(args, ","))
	if err != nil {
		hint := "use " + store.SelectorForms + "; see ids with `asky history list`"
		for _, a := range args {
			if strings.HasPrefix(a, "/") {
				// bash turns ~0 (and ~N with a directory stack) into a path.
				hint = "your shell expanded ~N into a directory; quote it: asky history show '~1'"
			}
		}
		return store.Resolution{}, cmdutil.UsageError(hint, "%s", err)
	}
	return st.ResolveHistory(ctx, sel)
}

// missingError reports selector items that matched no turn.
func missingError(missing []store.SelectorItem, total int64) error {
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = m.String()
	}
	what := "no turn matches " + strings.Join(names, ", ")
	hint := "see the ids with `asky history list`"
	if total == 0 {
		hint = "the history is empty; ask something first: asky \"your question\""
	}
	return cmdutil.Errorf(hint, "%s", what)
}

// oneLine collapses whitespace (newlines, tabs) so a question fits a row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate cuts s to width terminal cells, with an ellipsis; wide
// characters are measured as the terminal draws them.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// relativeTime renders t for a person: "just now", "5m ago", "3h ago",
// "2d ago", then the date.
func relativeTime(t, now time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	case t.Year() == now.Year():
		return t.Local().Format("Jan _2")
	}
	return t.Local().Format("2006-01-02")
}

// styler applies ANSI styles only when color is enabled, so pipes and
// NO_COLOR get plain text.
type styler struct{ on bool }

func (s styler) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s styler) dim(t string) string    { return s.wrap("2", t) }
func (s styler) bold(t string) string   { return s.wrap("1", t) }
func (s styler) red(t string) string    { return s.wrap("31", t) }
func (s styler) yellow(t string) string { return s.wrap("33", t) }
func (s styler) cyan(t string) string   { return s.wrap("36", t) }

// statusMarker labels turns that did not complete normally.
func statusMarker(status string) string {
	switch status {
	case store.StatusInterrupted:
		return "[interrupted]"
	case store.StatusError:
		return "[error]"
	case store.StatusPending:
		return "[no answer]"
	}
	return ""
}

func (s styler) status(status string) string {
	m := statusMarker(status)
	if status == store.StatusError {
		return s.red(m)
	}
	return s.yellow(m)
}

// sanitize strips terminal control sequences from stored text before it
// reaches a terminal.
func sanitize(s string) string { return render.Sanitize(s) }

// isNotFound reports a turn deleted between resolving and loading it.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// completeTurns offers the most recent history ids, described by their
// question, for shell completion of selectors. It never creates the
// database: completing on a fresh system offers nothing.
func completeTurns(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if _, err := os.Stat(cfg.Paths.DB); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := f.Store()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		entries, err := st.ListHistory(c.Context(), 20)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(entries))
		for _, e := range entries {
			out = append(out, cobra.CompletionWithDesc(strconv.FormatInt(e.ID, 10), truncate(sanitize(oneLine(e.Query)), 60)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
