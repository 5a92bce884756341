package render

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Status is a one-line spinner on stderr (a terminal) showing what asky is
// waiting for and for how long. It must be cleared before anything else is
// written to the same terminal, which Clear does.
type Status struct {
	mu      sync.Mutex
	w       io.Writer
	text    string
	started time.Time
	shown   bool
	stop    chan struct{}
	done    chan struct{}
	frame   int
	// dim greys the line out; off under NO_COLOR, which asks for no
	// ANSI styling.
	dim bool
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// NewStatus starts a spinner on w, dimmed when color is on.
func NewStatus(w io.Writer, color bool) *Status {
	s := &Status{w: w, stop: make(chan struct{}), done: make(chan struct{}), dim: color}
	go s.loop()
	return s
}

// Set changes the text and restarts the timer; "" hides the spinner.
func (s *Status) Set(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if text != s.text {
		s.started = time.Now()
	}
	s.text = text
	if text == "" {
		s.clearLocked()
	}
}

// Update changes the text of the current activity (a progress count)
// without restarting its elapsed time.
func (s *Status) Update(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.text == "" {
		s.started = time.Now()
	}
	s.text = text
}

// Clear erases the line; the spinner reappears on the next tick if text is
// still set. Callers hold no lock across their own writes, so call Pause
// instead when writing to the terminal repeatedly.
func (s *Status) Clear() {
	s.mu.Lock()
	s.clearLocked()
	s.mu.Unlock()
}

// Pause hides the spinner until Set is called again.
func (s *Status) Pause() { s.Set("") }

// Close stops the spinner and erases it.
func (s *Status) Close() {
	close(s.stop)
	<-s.done
	s.Clear()
}

func (s *Status) clearLocked() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}

// drawLocked writes the current frame over the line.
func (s *Status) drawLocked() {
	line := fmt.Sprintf("%s %s · %.1fs", spinFrames[s.frame], s.text, time.Since(s.started).Seconds())
	if s.dim {
		line = "\x1b[2m" + line + "\x1b[0m"
	}
	fmt.Fprint(s.w, "\r\x1b[K"+line)
	s.shown = true
}

func (s *Status) loop() {
	defer close(s.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if s.text != "" && time.Since(s.started) > 150*time.Millisecond {
				s.frame = (s.frame + 1) % len(spinFrames)
				s.drawLocked()
			}
			s.mu.Unlock()
		}
	}
}
