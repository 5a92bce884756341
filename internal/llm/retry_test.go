package llm

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// scripted is a Client that returns errs in order, then a response.
type scripted struct {
	errs  []error
	calls int
}

func (s *scripted) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	s.calls++
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return nil, err
	}
	return &Response{Message: Message{Role: RoleAssistant, Content: "ok"}}, nil
}

func TestRetry(t *testing.T) {
	server := &Error{Kind: KindServer}
	cases := []struct {
		name  string
		errs  []error
		max   int
		calls int
		waits []time.Duration
		ok    bool // the call finally succeeds
		fail  Kind // else the kind of the error returned
	}{
		{name: "server errors back off exponentially, capped", errs: []error{server, server, server, server, server}, max: 5, calls: 6,
			waits: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 3 * time.Second, 3 * time.Second}, ok: true},
		{name: "gives up after MaxRetries", errs: []error{server, server, server}, max: 2, calls: 3,
			waits: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, fail: KindServer},
		{name: "Retry-After honoured", errs: []error{&Error{Kind: KindRateLimit, RetryAfter: 2 * time.Second}}, max: 3, calls: 2,
			waits: []time.Duration{2 * time.Second}, ok: true},
		{name: "Retry-After capped at Max", errs: []error{&Error{Kind: KindRateLimit, RetryAfter: time.Hour}}, max: 3, calls: 2,
			waits: []time.Duration{4 * time.Second}, ok: true},
		{name: "never after streaming started", errs: []error{&Error{Kind: KindServer, Streamed: true}}, max: 3, calls: 1, fail: KindServer},
		{name: "401 not retried", errs: []error{&Error{Kind: KindAuth, Status: 401}}, max: 3, calls: 1, fail: KindAuth},
		{name: "truncation not retried", errs: []error{&Error{Kind: KindTruncated}}, max: 3, calls: 1, fail: KindTruncated},
		{name: "plain errors not retried", errs: []error{errors.New("boom")}, max: 3, calls: 1, fail: KindUnknown},
		{name: "unreachable retried once, quickly", errs: []error{&Error{Kind: KindUnreachable}, &Error{Kind: KindUnreachable}}, max: 10, calls: 2,
			waits: []time.Duration{500 * time.Millisecond}, fail: KindUnreachable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var waits, seen []time.Duration
			inner := &scripted{errs: tc.errs}
			c := WithRetry(inner, RetryPolicy{MaxRetries: tc.max, Initial: time.Second, Max: 4 * time.Second,
				Jitter:  func() float64 { return 0.5 },
				OnRetry: func(_ int, d time.Duration, _ error) { seen = append(seen, d) },
				Sleep:   func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
			resp, err := c.Chat(context.Background(), Request{}, nil)
			if inner.calls != tc.calls {
				t.Errorf("%d calls, want %d", inner.calls, tc.calls)
			}
			if !reflect.DeepEqual(waits, tc.waits) || !reflect.DeepEqual(seen, tc.waits) {
				t.Errorf("waits %v (OnRetry %v), want %v", waits, seen, tc.waits)
			}
			if tc.ok {
				if err != nil || resp.Message.Content != "ok" {
					t.Errorf("resp %+v err %v", resp, err)
				}
			} else if err == nil || KindOf(err) != tc.fail {
				t.Errorf("err = %v, want kind %v", err, tc.fail)
			}
		})
	}
}

func TestRetryCanceledWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	inner := &scripted{errs: []error{&Error{Kind: KindRateLimit, RetryAfter: time.Minute}}}
	c := WithRetry(inner, RetryPolicy{MaxRetries: 3, Initial: time.Second, Max: time.Hour})
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Chat(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || inner.calls != 1 {
		t.Errorf("err = %v after %d calls", err, inner.calls)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("cancel did not interrupt the wait")
	}
}

func TestJitterRange(t *testing.T) {
	p := RetryPolicy{Initial: time.Second, Max: 8 * time.Second, Jitter: func() float64 { return 0.999 }}
	for attempt, max := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 6: 8 * time.Second} {
		d := p.backoff(attempt, &Error{Kind: KindServer})
		if d < max/2 || d > max {
			t.Errorf("attempt %d: %v outside [%v, %v]", attempt, d, max/2, max)
		}
	}
}

func TestRetryBudget(t *testing.T) {
	// Waits of 2, 4, 8 s fit a 10 s budget only up to 6 s: the third
	// retry would overrun it, so the call gives up after two.
	server := &Error{Kind: KindServer}
	inner := &scripted{errs: []error{server, server, server, server}}
	var waits []time.Duration
	c := WithRetry(inner, RetryPolicy{MaxRetries: 10, Initial: 2 * time.Second, Max: time.Minute, Budget: 10 * time.Second,
		Jitter: func() float64 { return 0.999999 },
		Sleep:  func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	if _, err := c.Chat(context.Background(), Request{}, nil); KindOf(err) != KindServer {
		t.Fatalf("err = %v", err)
	}
	if inner.calls != 3 || len(waits) != 2 {
		t.Errorf("%d calls, waits %v; want 3 calls and 2 waits", inner.calls, waits)
	}
	// A Retry-After longer than the whole budget is not waited for.
	inner = &scripted{errs: []error{&Error{Kind: KindRateLimit, RetryAfter: time.Minute}}}
	c = WithRetry(inner, RetryPolicy{MaxRetries: 3, Max: time.Hour, Budget: 30 * time.Second,
		Sleep: func(context.Context, time.Duration) error { t.Error("waited past the budget"); return nil }})
	if _, err := c.Chat(context.Background(), Request{}, nil); KindOf(err) != KindRateLimit || inner.calls != 1 {
		t.Errorf("err = %v after %d calls", err, inner.calls)
	}
}

func TestRetryNotice(t *testing.T) {
	for _, tc := range []struct {
		err  error
		n    int
		wait time.Duration
		want string
	}{
		{&Error{Kind: KindServer, Status: 500, API: "local"}, 1, 2 * time.Second, "server error 500 from local, retrying in 2s (1/3)"},
		{&Error{Kind: KindRateLimit, Status: 429, API: "openai"}, 2, 1500 * time.Millisecond, "rate limited 429 from openai, retrying in 1.5s (2/3)"},
		{&Error{Kind: KindUnreachable, API: "ollama"}, 1, 500 * time.Millisecond, "cannot reach ollama, retrying in 500ms (1/1)"},
		{&Error{Kind: KindServer, Status: 503, API: "x"}, 3, 12345 * time.Millisecond, "server error 503 from x, retrying in 12s (3/3)"},
	} {
		if got := RetryNotice(tc.err, tc.n, 3, tc.wait); got != tc.want {
			t.Errorf("RetryNotice = %q, want %q", got, tc.want)
		}
	}
}
