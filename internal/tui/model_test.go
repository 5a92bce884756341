package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
)

func TestMain(m *testing.M) {
	// Golden screens are plain text.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// fakeSource is an in-memory history: sessions and turns, newest first.
type fakeSource struct {
	mu       sync.Mutex
	all      []Item
	pos      int
	nextArgs []int
	deleted  []string
	copied   []string
	resumed  []string
	answers  map[string]string
}

func newFake(n int) *fakeSource {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := &fakeSource{answers: map[string]string{}}
	f.all = append(f.all, Item{SessionID: 1, Title: "lisbon-trip", When: base, Turns: 3})
	topics := []string{"tcp vs udp", "go generics", "sourdough starter", "rust lifetimes"}
	for i := 0; i < n; i++ {
		it := Item{TurnID: int64(n - i), Title: fmt.Sprintf("question %d about %s", n-i, topics[(n-i)%4]), When: base.Add(-time.Duration(i+1) * time.Hour), Turns: 1}
		if i == 1 {
			it.Status = "interrupted"
		}
		f.all = append(f.all, it)
		f.answers[it.Key()] = fmt.Sprintf("Answer %d.\n\n```sh\necho %d\n```\n", n-i, n-i)
	}
	f.answers["s1"] = "Go in May.\n\n```\nfirst\n```\n\ntext\n\n```py\nprint('last')\n```"
	return f
}

func (f *fakeSource) Next(_ context.Context, limit int) ([]Item, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextArgs = append(f.nextArgs, limit)
	end := min(len(f.all), f.pos+limit)
	page := append([]Item(nil), f.all[f.pos:end]...)
	f.pos = end
	return page, f.pos >= len(f.all), nil
}

func (f *fakeSource) Search(_ context.Context, text string, limit int) ([]Item, error) {
	var out []Item
	for _, it := range f.all {
		if !it.IsSession() && strings.Contains(it.Title, text) {
			it.Snippet = "… «" + text + "» …"
			out = append(out, it)
		}
	}
	return out, nil
}

func (f *fakeSource) Document(_ context.Context, it Item) (string, error) {
	return "# " + it.Title + "\n\n" + f.answers[it.Key()], nil
}

func (f *fakeSource) Answer(_ context.Context, it Item) (string, error) {
	if a, ok := f.answers[it.Key()]; ok {
		return a, nil
	}
	return "", errors.New("no answer")
}

func (f *fakeSource) Delete(_ context.Context, it Item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, it.Key())
	return nil
}

func (f *fakeSource) Resume(_ context.Context, it Item) (string, error) {
	f.resumed = append(f.resumed, it.Key())
	return "This shell now continues session " + it.Title + ".", nil
}

func (f *fakeSource) Copy(_ context.Context, text string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.copied = append(f.copied, text)
	return "OSC 52", nil
}

// Render keeps markdown as is so goldens do not depend on glamour themes.
func (f *fakeSource) Render(md string, width int) (string, error) {
	var lines []string
	for _, l := range strings.Split(md, "\n") {
		lines = append(lines, "  "+l)
	}
	return strings.Join(lines, "\n"), nil
}

func start(t *testing.T, src Source, w, h int) (*teatest.TestModel, *Model) {
	t.Helper()
	m := New(context.Background(), src)
	m.Loc = time.UTC
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	waitFor(t, tm, "Go in May")
	return tm, m
}

func waitFor(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) }, teatest.WithDuration(3*time.Second))
}

func typeText(tm *teatest.TestModel, s string) {
	for _, r := range s {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func key(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// screen quits and returns the final view.
func screen(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(3*time.Second)).View()
}

func TestGoldenFirstScreen80x24(t *testing.T) {
	tm, _ := start(t, newFake(40), 80, 24)
	tm.Send(key("down"))
	waitFor(t, tm, "Answer 40")
	out := screen(t, tm)
	if !strings.Contains(out, "#39     [interrupted] quest") {
		t.Errorf("interrupted turn not marked:\n%s", out)
	}
	golden.RequireEqual(t, []byte(out))
}

func TestGoldenNarrowListOnly(t *testing.T) {
	tm, _ := start(t, newFake(40), 80, 24)
	tm.Send(tea.WindowSizeMsg{Width: 60, Height: 12})
	time.Sleep(100 * time.Millisecond)
	out := screen(t, tm)
	if strings.Contains(out, "│") {
		t.Errorf("preview pane shown at 60 columns")
	}
	for _, l := range strings.Split(out, "\n") {
		if w := lipgloss.Width(l); w > 60 {
			t.Errorf("line wider than the terminal (%d): %q", w, l)
		}
	}
	golden.RequireEqual(t, []byte(out))
}

func TestGoldenFilterAndSearch(t *testing.T) {
	t.Run("filter", func(t *testing.T) {
		// `/` is the live filter, as in less-style pagers and bubbles.
		tm, _ := start(t, newFake(40), 80, 24)
		tm.Send(key("/"))
		typeText(tm, "gnrcs")
		waitFor(t, tm, "· filter: ")
		golden.RequireEqual(t, []byte(screen(t, tm)))
	})
	t.Run("search", func(t *testing.T) {
		// `s` searches the full text of questions and answers.
		tm, _ := start(t, newFake(40), 80, 24)
		tm.Send(key("s"))
		typeText(tm, "sourdough")
		tm.Send(key("enter"))
		waitFor(t, tm, "matches for")
		golden.RequireEqual(t, []byte(screen(t, tm)))
	})
}

func TestFilterThenFullTextSearch(t *testing.T) {
	// tab turns the filter text into a full-text search; one hit reads
	// "1 match".
	tm, _ := start(t, newFake(40), 80, 24)
	tm.Send(key("/"))
	waitFor(t, tm, "tab search all text")
	typeText(tm, "question 38 about")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	waitFor(t, tm, `1 match for "question 38 about"`)
	out := screen(t, tm)
	if strings.Contains(out, "1 matches") {
		t.Errorf("plural for one match:\n%s", out)
	}

	// enter on a filter that matches no title searches the full text.
	tm, _ = start(t, newFake(40), 80, 24)
	tm.Send(key("/"))
	typeText(tm, "zzzz")
	waitFor(t, tm, "No title matches; enter: search")
	tm.Send(key("enter"))
	waitFor(t, tm, `0 matches for "zzzz"`)
	screen(t, tm)
}

func TestGoldenPagerAndBack(t *testing.T) {
	tm, m := start(t, newFake(40), 80, 24)
	tm.Send(key("enter"))
	waitFor(t, tm, "scroll")
	tm.Send(key("q"))
	time.Sleep(100 * time.Millisecond)
	tm.Send(key("enter"))
	time.Sleep(100 * time.Millisecond)
	out := screen(t, tm)
	if m.mode != modePager {
		t.Fatalf("q in the pager should go back to the list, enter open again")
	}
	golden.RequireEqual(t, []byte(out))
}

func TestDeleteAsksFirst(t *testing.T) {
	src := newFake(5)
	tm, m := start(t, src, 80, 24)
	tm.Send(key("d"))
	waitFor(t, tm, "and its 3 turns? y/N")
	tm.Send(key("n"))
	waitFor(t, tm, "nothing deleted")
	tm.Send(key("d"))
	tm.Send(key("y"))
	waitFor(t, tm, "deleted session 1")
	out := screen(t, tm)
	if len(src.deleted) != 1 || src.deleted[0] != "s1" || strings.Contains(out, "S1·") || len(m.items) != 5 {
		t.Fatalf("deleted %v, items %d\n%s", src.deleted, len(m.items), out)
	}
}

func TestCopyAnswerAndCode(t *testing.T) {
	src := newFake(3)
	tm, _ := start(t, src, 80, 24)
	tm.Send(key("c"))
	waitFor(t, tm, "copied the answer")
	tm.Send(key("y"))
	waitFor(t, tm, "copied the code block")
	screen(t, tm)
	if len(src.copied) != 2 || !strings.HasPrefix(src.copied[0], "Go in May.") || src.copied[1] != "print('last')" {
		t.Fatalf("copied %q", src.copied)
	}
}

func TestResumeQuitsWithMessage(t *testing.T) {
	src := newFake(3)
	m := New(context.Background(), src)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	waitFor(t, tm, "Go in May")
	tm.Send(key("r"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(3*time.Second))
	if m.Exit != "This shell now continues session lisbon-trip." || len(src.resumed) != 1 {
		t.Fatalf("exit %q resumed %v", m.Exit, src.resumed)
	}
}

func TestCtrlCQuits(t *testing.T) {
	tm, _ := start(t, newFake(3), 80, 24)
	tm.Send(key("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(3*time.Second))
}

func TestLazyPaging(t *testing.T) {
	src := newFake(1000)
	tm, m := start(t, src, 80, 24)
	if len(src.nextArgs) != 1 || src.nextArgs[0] != firstPage {
		t.Fatalf("first load %v", src.nextArgs)
	}
	tm.Send(key("end"))
	waitFor(t, tm, "600+ entries")
	screen(t, tm)
	if len(m.items) != firstPage+nextPage {
		t.Fatalf("loaded %d", len(m.items))
	}
}

func TestFuzzyAndCodeBlock(t *testing.T) {
	items := []Item{{TurnID: 1, Title: "go generics"}, {TurnID: 2, Title: "great expectations on networking"}, {TurnID: 3, Title: "nothing"}}
	got := Fuzzy(items, "gen")
	if len(got) != 2 || got[0].TurnID != 1 {
		t.Fatalf("fuzzy %+v", got)
	}
	if LastCodeBlock("a\n```go\nx := 1\n```\nb\n~~~\ny\n~~~\n") != "y" || LastCodeBlock("none") != "" {
		t.Fatal("code block")
	}
}
