package iostreams

import (
	"io"
	"time"
)

// PipedStop says why ReadPiped stopped before the end of its input.
type PipedStop int

// Reasons ReadPiped returns.
const (
	// PipedEOF: the whole input was read.
	PipedEOF PipedStop = iota
	// PipedCap: more than limit bytes arrived; the rest is left unread.
	PipedCap
	// PipedIdle: nothing arrived for the idle gap after some input did
	// (tail -f, a slow producer); what arrived so far is returned.
	PipedIdle
)

// ReadPiped reads piped input without ever depending on EOF: `yes | asky`
// and `tail -f log | asky` never end. It returns at EOF, once more than
// limit bytes arrived (returning limit+1 bytes so the caller can tell, and
// leaving the rest unread rather than draining an endless pipe), or when
// no bytes arrived for idle after the first ones did. Before the first
// byte it waits as long as the producer takes.
func ReadPiped(r io.Reader, limit int, idle time.Duration) ([]byte, PipedStop, error) {
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := r.Read(buf)
			select {
			case ch <- chunk{buf[:n], err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var out []byte
	var timer <-chan time.Time
	for {
		select {
		case c := <-ch:
			out = append(out, c.b...)
			if len(out) > limit {
				return out[:limit+1], PipedCap, nil
			}
			if c.err == io.EOF {
				return out, PipedEOF, nil
			}
			if c.err != nil {
				return out, PipedEOF, c.err
			}
			if len(out) > 0 {
				timer = time.After(idle)
			}
		case <-timer:
			return out, PipedIdle, nil
		}
	}
}
