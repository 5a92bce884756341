// Package daemon is the transport-agnostic core of `asky daemon`: it
// queues questions per conversation and runs them through a Runner, so a
// transport (HTTP today; XMPP and Telegram later) only translates its wire
// format into an Ask and a turn.Result back. It never imports the CLI: the
// command wires the same turn composition the CLI uses in as the Runner.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// Ask is one question from a transport.
type Ask struct {
	// Conversation names the conversation; its turns are kept in the asky
	// session of that name and asked one at a time. Empty = one-shot.
	Conversation string
	Question     string
	// History is earlier conversation supplied by the client, oldest
	// first; used for one-shot asks (a named conversation has its own).
	History []llm.Message
	// Instructions are the client's own system instructions, added to
	// asky's system prompt.
	Instructions string
	// Model is an asky model alias; empty uses the default.
	Model string
	// SummarizationModel replaces [general] summarization_model (a chat's
	// override); empty uses the config.
	SummarizationModel string
	// Prompts, when set, are a chat's [user_prompts] override: /name in
	// the question expands from [user_prompts] with these on top.
	Prompts map[string]string
	// Lean turns off tools and preloading.
	Lean bool
	// Sampling overrides the model's parameters for the calls that
	// produce the answer (an OpenAI client's temperature, max_tokens, …).
	Sampling llm.Sampling
	// Events receives progress (streamed text); nil ignores it. It is
	// called from the turn's goroutine.
	Events func(turn.Event)
}

// Runner runs one turn the way the CLI does.
type Runner interface {
	Run(ctx context.Context, a Ask) (*turn.Result, error)
}

// RequestError marks an error caused by the request itself (unknown model
// alias, bad selector), as opposed to a failure of asky or the provider.
type RequestError struct {
	Err  error
	Hint string
}

func (e *RequestError) Error() string {
	if e.Hint != "" {
		return e.Err.Error() + " (" + e.Hint + ")"
	}
	return e.Err.Error()
}

func (e *RequestError) Unwrap() error { return e.Err }

// ErrBusy is returned when a conversation already has a full backlog.
var ErrBusy = errors.New("busy")

// DefaultBacklog is how many asks may wait behind the running one in a
// conversation (reliability.md §3.7: bounded, then "busy").
const DefaultBacklog = 4

// Service serializes asks per conversation: a conversation's turns run
// one after another in arrival order, so each sees the previous answer;
// different conversations run concurrently.
type Service struct {
	runner  Runner
	backlog int
	busy    Busy

	mu     sync.Mutex
	queues map[string]*queue
}

// queue is one conversation's line: waiters[0] runs, the rest wait for
// their channel to be closed.
type queue struct{ waiters []chan struct{} }

// NewService returns a Service; backlog <= 0 uses DefaultBacklog.
func NewService(r Runner, backlog int) *Service {
	if backlog <= 0 {
		backlog = DefaultBacklog
	}
	return &Service{runner: r, backlog: backlog, queues: map[string]*queue{}}
}

// Ask runs a after the conversation's earlier asks. It returns ErrBusy at
// once when backlog asks are already waiting, and ctx's error if ctx ends
// while waiting (the ask then never runs).
func (s *Service) Ask(ctx context.Context, a Ask) (*turn.Result, error) {
	if a.Conversation == "" {
		return s.run(ctx, a)
	}
	s.mu.Lock()
	q := s.queues[a.Conversation]
	if q == nil {
		q = &queue{}
		s.queues[a.Conversation] = q
	}
	if len(q.waiters) > s.backlog {
		s.mu.Unlock()
		return nil, fmt.Errorf("conversation %q has %d questions waiting: %w", a.Conversation, s.backlog, ErrBusy)
	}
	me := make(chan struct{})
	q.waiters = append(q.waiters, me)
	if len(q.waiters) == 1 {
		close(me)
	}
	s.mu.Unlock()
	defer s.leave(a.Conversation, q, me)
	select {
	case <-me:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.run(ctx, a)
}

// run runs one turn, counted in Busy while it runs.
func (s *Service) run(ctx context.Context, a Ask) (*turn.Result, error) {
	defer s.busy.Begin()()
	return s.runner.Run(ctx, a)
}

// Busy counts the turns running now, for background work to give way
// to (the daemon's other foreground work joins it).
func (s *Service) Busy() *Busy { return &s.busy }

// leave removes me from the queue and lets the next ask run if me was
// running (or had just been let through when its context ended).
func (s *Service) leave(key string, q *queue, me chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range q.waiters {
		if w != me {
			continue
		}
		q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
		if i == 0 && len(q.waiters) > 0 {
			close(q.waiters[0])
		}
		break
	}
	if len(q.waiters) == 0 {
		delete(s.queues, key)
	}
}

// Waiting reports how many asks are queued or running in a conversation.
func (s *Service) Waiting(conversation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queues[conversation]; q != nil {
		return len(q.waiters)
	}
	return 0
}
