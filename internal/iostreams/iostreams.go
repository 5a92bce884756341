// Package iostreams carries the process's standard streams together with the
// terminal facts (TTY, color, width) that decide how output is shaped. Every
// command writes through it so that tests can capture output with Test().
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams holds stdin/stdout/stderr and what we know about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	colorEnabled          bool
	width                 int
	// termFd is the stdout file descriptor when it is a terminal, so width can
	// be re-read after a resize.
	termFd int
}

// System returns streams bound to the real process stdio, honouring NO_COLOR,
// CLICOLOR_FORCE and TERM=dumb.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, termFd: -1}
	s.inTTY = isTerminal(os.Stdin)
	s.outTTY = isTerminal(os.Stdout)
	s.errTTY = isTerminal(os.Stderr)
	if s.outTTY {
		s.termFd = int(os.Stdout.Fd())
	}
	s.colorEnabled = s.outTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	if os.Getenv("CLICOLOR_FORCE") != "" && os.Getenv("CLICOLOR_FORCE") != "0" && os.Getenv("NO_COLOR") == "" {
		s.colorEnabled = true
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		s.width = w
	}
	return s
}

func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// Test returns streams backed by buffers: none of them is a terminal.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, termFd: -1, width: 80}, in, out, errOut
}

// IsStdinTTY reports whether stdin is an interactive terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether stdout is a terminal (rendered output).
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether stderr is a terminal (spinners, progress).
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetTTY overrides terminal detection; tests use it to exercise TTY paths.
func (s *IOStreams) SetTTY(in, out, errOut bool) {
	s.inTTY, s.outTTY, s.errTTY = in, out, errOut
}

// ColorEnabled reports whether ANSI styling may be written to stdout.
func (s *IOStreams) ColorEnabled() bool { return s.colorEnabled }

// SetColorEnabled overrides color detection.
func (s *IOStreams) SetColorEnabled(v bool) { s.colorEnabled = v }

// CanPrompt reports whether interactive questions may be asked.
func (s *IOStreams) CanPrompt() bool { return s.inTTY && s.errTTY }

// TerminalHeight returns the rows of the stdout terminal, 24 when unknown.
func (s *IOStreams) TerminalHeight() int {
	if s.termFd >= 0 {
		if _, h, err := term.GetSize(s.termFd); err == nil && h > 0 {
			return h
		}
	}
	return 24
}

// TerminalWidth returns the usable width of stdout, 80 when unknown.
func (s *IOStreams) TerminalWidth() int {
	if s.termFd >= 0 {
		if w, _, err := term.GetSize(s.termFd); err == nil && w > 0 {
			return w
		}
	}
	if s.width > 0 {
		return s.width
	}
	return 80
}
