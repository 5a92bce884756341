package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/completion"
	"github.com/askygo/asky/internal/render"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// ShowOptions are the inputs of `session show`.
type ShowOptions struct {
	deps
	Selector string
	JSON     bool
}

// NewCmdShow builds `session show [selector]`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "show [selector]",
		Short: "Print a session transcript",
		Long: heredoc.Doc(`
			Print every turn of a session as markdown (rendered on a terminal).
			Without a selector, the session this shell is bound to.
		`),
		Example: heredoc.Doc(`
			$ asky session show
			$ asky session show trip --json | jq -r '.turns[].answer'
		`),
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completion.Sessions(f),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Selector = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return showRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the session and its turns as JSON")
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	var s *store.Session
	if opts.Selector == "" {
		if s, err = opts.current(ctx, st); err != nil {
			return err
		}
		if s == nil {
			return cmdutil.Errorf("name one (`asky session show NAME`) or bind this shell with `asky session use NAME`", "this shell is not bound to a session")
		}
	} else if s, err = resolve(ctx, st, opts.Selector); err != nil {
		return err
	}
	turns, err := st.SessionTurns(ctx, s.ID, 0)
	if err != nil {
		return err
	}
	if opts.JSON {
		type turnJSON struct {
			ID        int64     `json:"id"`
			CreatedAt time.Time `json:"created_at"`
			Model     string    `json:"model"`
			Query     string    `json:"query"`
			Answer    string    `json:"answer"`
			Status    string    `json:"status"`
		}
		tj := make([]turnJSON, 0, len(turns))
		for _, t := range turns {
			tj = append(tj, turnJSON{t.ID, t.CreatedAt, t.Model, t.Query, t.Answer, t.Status})
		}
		cur, _ := opts.Binding().Get()
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"session": toJSON(s, cur == s.ID), "turns": tj})
	}
	md := Transcript(s, turns)
	if opts.IO.IsStdoutTTY() {
		fmt.Fprint(opts.IO.Out, render.Markdown(md, opts.IO.TerminalWidth(), opts.Style()))
		return nil
	}
	fmt.Fprint(opts.IO.Out, md)
	return nil
}

// Transcript renders a session as markdown: a heading, then each turn's
// question as a quoted heading line and its answer.
func Transcript(s *store.Session, turns []*store.Turn) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Session %s\n\n", sess.Label(s))
	if len(turns) == 0 {
		b.WriteString("_No turns yet._\n")
	}
	for _, t := range turns {
		fmt.Fprintf(&b, "## [%d] %s\n\n", t.ID, oneLine(t.Query))
		if t.Status != store.StatusComplete {
			fmt.Fprintf(&b, "_(%s)_\n\n", t.Status)
		}
		b.WriteString(strings.TrimSpace(t.Answer))
		b.WriteString("\n\n")
	}
	return b.String()
}

func oneLine(s string) string { return sess.Clip(strings.Join(strings.Fields(s), " "), 120) }
