package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/MakeNowJust/heredoc"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/clipboard"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/termbg"
	"github.com/askygo/asky/internal/tui"
)

// BrowseOptions are the inputs of `history browse`.
type BrowseOptions struct {
	IO      *iostreams.IOStreams
	Store   func() (*store.Store, error)
	Getenv  func(string) string
	Getppid func() int
	// Style is the markdown style for answers (Factory.MarkdownStyle).
	Style func() string
}

// NewCmdBrowse builds `history browse`.
func NewCmdBrowse(f *cmdutil.Factory, runF func(context.Context, *BrowseOptions) error) *cobra.Command {
	opts := &BrowseOptions{IO: f.IO, Store: f.Store, Getenv: f.Getenv, Getppid: f.Getppid, Style: f.MarkdownStyle}
	return &cobra.Command{
		Use:   "browse",
		Short: "Browse history in a terminal UI",
		Long: heredoc.Doc(`
			Open a full-screen browser over sessions and one-shot turns, newest
			first, with a rendered preview of the selected answer.

			Keys: enter open · / filter titles as you type (enter keeps the
			filter, tab searches the full text instead) · s full-text search of
			questions and answers · r resume (this shell continues the session) ·
			c copy the answer · y copy its last code block · d delete (asks
			first) · q or esc back/quit. Interrupted turns are marked
			[interrupted] (a session: when its latest turn was).
		`),
		Example: heredoc.Doc(`
			$ asky history browse
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return browseRun(c.Context(), opts)
		},
	}
}

func browseRun(ctx context.Context, opts *BrowseOptions) error {
	if !opts.IO.IsStdoutTTY() || !opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("use `asky history list` or `asky history search TEXT` in scripts", "history browse needs an interactive terminal")
	}
	st, err := opts.Store()
	if err != nil {
		return err
	}
	src := &storeSource{st: st, getenv: opts.Getenv, binding: sess.NewBinding(opts.Getenv, opts.Getppid()), style: opts.Style}
	if opts.IO.IsStderrTTY() {
		src.term = os.Stderr
	}
	m := tui.New(ctx, src)
	// Both ask the terminal, so both run before bubbletea owns its input.
	opts.Style()
	termbg.Detect()
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(opts.IO.In), tea.WithOutput(opts.IO.Out))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	if m.Exit != "" {
		fmt.Fprintln(opts.IO.ErrOut, m.Exit)
	}
	return ctx.Err()
}

// browseMaxTurns is how many of a session's latest turns the browser shows.
const browseMaxTurns = 30

// storeSource adapts the store (and the shell binding, clipboard and
// renderer) to the browser.
type storeSource struct {
	st      *store.Store
	cur     store.BrowseCursor
	getenv  func(string) string
	binding *sess.Binding
	term    *os.File
	style   func() string
}

func (s *storeSource) Next(ctx context.Context, limit int) ([]tui.Item, bool, error) {
	page, err := s.st.BrowsePage(ctx, &s.cur, limit)
	if err != nil {
		return nil, false, err
	}
	items := make([]tui.Item, len(page))
	for i, e := range page {
		items[i] = tui.Item{SessionID: e.SessionID, TurnID: e.TurnID, Title: e.Title, When: e.When, Turns: e.Turns, Status: e.Status}
	}
	return items, s.cur.Done(), nil
}

func (s *storeSource) Search(ctx context.Context, text string, limit int) ([]tui.Item, error) {
	hits, err := s.st.SearchTurns(ctx, text, limit)
	if err != nil {
		return nil, err
	}
	items := make([]tui.Item, len(hits))
	for i, h := range hits {
		t := h.Turn
		title := t.Query
		if t.SessionName != "" {
			title = "[" + t.SessionName + "] " + title
		}
		items[i] = tui.Item{SessionID: t.SessionID, TurnID: t.ID, Title: title, When: t.CreatedAt, Turns: 1, Snippet: h.Snippet, Status: t.Status}
	}
	return items, nil
}

func (s *storeSource) Document(ctx context.Context, it tui.Item) (string, error) {
	if it.IsSession() {
		ss, err := s.st.GetSession(ctx, it.SessionID)
		if err != nil {
			return "", err
		}
		turns, err := s.st.SessionTurns(ctx, it.SessionID, 0)
		if err != nil {
			return "", err
		}
		// Rendering thousands of turns would stall the preview; the full
		// transcript is one command away.
		note := ""
		if len(turns) > browseMaxTurns {
			note = fmt.Sprintf("_%d earlier turns not shown; see `asky session show S%d`._\n\n", len(turns)-browseMaxTurns, ss.ID)
			turns = turns[len(turns)-browseMaxTurns:]
		}
		md := clisession.Transcript(ss, turns)
		if note != "" {
			if i := strings.Index(md, "\n\n"); i >= 0 {
				md = md[:i+2] + note + md[i+2:]
			}
		}
		return md, nil
	}
	t, err := s.st.GetTurn(ctx, it.TurnID)
	if err != nil {
		return "", err
	}
	head := fmt.Sprintf("# %s\n\n", strings.Join(strings.Fields(t.Query), " "))
	meta := fmt.Sprintf("_history %d · %s", t.ID, t.CreatedAt.Local().Format("2006-01-02 15:04"))
	if t.SessionName != "" {
		meta += " · session " + t.SessionName
	}
	if t.Model != "" {
		meta += " · " + t.Model
	}
	if t.Status != "" && t.Status != store.StatusComplete {
		meta += " · " + t.Status
	}
	return head + meta + "_\n\n" + t.Answer, nil
}

func (s *storeSource) Answer(ctx context.Context, it tui.Item) (string, error) {
	if it.IsSession() {
		turns, err := s.st.SessionTurns(ctx, it.SessionID, 0)
		if err != nil {
			return "", err
		}
		if len(turns) == 0 {
			return "", errors.New("the session has no answers yet")
		}
		return turns[len(turns)-1].Answer, nil
	}
	t, err := s.st.GetTurn(ctx, it.TurnID)
	if err != nil {
		return "", err
	}
	return t.Answer, nil
}

func (s *storeSource) Delete(ctx context.Context, it tui.Item) error {
	if it.IsSession() {
		_, err := s.st.DeleteSessions(ctx, []int64{it.SessionID})
		if cur, _ := s.binding.Get(); err == nil && cur == it.SessionID {
			_ = s.binding.Clear()
		}
		return err
	}
	n, err := s.st.DeleteTurns(ctx, []int64{it.TurnID})
	if err == nil && n == 0 {
		err = fmt.Errorf("history %d no longer exists", it.TurnID)
	}
	return err
}

func (s *storeSource) Resume(ctx context.Context, it tui.Item) (string, error) {
	var target *store.Session
	var converted int64
	var err error
	if it.IsSession() || it.SessionID != 0 {
		target, err = s.st.GetSession(ctx, it.SessionID)
	} else {
		target, converted, err = clisession.FromMessage(ctx, s.st, fmt.Sprint(it.TurnID))
	}
	if err != nil {
		return "", err
	}
	if err := s.binding.Set(target.ID); err != nil {
		return "", err
	}
	if converted != 0 {
		return fmt.Sprintf("Converted history %d to session %s; this shell now continues it.", converted, sess.Label(target)), nil
	}
	return fmt.Sprintf("This shell now continues session %s.", sess.Label(target)), nil
}

func (s *storeSource) Copy(ctx context.Context, text string) (string, error) {
	env := clipboard.Env{Getenv: s.getenv}
	if s.term != nil {
		env.Terminal = s.term
	}
	return clipboard.Copy(ctx, env, text)
}

func (s *storeSource) Render(md string, width int) (string, error) {
	return render.Markdown(md, width, s.style()), nil
}
