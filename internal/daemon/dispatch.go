package daemon

import "sync"

// Dispatcher runs jobs per conversation in arrival order, conversations
// concurrently. A chat transport's receive loop hands each message over
// without blocking; starting a goroutine per message instead could let
// two quick messages of one conversation overtake each other on their way
// to the Service's queue.
type Dispatcher struct {
	// Backlog bounds the jobs waiting in one conversation; beyond it
	// Go returns false (the caller answers "busy"). Zero uses
	// DefaultBacklog.
	Backlog int

	mu     sync.Mutex
	queues map[string][]func()
	wg     sync.WaitGroup
}

// Go queues job for conversation key; false means the backlog is full.
func (d *Dispatcher) Go(key string, job func()) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.queues == nil {
		d.queues = map[string][]func(){}
	}
	backlog := d.Backlog
	if backlog <= 0 {
		backlog = DefaultBacklog
	}
	q, running := d.queues[key]
	if len(q) > backlog {
		return false
	}
	d.queues[key] = append(q, job)
	if !running {
		d.wg.Add(1)
		go d.drain(key)
	}
	return true
}

// drain runs key's jobs until none is left.
func (d *Dispatcher) drain(key string) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		q := d.queues[key]
		if len(q) == 0 {
			delete(d.queues, key)
			d.mu.Unlock()
			return
		}
		job := q[0]
		d.mu.Unlock()
		job()
		d.mu.Lock()
		d.queues[key] = d.queues[key][1:]
		d.mu.Unlock()
	}
}

// Wait waits for every queued job.
func (d *Dispatcher) Wait() { d.wg.Wait() }
