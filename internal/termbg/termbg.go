// Package termbg keeps bubbletea v1 from querying the terminal on every
// start. Its package init calls lipgloss.HasDarkBackground, which writes
// OSC 11 and a cursor-position request to a terminal stdout and waits for
// the answers: a round trip on every `asky` run (an SSH round trip when
// remote), and stray "]11;?" text on terminals that do not answer.
//
// Go initializes packages in import-path order among those whose imports
// are ready (Go 1.21+), so this package, imported by main and depending
// only on lipgloss, initializes right after lipgloss and before
// github.com/charmbracelet/bubbletea. It pins the answer; the history
// browser asks the terminal for real with Detect before it takes over the
// screen, which is the one place the answer matters.
package termbg

import (
	"os"

	"github.com/charmbracelet/lipgloss"
)

func init() {
	// Assume a dark background until Detect runs; glamour output uses an
	// explicit style and never asks.
	lipgloss.SetHasDarkBackground(true)
}

// Detect asks the terminal for its background color. Call it before a
// bubbletea program acquires the terminal.
func Detect() {
	lipgloss.SetHasDarkBackground(Dark(os.Stdout, os.Getenv))
}
