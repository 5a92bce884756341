package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/termlines"
)

// ShowOptions are the flags and dependencies of `history show`.
type ShowOptions struct {
	IO    *iostreams.IOStreams
	Store func() (*store.Store, error)
	Now   func() time.Time
	// Style is the markdown style for a terminal (Factory.MarkdownStyle).
	Style func() string

	Selector []string
	JSON     bool
}

// NewCmdShow builds `history show`; runF replaces the run function in tests.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Store: f.Store, Now: f.Now, Style: f.MarkdownStyle}
	cmd := &cobra.Command{
		Use:   "show <selector>…",
		Short: "Print past answers",
		Long: heredoc.Doc(`
			Print the answers of the selected turns, each under a header with its
			history id, time, model and question. A selector is an id (42), ~N for
			the N-th most recent turn (~1 is the last one), a range (10-15, ~1-~3)
			or a comma list of those (3,7,~2); several arguments form a list.

			On a terminal answers are rendered markdown; piped, they are raw
			markdown with the header as an HTML comment and a blockquote, and
			turns separated by a --- rule. --json prints an array of full turns
			with sources, tool calls, messages and usage.

			Selected ids that do not exist are reported and the exit status is 1;
			the turns that do exist are still printed.
		`),
		Example: heredoc.Doc(`
			$ asky history show ~1
			$ asky history show 42 > answer.md
			$ asky history show ~1-~3
			$ asky history show 3,7 --json | jq '.[].usage'
		`),
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError("e.g. `asky history show ~1`; selectors are "+store.SelectorForms, "which turn? give a history selector")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Selector = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return showRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.ValidArgsFunction = completeTurns(f)
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	res, err := resolveSelector(ctx, st, opts.Selector)
	if err != nil {
		return err
	}
	var missingErr error
	if len(res.Missing) > 0 {
		total, err := st.CountTurns(ctx)
		if err != nil {
			return err
		}
		missingErr = missingError(res.Missing, total)
	}
	turns := make([]*store.Turn, 0, len(res.IDs))
	for _, id := range res.IDs {
		t, err := st.GetTurn(ctx, id)
		if isNotFound(err) {
			continue // deleted by another shell since we resolved it
		}
		if err != nil {
			return err
		}
		turns = append(turns, t)
	}
	if opts.JSON {
		out := make([]showTurn, len(turns))
		for i, t := range turns {
			out[i] = toShowTurn(t)
		}
		if err := cmdutil.WriteJSON(opts.IO.Out, out); err != nil {
			return err
		}
		return missingErr
	}
	var b strings.Builder
	for i, t := range turns {
		if opts.IO.IsStdoutTTY() {
			showTTY(&b, opts, t, i > 0)
		} else {
			showRaw(&b, t, i > 0)
		}
	}
	fmt.Fprint(opts.IO.Out, b.String())
	return missingErr
}

// showTTY writes a styled header, the question and the glamour-rendered
// answer; turns after the first are separated by a rule.
func showTTY(b *strings.Builder, opts *ShowOptions, t *store.Turn, sep bool) {
	sty := styler{on: opts.IO.ColorEnabled()}
	width := opts.IO.TerminalWidth()
	if sep {
		b.WriteString("\n" + sty.dim(strings.Repeat("─", min(width, render.MaxWidth))) + "\n\n")
	}
	parts := []string{sty.cyan(fmt.Sprintf("#%d", t.ID)), sty.dim(relativeTime(t.CreatedAt, opts.Now()) + " · " + t.CreatedAt.Local().Format("2006-01-02 15:04"))}
	if t.Model != "" {
		parts = append(parts, sanitize(t.Model))
	}
	if t.SessionName != "" {
		parts = append(parts, "session "+sanitize(t.SessionName))
	}
	if m := statusMarker(t.Status); m != "" {
		parts = append(parts, sty.status(t.Status))
	}
	b.WriteString(strings.Join(parts, sty.dim(" · ")) + "\n")
	for _, l := range strings.Split(strings.TrimSpace(sanitize(t.Query)), "\n") {
		b.WriteString(sty.bold("> "+l) + "\n")
	}
	if t.Input != "" {
		b.WriteString(sty.dim(fmt.Sprintf("  (sent with %.1f KB of %s; --json shows it)", float64(len(t.Input))/1024, inputKind(t.Input))) + "\n")
	}
	if t.Status == store.StatusError && t.Error != "" {
		b.WriteString(sty.red("error: "+sanitize(oneLine(t.Error))) + "\n")
	}
	if strings.TrimSpace(t.Answer) == "" {
		why := "(no answer was saved)"
		switch t.Status {
		case store.StatusPending:
			why = "(no answer yet: the turn is still running in another asky process)"
		case store.StatusInterrupted:
			why = "(no answer: interrupted before the model answered)"
		}
		b.WriteString(sty.dim(why) + "\n")
		return
	}
	b.WriteString(render.Markdown(t.Answer, width, opts.Style()))
}

// showRaw writes markdown that stays valid markdown: the header is an HTML
// comment (invisible when rendered), the question a blockquote.
func showRaw(b *strings.Builder, t *store.Turn, sep bool) {
	if sep {
		b.WriteString("\n---\n\n")
	}
	head := []string{fmt.Sprintf("asky history %d", t.ID), t.CreatedAt.UTC().Format(time.RFC3339)}
	if t.Model != "" {
		head = append(head, oneLine(t.Model))
	}
	if t.SessionName != "" {
		head = append(head, "session "+oneLine(t.SessionName))
	}
	if t.Status != store.StatusComplete && t.Status != "" {
		head = append(head, t.Status)
	}
	// "--" cannot appear inside an HTML comment.
	b.WriteString("<!-- " + strings.ReplaceAll(strings.Join(head, " · "), "--", "- -") + " -->\n")
	for _, l := range strings.Split(strings.TrimSpace(t.Query), "\n") {
		b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
	}
	if t.Status == store.StatusError && t.Error != "" {
		b.WriteString("\n_error: " + oneLine(t.Error) + "_\n")
	}
	if a := strings.TrimSpace(t.Answer); a != "" {
		b.WriteString("\n" + a + "\n")
	}
}

// showTurn is the --json shape of a full turn.
type showTurn struct {
	ID          int64          `json:"id"`
	CreatedAt   time.Time      `json:"created_at"`
	Model       string         `json:"model"`
	SessionID   *int64         `json:"session_id"`
	SessionName string         `json:"session_name"`
	Query       string         `json:"query"`
	Input       string         `json:"input,omitempty"`
	Answer      string         `json:"answer"`
	Status      string         `json:"status"`
	Error       string         `json:"error,omitempty"`
	ElapsedMS   int64          `json:"elapsed_ms"`
	Sources     []store.Source `json:"sources"`
	ToolCalls   []toolCall     `json:"tool_calls"`
	Usage       usage          `json:"usage"`
	Calls       []llmCall      `json:"calls"`
	Messages    []message      `json:"messages"`
}

type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	OK        bool            `json:"ok"`
}

type usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

type llmCall struct {
	Purpose          string  `json:"purpose"`
	Model            string  `json:"model"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	LatencyMS        int64   `json:"latency_ms"`
}

type message struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
}

func toShowTurn(t *store.Turn) showTurn {
	out := showTurn{ID: t.ID, CreatedAt: t.CreatedAt, Model: t.Model, SessionID: sessionID(t.SessionID), SessionName: t.SessionName,
		Query: t.Query, Input: t.Input, Answer: t.Answer, Status: t.Status, Error: t.Error, ElapsedMS: t.ElapsedMS,
		Sources: t.Sources, ToolCalls: []toolCall{}, Calls: []llmCall{}, Messages: []message{}}
	if out.Sources == nil {
		out.Sources = []store.Source{}
	}
	for _, c := range t.Calls {
		out.Calls = append(out.Calls, llmCall(c))
		out.Usage.PromptTokens += c.PromptTokens
		out.Usage.CompletionTokens += c.CompletionTokens
		out.Usage.CostUSD += c.CostUSD
	}
	// Tool results say whether the call worked: the engine writes failures
	// as "Error: …" inside the framed result.
	okByID := map[string]bool{}
	for _, m := range t.Messages {
		if m.Role == "tool" {
			okByID[m.ToolCallID] = !strings.HasPrefix(toolBody(m.Content), "Error: ")
		}
	}
	for _, m := range t.Messages {
		msg := message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		if m.ToolCalls != "" && json.Valid([]byte(m.ToolCalls)) {
			msg.ToolCalls = json.RawMessage(m.ToolCalls)
			var calls []struct{ ID, Name, Arguments string }
			if json.Unmarshal([]byte(m.ToolCalls), &calls) == nil {
				for _, c := range calls {
					out.ToolCalls = append(out.ToolCalls, toolCall{Name: c.Name, Arguments: rawOrString(c.Arguments), OK: okByID[c.ID]})
				}
			}
		}
		out.Messages = append(out.Messages, msg)
	}
	return out
}

// toolBody drops the first line of a framed tool result (<tool_result …>).
func toolBody(s string) string {
	if strings.HasPrefix(s, "<tool_result") {
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			return rest
		}
	}
	return s
}

func rawOrString(s string) json.RawMessage {
	if s != "" && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// inputKind names what was sent beside the question: piped input,
// terminal lines (-tl) or both.
func inputKind(input string) string {
	switch piped, term := termlines.Sources(input); {
	case piped && term:
		return "piped input and terminal lines"
	case term:
		return "terminal lines"
	}
	return "piped input"
}
