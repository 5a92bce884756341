package daemon

import (
	"context"
	"sync"
)

// Busy counts the daemon's work in flight that someone waits for (turns,
// chat uploads), so background work gives way to it: the deep tier's
// fill waits on Idle, and a question asked during an hours-long fill is
// answered as fast as on an idle daemon. The zero value is idle.
type Busy struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when the last work in flight ends
}

// Begin marks work in flight until end is called (once).
func (b *Busy) Begin() (end func()) {
	b.mu.Lock()
	if b.n == 0 {
		b.idle = make(chan struct{})
	}
	b.n++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			if b.n--; b.n == 0 {
				close(b.idle)
			}
			b.mu.Unlock()
		})
	}
}

// Idle returns nil at once when no work is in flight, else when the last
// of it ends; ctx's error if ctx ends first.
func (b *Busy) Idle(ctx context.Context) error {
	b.mu.Lock()
	n, idle := b.n, b.idle
	b.mu.Unlock()
	if n == 0 {
		return ctx.Err()
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// InFlight is how much work is in flight now.
func (b *Busy) InFlight() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}
