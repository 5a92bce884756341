package daemon

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/turn"
)

// gateRunner blocks each Run until released and records the order of
// questions started.
type gateRunner struct {
	mu      sync.Mutex
	started []string
	running map[string]int
	overlap bool
	gate    chan struct{}
	entered chan string
}

func newGateRunner() *gateRunner {
	return &gateRunner{running: map[string]int{}, gate: make(chan struct{}), entered: make(chan string, 100)}
}

func (g *gateRunner) Run(ctx context.Context, a Ask) (*turn.Result, error) {
	g.mu.Lock()
	g.started = append(g.started, a.Question)
	g.running[a.Conversation]++
	if g.running[a.Conversation] > 1 {
		g.overlap = true
	}
	g.mu.Unlock()
	g.entered <- a.Question
	defer func() {
		g.mu.Lock()
		g.running[a.Conversation]--
		g.mu.Unlock()
	}()
	select {
	case <-g.gate:
		return &turn.Result{Answer: "answer to " + a.Question}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func waitEntered(t *testing.T, g *gateRunner, want string) {
	t.Helper()
	select {
	case got := <-g.entered:
		if got != want {
			t.Fatalf("started %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%q never started", want)
	}
}

// waitQueued waits until n asks are in the conversation's line.
func waitQueued(t *testing.T, s *Service, conv string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Waiting(conv) != n {
		if time.Now().After(deadline) {
			t.Fatalf("waiting = %d, want %d", s.Waiting(conv), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestServiceSerializesAConversationInOrder(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 10)
	var wg sync.WaitGroup
	answers := make([]string, 3)
	for i, q := range []string{"one", "two", "three"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Ask(context.Background(), Ask{Conversation: "c", Question: q})
			if err != nil {
				t.Errorf("%s: %v", q, err)
				return
			}
			answers[i] = res.Answer
		}()
		// Arrival order is the order asks join the line.
		waitQueued(t, s, "c", i+1)
	}
	for _, q := range []string{"one", "two", "three"} {
		waitEntered(t, g, q)
		g.gate <- struct{}{}
	}
	wg.Wait()
	if g.overlap {
		t.Fatal("two turns of one conversation ran at once")
	}
	if answers[2] != "answer to three" {
		t.Fatalf("answers = %q", answers)
	}
	if s.Waiting("c") != 0 || len(s.queues) != 0 {
		t.Fatalf("queue not cleaned up: %d waiting, %d queues", s.Waiting("c"), len(s.queues))
	}
}

func TestServiceRunsConversationsConcurrently(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 1)
	done := make(chan error, 2)
	for _, c := range []string{"a", "b"} {
		go func() {
			_, err := s.Ask(context.Background(), Ask{Conversation: c, Question: c})
			done <- err
		}()
	}
	// Both start before either is released.
	got := map[string]bool{<-g.entered: true, <-g.entered: true}
	if !got["a"] || !got["b"] {
		t.Fatalf("started %v", got)
	}
	close(g.gate)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestServiceBacklogIsBounded(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 2)
	errs := make(chan error, 3)
	for i := range 3 { // 1 running + 2 waiting
		go func() {
			_, err := s.Ask(context.Background(), Ask{Conversation: "c", Question: "q"})
			errs <- err
		}()
		waitQueued(t, s, "c", i+1)
	}
	_, err := s.Ask(context.Background(), Ask{Conversation: "c", Question: "one too many"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	// Another conversation is not affected.
	go func() {
		_, err := s.Ask(context.Background(), Ask{Conversation: "other", Question: "q"})
		errs <- err
	}()
	close(g.gate)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestServiceCancelWhileWaitingNeverRuns(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 4)
	first := make(chan error, 1)
	go func() {
		_, err := s.Ask(context.Background(), Ask{Conversation: "c", Question: "first"})
		first <- err
	}()
	waitEntered(t, g, "first")
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, err := s.Ask(ctx, Ask{Conversation: "c", Question: "second"})
		second <- err
	}()
	waitQueued(t, s, "c", 2)
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second: %v", err)
	}
	waitQueued(t, s, "c", 1)
	// The line still works after a waiter left.
	third := make(chan error, 1)
	go func() {
		_, err := s.Ask(context.Background(), Ask{Conversation: "c", Question: "third"})
		third <- err
	}()
	g.gate <- struct{}{}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	waitEntered(t, g, "third")
	g.gate <- struct{}{}
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	for _, q := range g.started {
		if q == "second" {
			t.Fatal("a canceled ask ran")
		}
	}
}

func TestServiceCancelRunningTurnReachesRunner(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 4)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Ask(ctx, Ask{Conversation: "c", Question: "long"})
		errc <- err
	}()
	waitEntered(t, g, "long")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	waitQueued(t, s, "c", 0)
}
