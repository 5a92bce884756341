package xmpp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/http"
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

// httpRoundTrips measures n questions over the HTTP transport with the
// same runner.
func httpRoundTrips(t testing.TB, n int) []time.Duration {
	srv := httpapi.New(httpapi.Options{Service: daemon.NewService(runnerFunc(echo), 0), Rate: rate.Inf, Burst: 1000})
	ts := httptest.NewUnstartedServer(srv.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.Listener = ln
	ts.Start()
	defer ts.Close()
	var out []time.Duration
	for range n {
		began := time.Now()
		resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"user":"bench","messages":[{"role":"user","content":"ping"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("http %d", resp.StatusCode)
		}
		out = append(out, time.Since(began))
	}
	return out
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
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
	base := median(httpRoundTrips(t, 15))
	t.Logf("xmpp: first status %s, answer %s; http answer %s", median(status), median(final), base)
	if over := median(final) - base; over > 250*time.Millisecond {
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
	b.ReportMetric(float64(median(status).Microseconds())/1000, "ms/first-status")
	b.ReportMetric(float64(median(final).Microseconds())/1000, "ms/answer")
	b.ReportMetric(float64(median(httpRoundTrips(b, 20)).Microseconds())/1000, "ms/http-answer")
}
