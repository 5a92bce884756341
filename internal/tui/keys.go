package tui

// Key handling: the list keys, the actions on the selected item, and the
// filter and search inputs.

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	switch m.mode {
	case modeFilter:
		return m.filterKey(k)
	case modeSearchInput:
		return m.searchKey(k)
	case modeConfirm:
		if k.String() == "y" || k.String() == "Y" {
			it := m.confirm
			m.mode, m.status = m.back, "deleting…"
			ctx, src := m.ctx, m.src
			return m, func() tea.Msg { return deletedMsg{it, src.Delete(ctx, it)} }
		}
		m.mode, m.status = m.back, "nothing deleted"
		return m, nil
	case modePager:
		switch k.String() {
		case "q", "esc", "left", "h":
			m.mode = modeList
			return m, m.previewCmd()
		}
		if cmd, ok := m.actionKey(k); ok {
			return m, cmd
		}
		var cmd tea.Cmd
		m.pager, cmd = m.pager.Update(k)
		return m, cmd
	}
	// List.
	m.status = ""
	switch k.String() {
	case "q":
		return m, tea.Quit
	case "esc":
		switch {
		case m.filter.Value() != "":
			m.filter.SetValue("")
			m.refilter()
		case m.results != nil:
			m.results, m.resultQuery = nil, ""
			m.cursor, m.offset = 0, 0
			m.refilter()
		default:
			return m, tea.Quit
		}
		return m, m.previewCmd()
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "pgup", "ctrl+b":
		m.move(-m.listHeight())
	case "pgdown", "ctrl+f", " ":
		m.move(m.listHeight())
	case "home", "g":
		m.move(-len(m.visible))
	case "end", "G":
		m.move(len(m.visible))
	case "enter", "right", "l":
		if it, ok := m.selected(); ok {
			m.mode, m.back = modePager, modeList
			m.pager.GotoTop()
			m.syncViewports()
			return m, m.loadDoc(it, m.pager.Width)
		}
		return m, nil
	case "/", "f":
		// `/` filters live, as in less-style pagers and bubbles lists;
		// `f` is kept for those who learnt it.
		m.mode = modeFilter
		cmd := m.filter.Focus()
		if !m.done && !m.loading && m.results == nil {
			return m, tea.Batch(cmd, m.loadPage(nextPage))
		}
		return m, cmd
	case "s":
		m.mode = modeSearchInput
		m.search.SetValue("")
		return m, m.search.Focus()
	default:
		if cmd, ok := m.actionKey(k); ok {
			return m, cmd
		}
		return m, nil
	}
	return m, tea.Batch(m.previewCmd(), m.maybeMore())
}

// actionKey handles the keys that act on the selected item in both the
// list and the pager.
func (m *Model) actionKey(k tea.KeyMsg) (tea.Cmd, bool) {
	it, ok := m.selected()
	if !ok {
		return nil, false
	}
	ctx, src := m.ctx, m.src
	switch k.String() {
	case "r":
		m.status = "resuming…"
		return func() tea.Msg {
			text, err := src.Resume(ctx, it)
			return resumedMsg{text, err}
		}, true
	case "c", "y":
		code := k.String() == "y"
		return func() tea.Msg {
			ans, err := src.Answer(ctx, it)
			if err != nil {
				return statusMsg("copy failed: " + err.Error())
			}
			what := "answer"
			if code {
				if ans = LastCodeBlock(ans); ans == "" {
					return statusMsg("no code block in this answer")
				}
				what = "code block"
			}
			how, err := src.Copy(ctx, ans)
			if err != nil {
				return statusMsg("copy failed: " + err.Error())
			}
			return statusMsg(fmt.Sprintf("copied the %s (%s)", what, how))
		}, true
	case "d":
		m.back, m.mode, m.confirm = m.mode, modeConfirm, it
		if m.back == modeConfirm {
			m.back = modeList
		}
		if it.IsSession() {
			m.status = fmt.Sprintf("Delete %s and its %d turns? y/N", describe(it), it.Turns)
		} else {
			m.status = fmt.Sprintf("Delete %s? y/N", describe(it))
		}
		return nil, true
	}
	return nil, false
}

func (m *Model) filterKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.filter.SetValue("")
		m.filter.Blur()
		m.mode = modeList
		m.refilter()
		return m, m.previewCmd()
	case "tab":
		return m.searchFor(m.filter.Value())
	case "enter", "up", "down":
		// A filter that matches no title searches the full text instead.
		if k.String() == "enter" && len(m.visible) == 0 && strings.TrimSpace(m.filter.Value()) != "" {
			return m.searchFor(m.filter.Value())
		}
		m.filter.Blur()
		m.mode = modeList
		if k.String() != "enter" {
			return m.key(k)
		}
		return m, m.previewCmd()
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(k)
	m.cursor, m.offset = 0, 0
	m.refilter()
	cmds := []tea.Cmd{cmd, m.previewCmd()}
	// Filtering looks at loaded entries, so keep loading (up to filterCap).
	if m.filter.Value() != "" && !m.done && !m.loading && m.results == nil && len(m.items) < filterCap {
		cmds = append(cmds, m.loadPage(nextPage))
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) searchKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.search.Blur()
		m.mode = modeList
		return m, nil
	case "enter":
		return m.searchFor(m.search.Value())
	}
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(k)
	return m, cmd
}

// searchFor runs a full-text search over questions and answers for q,
// replacing any title filter.
func (m *Model) searchFor(q string) (tea.Model, tea.Cmd) {
	q = strings.TrimSpace(q)
	m.search.Blur()
	m.filter.Blur()
	m.mode = modeList
	if q == "" {
		return m, nil
	}
	m.filter.SetValue("")
	m.refilter()
	m.status = "searching…"
	ctx, src := m.ctx, m.src
	return m, func() tea.Msg {
		items, err := src.Search(ctx, q, 200)
		return searchMsg{q, items, err}
	}
}

// plural is "1 match", "2 matches".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
