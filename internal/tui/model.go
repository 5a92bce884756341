package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Sizes of lazy pages: the first is small so the first frame is fast.
const (
	firstPage = 100
	nextPage  = 500
	// filterCap bounds how many entries are loaded to fuzzy-filter.
	filterCap = 20000
	// prefetch loads the next page when the cursor is this close to the end.
	prefetch = 30
)

type mode int

const (
	modeList mode = iota
	modeFilter
	modeSearchInput
	modePager
	modeConfirm
)

// Model is the browser state.
type Model struct {
	ctx context.Context
	src Source

	items   []Item // everything loaded, newest first
	done    bool
	loading bool
	err     error

	// results replaces items while a search is shown.
	results     []Item
	resultQuery string

	// visible indexes the rows shown (filtered, or all).
	visible []Item
	cursor  int
	offset  int

	mode    mode
	back    mode // where esc returns from the pager
	filter  textinput.Model
	search  textinput.Model
	pager   viewport.Model
	preview viewport.Model

	// docs caches rendered documents by key@width.
	docs    map[string]string
	raw     map[string]string
	pending map[string]bool

	status  string
	confirm Item

	width, height int
	// Loc is the time zone dates are shown in.
	Loc *time.Location
	// Exit is printed by the caller after the program ends (resume).
	Exit string
}

// New returns a browser over src.
func New(ctx context.Context, src Source) *Model {
	f := textinput.New()
	f.Prompt = "filter: "
	s := textinput.New()
	s.Prompt = "search all text: "
	return &Model{ctx: ctx, src: src, filter: f, search: s, loading: true,
		docs: map[string]string{}, raw: map[string]string{}, pending: map[string]bool{}, width: 80, height: 24, Loc: time.Local}
}

// Messages from commands.
type (
	pageMsg struct {
		items []Item
		done  bool
		err   error
	}
	searchMsg struct {
		query string
		items []Item
		err   error
	}
	docMsg struct {
		key, rendered, raw string
		err                error
	}
	deletedMsg struct {
		it  Item
		err error
	}
	resumedMsg struct {
		text string
		err  error
	}
	statusMsg string
)

// Init loads the first page.
func (m *Model) Init() tea.Cmd { return m.loadPage(firstPage) }

func (m *Model) loadPage(n int) tea.Cmd {
	m.loading = true
	ctx, src := m.ctx, m.src
	return func() tea.Msg {
		items, done, err := src.Next(ctx, n)
		return pageMsg{items, done, err}
	}
}

func (m *Model) loadDoc(it Item, width int) tea.Cmd {
	key := docKey(it, width)
	if _, ok := m.docs[key]; ok || m.pending[key] || width <= 0 {
		return nil
	}
	m.pending[key] = true
	ctx, src := m.ctx, m.src
	return func() tea.Msg {
		md, err := src.Document(ctx, it)
		if err != nil {
			return docMsg{key: key, err: err}
		}
		out, err := src.Render(md, width)
		return docMsg{key: key, rendered: out, raw: md, err: err}
	}
}

func docKey(it Item, width int) string { return fmt.Sprintf("%s@%d", it.Key(), width) }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.previewCmd()
	case pageMsg:
		m.loading = false
		if msg.err != nil {
			m.err = msg.err
			return m, nil
		}
		m.items = append(m.items, msg.items...)
		m.done = msg.done
		m.refilter()
		cmds := []tea.Cmd{m.previewCmd()}
		if m.filter.Value() != "" && !m.done && m.results == nil && len(m.items) < filterCap {
			cmds = append(cmds, m.loadPage(nextPage))
		}
		return m, tea.Batch(cmds...)
	case searchMsg:
		if msg.err != nil {
			m.status = "search failed: " + msg.err.Error()
			return m, nil
		}
		m.results, m.resultQuery = msg.items, msg.query
		m.cursor, m.offset = 0, 0
		m.refilter()
		m.status = fmt.Sprintf("%s for %q · esc: back to all", plural(len(msg.items), "match", "matches"), msg.query)
		return m, m.previewCmd()
	case docMsg:
		delete(m.pending, msg.key)
		if msg.err != nil {
			m.docs[msg.key] = "error: " + msg.err.Error()
		} else {
			m.docs[msg.key], m.raw[msg.key] = msg.rendered, msg.raw
		}
		m.syncViewports()
		return m, nil
	case deletedMsg:
		if msg.err != nil {
			m.status = "delete failed: " + msg.err.Error()
			return m, nil
		}
		m.remove(msg.it)
		m.status = "deleted " + describe(msg.it)
		return m, m.previewCmd()
	case resumedMsg:
		if msg.err != nil {
			m.status = "resume failed: " + msg.err.Error()
			return m, nil
		}
		m.Exit = msg.text
		return m, tea.Quit
	case statusMsg:
		m.status = string(msg)
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

// refilter recomputes the visible rows.
func (m *Model) refilter() {
	base := m.items
	if m.results != nil {
		base = m.results
	}
	q := m.filter.Value()
	if q == "" {
		m.visible = base
	} else {
		m.visible = Fuzzy(base, q)
	}
	if m.cursor >= len(m.visible) {
		m.cursor = max(0, len(m.visible)-1)
	}
	m.clampOffset()
}

func (m *Model) remove(it Item) {
	drop := func(list []Item) []Item {
		out := list[:0:0]
		for _, x := range list {
			if x.Key() != it.Key() && !(it.IsSession() && x.SessionID == it.SessionID) {
				out = append(out, x)
			}
		}
		return out
	}
	m.items = drop(m.items)
	if m.results != nil {
		m.results = drop(m.results)
	}
	for k := range m.docs {
		if strings.HasPrefix(k, it.Key()+"@") {
			delete(m.docs, k)
		}
	}
	m.refilter()
	if m.mode == modePager {
		m.mode = modeList
	}
}

func (m *Model) selected() (Item, bool) {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return Item{}, false
	}
	return m.visible[m.cursor], true
}

func (m *Model) move(d int) {
	m.cursor += d
	if m.cursor >= len(m.visible) {
		m.cursor = len(m.visible) - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	m.clampOffset()
}

func (m *Model) clampOffset() {
	h := m.listHeight()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	if m.offset < 0 {
		m.offset = 0
	}
}

// maybeMore loads the next page when the cursor nears the end of what is
// loaded.
func (m *Model) maybeMore() tea.Cmd {
	if m.done || m.loading || m.results != nil || m.filter.Value() != "" {
		return nil
	}
	if m.cursor >= len(m.items)-prefetch {
		return m.loadPage(nextPage)
	}
	return nil
}

// previewCmd loads the selected item's document for the preview pane.
func (m *Model) previewCmd() tea.Cmd {
	m.syncViewports()
	it, ok := m.selected()
	if !ok {
		return nil
	}
	if m.mode == modePager {
		return m.loadDoc(it, m.pager.Width)
	}
	if !m.showPreview() {
		return nil
	}
	return m.loadDoc(it, m.preview.Width)
}
