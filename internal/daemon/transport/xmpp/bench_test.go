package xmpp

import (
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon/transport/latency"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
)

// roundTrips measures n chat questions: time to the first status line and
// to the answer, as a client sees them through Prosody.
func roundTrips(t testing.TB, f *fixture, c *xmpptest.Client, n int) (status, final []time.Duration) {
	for range n {
		began := time.Now()
		c.Send(xmpptest.JID("bot"), "ping")
		first := c.Next(10 * time.Second)
		status = append(status, time.Since(began))
		if !strings.HasPrefix(first.Body, "⏳") {
			t.Fatalf("first message %q is not a status", first.Body)
		}
		for {
			m := c.Next(10 * time.Second)
			if m.Replace == "" {
				final = append(final, time.Since(began))
				break
			}
		}
	}
	return status, final
}

// The XMPP transport adds little over the HTTP transport from a question
// to its answer (median of 15, through a real Prosody). The 20 ms target
// is measured by BenchmarkChatAnswer; this test only guards against a
// regression an order of magnitude worse (a lost wake-up, a serialized
// queue), so a loaded CI machine cannot make it flake.
func TestLatencyOverheadOverHTTP(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	roundTrips(t, f, alice, 2) // warm up
	status, final := roundTrips(t, f, alice, 15)
	base := latency.Median(latency.HTTPRoundTrips(t, runnerFunc(echo), 15))
	t.Logf("xmpp: first status %s, answer %s; http answer %s", latency.Median(status), latency.Median(final), base)
	if over := latency.Median(final) - base; over > 250*time.Millisecond {
		t.Fatalf("XMPP answer overhead %s over HTTP's %s (guard 250ms; target 20ms, see BenchmarkChatAnswer)", over, base)
	}
}

// BenchmarkChatAnswer reports the time from a chat message to the first
// status line and to the answer, and the HTTP transport's time for the
// same question (`go test -bench ChatAnswer -benchtime 20x`).
func BenchmarkChatAnswer(b *testing.B) {
	f := startBench(b)
	alice := f.p.Connect(b, "alice", "alicepw")
	b.ResetTimer()
	status, final := roundTrips(b, f, alice, b.N)
	b.StopTimer()
	b.ReportMetric(float64(latency.Median(status).Microseconds())/1000, "ms/first-status")
	b.ReportMetric(float64(latency.Median(final).Microseconds())/1000, "ms/answer")
	b.ReportMetric(float64(latency.Median(latency.HTTPRoundTrips(b, runnerFunc(echo), 20)).Microseconds())/1000, "ms/http-answer")
}
