package tui

// Layout and drawing: list and preview panes, header, status and help
// lines. Styles are package-level values that are never changed.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Layout: a header line, the body, a status/input line and the help bar.
func (m *Model) listHeight() int { return max(1, m.height-3) }

func (m *Model) showPreview() bool { return m.width >= 70 }

func (m *Model) listWidth() int {
	if !m.showPreview() {
		return m.width
	}
	return max(30, m.width*9/20)
}

func (m *Model) layout() {
	pw := m.width - m.listWidth() - 1
	m.preview = viewport.New(max(1, pw), m.listHeight())
	m.pager = viewport.New(max(1, m.width), m.listHeight())
	m.clampOffset()
	m.syncViewports()
}

func (m *Model) syncViewports() {
	it, ok := m.selected()
	if !ok {
		m.preview.SetContent("")
		return
	}
	if doc, ok := m.docs[docKey(it, m.preview.Width)]; ok {
		m.preview.SetContent(doc)
	} else {
		m.preview.SetContent(faint.Render("loading…"))
	}
	if doc, ok := m.docs[docKey(it, m.pager.Width)]; ok {
		m.pager.SetContent(doc)
	} else {
		m.pager.SetContent(faint.Render("loading…"))
	}
}

var (
	faint    = lipgloss.NewStyle().Faint(true)
	bold     = lipgloss.NewStyle().Bold(true)
	selStyle = lipgloss.NewStyle().Reverse(true)
	sepStyle = lipgloss.NewStyle().Faint(true)
)

// View draws the screen.
func (m *Model) View() string {
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	h := m.listHeight()
	if m.mode == modePager {
		b.WriteString(m.pager.View())
	} else {
		list := m.listLines(h)
		if m.showPreview() {
			prev := strings.Split(m.preview.View(), "\n")
			lw := m.listWidth()
			for i := 0; i < h; i++ {
				l := ""
				if i < len(list) {
					l = list[i]
				}
				p := ""
				if i < len(prev) {
					p = prev[i]
				}
				b.WriteString(pad(l, lw))
				b.WriteString(sepStyle.Render("│"))
				b.WriteString(ansi.Truncate(p, m.width-lw-1, ""))
				if i < h-1 {
					b.WriteByte('\n')
				}
			}
		} else {
			for i := 0; i < h; i++ {
				if i < len(list) {
					b.WriteString(list[i])
				}
				if i < h-1 {
					b.WriteByte('\n')
				}
			}
		}
	}
	b.WriteByte('\n')
	b.WriteString(ansi.Truncate(m.statusLine(), m.width, "…"))
	b.WriteByte('\n')
	b.WriteString(ansi.Truncate(m.helpLine(), m.width, "…"))
	return b.String()
}

func (m *Model) header() string {
	title := bold.Render("asky history")
	var info string
	switch {
	case m.results != nil:
		info = fmt.Sprintf("search %q: %s", m.resultQuery, plural(len(m.results), "match", "matches"))
	case m.loading && len(m.items) == 0:
		info = "loading…"
	case m.done && len(m.items) == 1:
		info = "1 entry"
	case m.done:
		info = fmt.Sprintf("%d entries", len(m.items))
	default:
		info = fmt.Sprintf("%d+ entries", len(m.items))
	}
	if m.filter.Value() != "" {
		info += " · filter: " + plural(len(m.visible), "match", "matches")
	}
	return ansi.Truncate(title+"  "+faint.Render(info), m.width, "…")
}

func (m *Model) listLines(h int) []string {
	if m.err != nil {
		return []string{"error: " + m.err.Error()}
	}
	if len(m.visible) == 0 {
		switch {
		case m.loading:
			return []string{faint.Render("loading…")}
		case m.results != nil:
			return []string{"No matches. esc: back"}
		case m.filter.Value() != "":
			return []string{"No title matches; enter: search"}
		}
		return []string{"No history yet. Ask something: asky \"your question\""}
	}
	w := m.listWidth()
	var out []string
	for i := m.offset; i < len(m.visible) && i < m.offset+h; i++ {
		line := row(m.visible[i], w-2, m.Loc)
		if i == m.cursor {
			out = append(out, selStyle.Render("▸ "+line))
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// row formats one entry: date, tag and title, cut to width.
func row(it Item, width int, loc *time.Location) string {
	tag := fmt.Sprintf("#%d", it.TurnID)
	if it.IsSession() {
		tag = fmt.Sprintf("S%d·%d", it.SessionID, it.Turns)
	}
	title := strings.Join(strings.Fields(it.Title), " ")
	if it.Snippet != "" && title == "" {
		title = it.Snippet
	}
	if it.Incomplete() {
		title = "[" + it.Status + "] " + title
	}
	s := fmt.Sprintf("%s %-7s %s", it.When.In(loc).Format("01-02"), tag, sanitize(title))
	return pad(ansi.Truncate(s, width, "…"), width)
}

func (m *Model) statusLine() string {
	switch m.mode {
	case modeFilter:
		return m.filter.View()
	case modeSearchInput:
		return m.search.View()
	}
	if m.status != "" {
		return m.status
	}
	if it, ok := m.selected(); ok && it.Snippet != "" {
		return faint.Render(sanitize(strings.NewReplacer("«", "", "»", "").Replace(it.Snippet)))
	}
	return ""
}

func (m *Model) helpLine() string {
	var keys [][2]string
	switch m.mode {
	case modePager:
		keys = [][2]string{{"↑↓", "scroll"}, {"r", "resume"}, {"c", "copy"}, {"y", "code"}, {"d", "delete"}, {"q/esc", "back"}}
	case modeFilter:
		keys = [][2]string{{"enter", "keep filter"}, {"tab", "search all text"}, {"esc", "clear"}}
	case modeSearchInput:
		keys = [][2]string{{"enter", "search questions and answers"}, {"esc", "cancel"}}
	case modeConfirm:
		keys = [][2]string{{"y", "delete"}, {"any key", "cancel"}}
	default:
		keys = [][2]string{{"enter", "open"}, {"/", "filter"}, {"s", "search text"}, {"r", "resume"}, {"c", "copy"}, {"y", "code"}, {"d", "delete"}, {"q", "quit"}}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = bold.Render(k[0]) + " " + faint.Render(k[1])
	}
	return strings.Join(parts, "  ")
}

func describe(it Item) string {
	if it.IsSession() {
		return fmt.Sprintf("session %d (%s)", it.SessionID, clipText(it.Title, 30))
	}
	return fmt.Sprintf("history %d", it.TurnID)
}

func pad(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return ansi.Truncate(s, w, "")
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// sanitize drops control characters so stored text cannot move the cursor
// or change the terminal.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
