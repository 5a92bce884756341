package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy says when and how long to wait before repeating a failed call.
type RetryPolicy struct {
	// MaxRetries is the number of repeats after the first attempt.
	MaxRetries int
	// Initial is the first backoff; each retry doubles it up to Max. Max
	// also caps a server's Retry-After.
	Initial, Max time.Duration
	// OnRetry is told about each retry before the wait (shown with -v).
	OnRetry func(attempt int, wait time.Duration, err error)
	// Sleep waits d or until ctx ends; nil uses a timer. Tests inject a
	// fake to run without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0,1); nil uses math/rand.
	Jitter func() float64
}

// unreachableRetries and unreachableWait keep a refused connection or a
// failed DNS lookup fast: one quick retry covers a server that is
// restarting, more would only keep the user waiting for a server that is
// not running.
const (
	unreachableRetries = 1
	unreachableWait    = 500 * time.Millisecond
)

// WithRetry wraps c so that retryable errors (rate limits, server errors,
// dropped connections) are repeated with capped exponential backoff and
// jitter, honouring Retry-After. A call that already streamed output is
// never repeated: the user has seen it.
func WithRetry(c Client, p RetryPolicy) Client {
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	if p.Initial <= 0 {
		p.Initial = time.Second
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	return &retrying{c: c, p: p}
}

type retrying struct {
	c Client
	p RetryPolicy
}

func (r *retrying) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	unreachable := 0
	for attempt := 1; ; attempt++ {
		resp, err := r.c.Chat(ctx, req, onDelta)
		if err == nil {
			return resp, nil
		}
		var le *Error
		if !errors.As(err, &le) || !le.Retryable() || attempt > r.p.MaxRetries || ctx.Err() != nil {
			return nil, err
		}
		wait := r.backoff(attempt, le)
		if le.Kind == KindUnreachable {
			if unreachable++; unreachable > unreachableRetries {
				return nil, err
			}
			wait = min(wait, unreachableWait)
		}
		if r.p.OnRetry != nil {
			r.p.OnRetry(attempt, wait, err)
		}
		if serr := r.p.Sleep(ctx, wait); serr != nil {
			// Interrupted while waiting: report the interruption (exit 130),
			// keeping the error that caused the wait.
			return nil, fmt.Errorf("%w (while waiting to retry: %v)", serr, err)
		}
	}
}

// backoff is Retry-After when the server sent one, else Initial·2^(n-1)
// with "equal jitter" (between half and all of it); both capped at Max.
func (r *retrying) backoff(attempt int, le *Error) time.Duration {
	if le.RetryAfter > 0 {
		return min(le.RetryAfter, r.p.Max)
	}
	d := r.p.Initial
	for i := 1; i < attempt && d < r.p.Max; i++ {
		d *= 2
	}
	d = min(d, r.p.Max)
	return d/2 + time.Duration(r.p.Jitter()*float64(d/2))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
