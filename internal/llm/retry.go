package llm

import (
	"cmp"
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
	// Budget bounds the total time spent waiting between attempts; a wait
	// that would overrun it ends the retries. Zero means no bound beyond
	// MaxRetries.
	Budget time.Duration
	// OnRetry is told about each retry before the wait (one line on
	// stderr, see RetryNotice).
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
	return &retrying{c: c, p: p.withDefaults()}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
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
	return p
}

type retrying struct {
	c Client
	p RetryPolicy
}

func (r *retrying) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	var resp *Response
	err := r.p.Do(ctx, func() (err error) {
		resp, err = r.c.Chat(ctx, req, onDelta)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Do runs call, repeating it while it fails with a retryable *Error (rate
// limit, server error, dropped connection) up to MaxRetries times, with
// the policy's backoff. Other errors are returned at once. Any provider
// call (chat, embeddings) retries the same way through it.
func (p RetryPolicy) Do(ctx context.Context, call func() error) error {
	p = p.withDefaults()
	unreachable := 0
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		err := call()
		if err == nil {
			return nil
		}
		var le *Error
		if !errors.As(err, &le) || !le.Retryable() || attempt > p.MaxRetries || ctx.Err() != nil {
			return err
		}
		wait := p.backoff(attempt, le)
		if le.Kind == KindUnreachable {
			if unreachable++; unreachable > unreachableRetries {
				return err
			}
			wait = min(wait, unreachableWait)
		}
		if p.Budget > 0 && waited+wait > p.Budget {
			return err
		}
		waited += wait
		if p.OnRetry != nil {
			p.OnRetry(attempt, wait, err)
		}
		if serr := p.Sleep(ctx, wait); serr != nil {
			// Interrupted while waiting: report the interruption (exit 130),
			// keeping the error that caused the wait.
			return fmt.Errorf("%w (while waiting to retry: %v)", serr, err)
		}
	}
}

// backoff is Retry-After when the server sent one, else Initial·2^(n-1)
// with "equal jitter" (between half and all of it); both capped at Max.
func (p RetryPolicy) backoff(attempt int, le *Error) time.Duration {
	if le.RetryAfter > 0 {
		return min(le.RetryAfter, p.Max)
	}
	d := p.Initial
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	return d/2 + time.Duration(p.Jitter()*float64(d/2))
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

// RetryNotice is the one line the user sees for a retry, e.g. "server
// error 500 from openai, retrying in 2s (1/3)": what failed, where, how
// long the wait is and how many tries are left.
func RetryNotice(err error, attempt, maxRetries int, wait time.Duration) string {
	what := "error"
	var le *Error
	if errors.As(err, &le) {
		what = le.Kind.String()
		if le.Status != 0 {
			what += fmt.Sprintf(" %d", le.Status)
		}
		switch {
		case le.Kind == KindUnreachable:
			// Only one quick retry for a server that is not answering.
			maxRetries = min(maxRetries, unreachableRetries)
			what = "cannot reach " + cmp.Or(le.API, "the server")
		case le.API != "":
			what += " from " + le.API
		}
	}
	return fmt.Sprintf("%s, retrying in %s (%d/%d)", what, roundWait(wait), attempt, maxRetries)
}

// roundWait shows whole seconds, or tenths below ten seconds when the wait
// is not whole ("0.5s", "1.3s", "12s").
func roundWait(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
