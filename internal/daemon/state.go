package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Transport states shown by `asky daemon status`.
const (
	StateStarting     = "starting"
	StateConnected    = "connected"
	StateReconnecting = "reconnecting"
	StateListening    = "listening"
	StateFailed       = "failed"
	StateStopped      = "stopped"
)

// TransportState is one transport's line in `asky daemon status`.
type TransportState struct {
	Name        string    `json:"name"`
	State       string    `json:"state"`
	Since       time.Time `json:"since"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	// QueueDepth counts this transport's questions running or waiting.
	QueueDepth int `json:"queue_depth"`
}

// Board collects the transports' states. Transports report through
// Set; the daemon saves a snapshot next to its lock for `daemon status`.
type Board struct {
	now func() time.Time

	mu     sync.Mutex
	states map[string]*TransportState
	// prefixes maps a transport to its conversation key prefixes, for
	// the queue depth.
	prefixes map[string][]string
	changed  chan struct{}
}

// NewBoard returns an empty Board.
func NewBoard(now func() time.Time) *Board {
	if now == nil {
		now = time.Now
	}
	return &Board{now: now, states: map[string]*TransportState{}, prefixes: map[string][]string{}, changed: make(chan struct{}, 1)}
}

// Changed is signalled after a transport's state changes, so the status
// file is rewritten at once rather than on the next tick.
func (b *Board) Changed() <-chan struct{} { return b.changed }

func (b *Board) notify() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// Register adds a transport whose conversations start with prefixes.
func (b *Board) Register(name string, prefixes ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.states[name] = &TransportState{Name: name, State: StateStarting, Since: b.now()}
	b.prefixes[name] = prefixes
}

// Set records a transport's state; a non-nil err becomes its last error
// (kept after it recovers, with its time).
func (b *Board) Set(name, state string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.states[name]
	if s == nil {
		s = &TransportState{Name: name}
		b.states[name] = s
	}
	if s.State != state {
		s.State, s.Since = state, b.now()
		b.notify()
	}
	if err != nil {
		s.LastError, s.LastErrorAt = err.Error(), b.now()
		b.notify()
	}
}

// Get returns one transport's state.
func (b *Board) Get(name string) (TransportState, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.states[name]; s != nil {
		return *s, true
	}
	return TransportState{}, false
}

// Snapshot returns every transport's state, sorted by name, with queue
// depths from svc (nil leaves them zero).
func (b *Board) Snapshot(svc *Service) []TransportState {
	b.mu.Lock()
	out := make([]TransportState, 0, len(b.states))
	prefixes := make(map[string][]string, len(b.prefixes))
	for name, s := range b.states {
		out = append(out, *s)
		prefixes[name] = b.prefixes[name]
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if svc != nil {
		for i := range out {
			out[i].QueueDepth = svc.Depth(prefixes[out[i].Name]...)
		}
	}
	return out
}

// Depth counts asks running or waiting in conversations whose key starts
// with one of prefixes.
func (s *Service) Depth(prefixes ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key, q := range s.queues {
		for _, p := range prefixes {
			if strings.HasPrefix(key, p) {
				n += len(q.waiters)
				break
			}
		}
	}
	return n
}

// SaveStates writes states to path atomically (`daemon status` reads it).
func SaveStates(path string, states []TransportState) error {
	b, err := json.Marshal(states)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadStates reads what SaveStates wrote; a missing file is no states.
func LoadStates(path string) ([]TransportState, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TransportState
	return out, json.Unmarshal(b, &out)
}

// StatesPath is the states file beside the pid file.
func StatesPath(pidPath string) string {
	return filepath.Join(filepath.Dir(pidPath), "daemon-transports.json")
}
