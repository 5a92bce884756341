package render

import (
	"io"
	"strings"
	"testing"
	"time"
)

// Update keeps the elapsed time of the activity; Set starts a new one.
func TestStatusUpdateKeepsElapsed(t *testing.T) {
	s := &Status{w: io.Discard}
	s.Set("reading 3 paths")
	started := s.started
	time.Sleep(2 * time.Millisecond)
	s.Update("reading 1/3 files")
	if s.text != "reading 1/3 files" || !s.started.Equal(started) {
		t.Fatalf("Update: text %q, started moved %v", s.text, s.started.Sub(started))
	}
	s.Set("thinking")
	if s.started.Equal(started) {
		t.Fatal("Set did not restart the timer")
	}
	s.Pause()
	s.Update("reading 2/3 files") // after a pause the activity starts now
	if s.started.Before(time.Now().Add(-time.Second)) || s.text != "reading 2/3 files" {
		t.Fatalf("Update after Pause: %+v", s)
	}
}

// The spinner line is dimmed only with color on: NO_COLOR gets no SGR.
func TestStatusDimOnlyWithColor(t *testing.T) {
	for _, color := range []bool{true, false} {
		var b strings.Builder
		s := &Status{w: &b, dim: color, text: "thinking", started: time.Now()}
		s.drawLocked()
		if got := strings.Contains(b.String(), "\x1b[2m"); got != color {
			t.Errorf("color %v: dim SGR present %v in %q", color, got, b.String())
		}
		if !strings.Contains(b.String(), "thinking") {
			t.Errorf("color %v: no text in %q", color, b.String())
		}
	}
}
