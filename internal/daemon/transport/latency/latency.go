// Package latency holds what the chat transports' latency tests and
// benchmarks share: the HTTP transport's round trip for the same
// question, the baseline a chat transport's overhead is measured against.
package latency

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
	httpapi "github.com/askygo/asky/internal/daemon/transport/http"
)

// HTTPRoundTrips measures n questions over the HTTP transport answered by
// r, on 127.0.0.1.
func HTTPRoundTrips(tb testing.TB, r daemon.Runner, n int) []time.Duration {
	tb.Helper()
	srv := httpapi.New(httpapi.Options{Service: daemon.NewService(r, 0), Rate: rate.Inf, Burst: 1000})
	ts := httptest.NewUnstartedServer(srv.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
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
			tb.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			tb.Fatalf("http %d", resp.StatusCode)
		}
		out = append(out, time.Since(began))
	}
	return out
}

// Median is the middle duration of d.
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
