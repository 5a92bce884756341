package telegram

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/latency"
	"github.com/askygo/asky/internal/turn"
)

// roundTrips measures n chat questions through the fake Bot API: time
// from the update being available to the first status message and to the
// answer (the status is shown at once: StatusDelay is a nanosecond).
func roundTrips(tb testing.TB, api *fakeAPI, first, n int) (status, final []time.Duration) {
	tb.Helper()
	for i := range n {
		id := first + i
		began := time.Now()
		api.push(id, 42, 42, "ping", nil)
		var st time.Time
		deadline := began.Add(10 * time.Second)
		for {
			var done bool
			for _, c := range api.sent(42) {
				if c.At.Before(began) {
					continue
				}
				switch t := c.Params["text"]; {
				case strings.HasPrefix(t, "⏳") && st.IsZero():
					st = c.At
				case strings.HasPrefix(t, "echo: ping"):
					if st.IsZero() {
						tb.Fatalf("answer %d came without a status", id)
					}
					status, final = append(status, st.Sub(began)), append(final, c.At.Sub(began))
					done = true
				}
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("no answer to update %d: %+v", id, api.sent(42))
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	return status, final
}

// The Telegram transport adds little over the HTTP transport from a
// question to its answer (median of 15, against the fake Bot API). As
// for XMPP the 20 ms target is measured by BenchmarkChatAnswer; this test
// only guards against a regression an order of magnitude worse.
func TestLatencyOverheadOverHTTP(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", func(o *Options) { o.StatusDelay = time.Nanosecond })
	roundTrips(t, api, 1, 2) // warm up
	status, final := roundTrips(t, api, 3, 15)
	base := latency.Median(latency.HTTPRoundTrips(t, runnerFunc(echo), 15))
	t.Logf("telegram: first status %s, answer %s; http answer %s", latency.Median(status), latency.Median(final), base)
	if over := latency.Median(final) - base; over > 250*time.Millisecond {
		t.Fatalf("Telegram answer overhead %s over HTTP's %s (guard 250ms; target 20ms, see BenchmarkChatAnswer)", over, base)
	}
}

// Ten chats asking at once are answered in parallel: ten 300 ms answers
// take well under ten times that.
func TestParallelChatsDoNotSerialize(t *testing.T) {
	api := newFake(t)
	slow := runnerFunc(func(_ context.Context, a daemon.Ask) (*turn.Result, error) {
		time.Sleep(300 * time.Millisecond)
		return &turn.Result{Answer: "done " + a.Conversation}, nil
	})
	start(t, api, slow, "", nil)
	began := time.Now()
	for i := range 10 {
		api.push(i+1, 42, int64(1000+i), "q", nil)
	}
	for i := range 10 {
		waitSent(t, api, int64(1000+i), 1)
	}
	if took := time.Since(began); took > 1500*time.Millisecond {
		t.Fatalf("10 chats took %s: answered one after another", took)
	}
}

// BenchmarkChatAnswer reports the time from a Telegram update to the
// first status message and to the answer, and the HTTP transport's time
// for the same question (`go test -bench ChatAnswer -benchtime 20x`).
func BenchmarkChatAnswer(b *testing.B) {
	api := newFake(b)
	start(b, api, runnerFunc(echo), "", func(o *Options) { o.StatusDelay = time.Nanosecond })
	roundTrips(b, api, 1, 2) // warm up
	b.ResetTimer()
	status, final := roundTrips(b, api, 3, b.N)
	b.StopTimer()
	b.ReportMetric(float64(latency.Median(status).Microseconds())/1000, "ms/first-status")
	b.ReportMetric(float64(latency.Median(final).Microseconds())/1000, "ms/answer")
	b.ReportMetric(float64(latency.Median(latency.HTTPRoundTrips(b, runnerFunc(echo), 20)).Microseconds())/1000, "ms/http-answer")
}
