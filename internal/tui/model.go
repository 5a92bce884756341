package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

var fence = regexp.MustCompile("(?ms)^[ \t]*(```|~~~)[^\n]*\n(.*?)\n[ \t]*(```|~~~)[ \t]*$")

// LastCodeBlock returns the body of the last fenced code block in md.
func LastCodeBlock(md string) string {
	all := fence.FindAllStringSubmatch(md, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][2]
}
