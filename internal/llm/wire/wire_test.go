package wire

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/llm"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{}, 0},
	}
	for _, tc := range cases {
		if got := RetryAfter(tc.h, now); got != tc.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestProviderMessage(t *testing.T) {
	cases := map[string]string{
		`{"error":{"message":"Invalid key","type":"invalid_request_error"}}`:          "Invalid key",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":"model \"llama9\" not found, try pulling it first"}`:                `model "llama9" not found, try pulling it first`,
		`{"object":"error","message":"max_tokens is too large","code":400}`:           "max_tokens is too large",
		`{"detail":"Not Found"}`:                               "Not Found",
		`{"detail":[{"loc":["body"],"msg":"field required"}]}`: `[{"loc":["body"],"msg":"field required"}]`,
		"<html><body><h1>502 Bad Gateway</h1></body></html>":   "",
		"upstream timed out\nsecond line":                      "upstream timed out",
		"\x1b]52;c;ZXZpbA==\x07 evil":                          "]52;c;ZXZpbA==  evil",
		"":                                                     "",
	}
	for body, want := range cases {
		if got := ProviderMessage([]byte(body)); got != want {
			t.Errorf("ProviderMessage(%q) = %q, want %q", body, got, want)
		}
	}
	if got := ProviderMessage([]byte(`{"error":{"message":"` + strings.Repeat("x", 1000) + `"}}`)); len([]rune(got)) != 301 {
		t.Errorf("long message not clipped: %d runes", len([]rune(got)))
	}
}

func TestIsContextOverflow(t *testing.T) {
	for _, body := range []string{
		`{"error":{"code":"context_length_exceeded"}}`,
		"This model's maximum context length is 4096 tokens",
		"prompt is too long: 250000 tokens > 200000 maximum",
		"the request exceeds the available context size, try increasing it",
		"Input is too long for requested model",
	} {
		if !IsContextOverflow(body) {
			t.Errorf("not recognised: %q", body)
		}
	}
	if IsContextOverflow(`{"error":{"message":"temperature out of range"}}`) {
		t.Error("false positive")
	}
}

func TestTraceRedactsKey(t *testing.T) {
	const key = "sk-live-SECRET-abcdef"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		// The key echoed back, split across two writes.
		_, _ = w.Write([]byte("data: {\"echo\":\"sk-live-SEC"))
		fl.Flush()
		_, _ = w.Write([]byte("RET-abcdef\"}\n\ndata: [DONE]\n\n"))
	}))
	defer hs.Close()
	var trace bytes.Buffer
	ep := &Endpoint{Name: "openai", BaseURL: hs.URL, Secret: key, Trace: &trace,
		Headers: map[string]string{"Authorization": "Bearer " + key, "X-Custom": "visible"}}
	s, err := ep.Post(context.Background(), "/chat/completions", map[string]any{"model": "m", "note": "key is " + key})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := s.Next(false); err != nil {
			break
		}
	}
	s.Close()
	out := trace.String()
	if strings.Contains(out, "SECRET") {
		t.Fatalf("trace leaks the key:\n%s", out)
	}
	for _, want := range []string{"-> POST " + hs.URL + "/chat/completions", "Authorization: [redacted]", "X-Custom: visible",
		`"model": "m"`, "<- 200 OK", `data: {"echo":"[redacted]"}`, "data: [DONE]"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

// A short placeholder key ("x", "ollama") is redacted where it is sent,
// not wherever its letters appear: the trace stays readable.
func TestTraceShortKey(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"index":0,"text":"x marks the spot"}`))
	}))
	defer hs.Close()
	var trace bytes.Buffer
	ep := &Endpoint{Name: "openai", BaseURL: hs.URL, Secret: "x", Trace: &trace,
		Headers: map[string]string{"Authorization": "Bearer x"}}
	s, err := ep.Post(context.Background(), "/chat/completions?key=x&api-version=2024&mode=x", map[string]any{"model": "index"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.ReadAll()
	s.Close()
	out := trace.String()
	for _, want := range []string{"Authorization: [redacted]", `"model": "index"`, `"index":0,"text":"x marks the spot"`,
		"api-version=2024", "key=[redacted]", "mode=[redacted]"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[redacted]marks") || strings.Contains(out, "inde[redacted]") {
		t.Errorf("short key redacted as a substring:\n%s", out)
	}
}

func TestHTTPSToPlainServer(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hs.Close()
	ep := &Endpoint{Name: "openai", BaseURL: strings.Replace(hs.URL, "http://", "https://", 1)}
	_, err := ep.Post(context.Background(), "/chat/completions", map[string]any{})
	if llm.KindOf(err) != llm.KindUnreachable || !strings.Contains(err.Error(), "plain HTTP") {
		t.Errorf("err = %v", err)
	}
}

// Errors hide a short key only where it stands as a word.
func TestRedactShortKeyInErrors(t *testing.T) {
	ep := &Endpoint{Secret: "bad-key"}
	for in, want := range map[string]string{
		"invalid key bad-key":         "invalid key [redacted]",
		"key 'bad-key', not bad-keys": "key '[redacted]', not bad-keys",
		"the bad-key-2 is fine":       "the bad-key-2 is fine",
	} {
		if got := ep.redact(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	ep.Secret = "x"
	if got := ep.redact("index x"); got != "index [redacted]" {
		t.Errorf("x: %q", got)
	}
}
