package render

import (
	"io"
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
