package render

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/mattn/go-runewidth"
)

// Stream renders an answer while it streams in. Finished markdown blocks
// (separated by a blank line outside code fences) are rendered with glamour
// and committed; only the open tail is shown raw and redrawn, so the output
// never has to scroll back further than the tail and a long answer renders
// correctly without waiting for the end.
type Stream struct {
	out       io.Writer
	width     int
	r         *glamour.TermRenderer
	buf       strings.Builder
	committed int
	tailLines int
	// maxTail is the most raw lines kept on screen; longer tails wait for
	// their block to finish.
	maxTail int
	printed bool
}

// NewStream returns a streaming renderer writing to out (a terminal).
func NewStream(out io.Writer, width, height int, style string) *Stream {
	r, err := NewRenderer(width, style)
	if err != nil {
		r, _ = NewRenderer(width, NoColor)
	}
	if height <= 0 {
		height = 24
	}
	return &Stream{out: out, width: width, r: r, maxTail: max(height-4, 4)}
}

// Write adds streamed text.
func (s *Stream) Write(delta string) {
	s.buf.WriteString(Sanitize(delta))
	text := s.buf.String()
	if b := lastBoundary(text, s.committed); b > s.committed {
		s.clearTail()
		s.commit(text[s.committed:b])
		s.committed = b
	}
	s.drawTail(text[s.committed:])
}

// Discard erases the raw tail and forgets uncommitted text. Committed
// blocks stay (they were interim text before tool calls).
func (s *Stream) Discard() {
	s.clearTail()
	s.buf.Reset()
	s.committed = 0
}

// Finish renders whatever is left. final, when non-empty and different from
// what streamed (e.g. think tags stripped), replaces the uncommitted text.
func (s *Stream) Finish() {
	s.clearTail()
	text := s.buf.String()
	if rest := strings.TrimSpace(text[s.committed:]); rest != "" {
		s.commit(rest)
	}
	s.buf.Reset()
	s.committed = 0
}

// Printed reports whether anything was committed.
func (s *Stream) Printed() bool { return s.printed }

func (s *Stream) commit(md string) {
	if strings.TrimSpace(md) == "" {
		return
	}
	out := md
	if s.r != nil {
		if r, err := s.r.Render(md); err == nil {
			out = trimBlankLines(r)
		}
	}
	if s.printed {
		fmt.Fprintln(s.out)
	}
	fmt.Fprintln(s.out, out)
	s.printed = true
}

func (s *Stream) drawTail(tail string) {
	s.clearTail()
	tail = strings.TrimLeft(tail, "\n")
	if tail == "" {
		return
	}
	n := s.lines(tail)
	if n > s.maxTail {
		return
	}
	if s.printed {
		fmt.Fprint(s.out, "\n")
		n++
	}
	fmt.Fprint(s.out, tail)
	s.tailLines = n
}

// clearTail erases the raw tail drawn last.
func (s *Stream) clearTail() {
	if s.tailLines == 0 {
		return
	}
	fmt.Fprint(s.out, "\r\x1b[K")
	for i := 1; i < s.tailLines; i++ {
		fmt.Fprint(s.out, "\x1b[A\x1b[K")
	}
	s.tailLines = 0
}

// lines counts the terminal rows text occupies at the current width.
func (s *Stream) lines(text string) int {
	w := s.width
	if w <= 0 {
		w = 80
	}
	n := 0
	for _, l := range strings.Split(text, "\n") {
		cw := runewidth.StringWidth(l)
		n += max(1, (cw+w-1)/w)
	}
	return n
}

// lastBoundary returns the offset just after the last blank line outside a
// code fence in text[from:], or from if there is none.
func lastBoundary(text string, from int) int {
	best := from
	inFence := false
	off := 0
	lines := strings.SplitAfter(text, "\n")
	prevBlank := false
	for _, l := range lines {
		start := off
		off += len(l)
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			prevBlank = false
			if !inFence && start >= from && strings.HasSuffix(l, "\n") {
				// A closed fence ends a block.
				best = off
			}
			continue
		}
		blank := t == "" && strings.HasSuffix(l, "\n")
		if blank && !inFence && !prevBlank && start > from {
			best = off
		}
		prevBlank = blank
	}
	return best
}

var ansiRe = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// trimBlankLines drops leading and trailing lines that are blank once
// styling is removed: glamour pads every document with margin lines, which
// would double the spacing between blocks rendered one by one.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansiRe.ReplaceAllString(l, "")) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
