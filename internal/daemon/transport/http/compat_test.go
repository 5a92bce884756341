package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// These tests pin the wire details real OpenAI clients depend on (checked
// against the openai Python SDK and the llm CLI by `make compat-clients`).

// apiErr decodes an OpenAI error body; param and code must be present
// (null or a string), as the SDKs read them.
func apiErr(t *testing.T, body string) (typ, code, param string) {
	t.Helper()
	var e struct {
		Error map[string]any
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e.Error[k]; !ok {
			t.Fatalf("error body %q has no %q", body, k)
		}
	}
	s := func(k string) string { v, _ := e.Error[k].(string); return v }
	return s("type"), s("code"), s("param")
}

// With stream_options.include_usage, OpenAI ends the stream with a chunk
// whose choices are empty and whose usage is set, after the
// finish_reason chunk: the SDK's stream helper and llm read usage there.
func TestStreamIncludeUsage(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{})
	content, chunks := streamChat(t, srv, `{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`)
	if content != "Paris" || len(chunks) < 3 {
		t.Fatalf("content %q, %d chunks", content, len(chunks))
	}
	last, fin := chunks[len(chunks)-1], chunks[len(chunks)-2]
	if len(last.Choices) != 0 || last.Usage == nil || last.Usage.Total != 15 {
		t.Fatalf("usage chunk %+v", last)
	}
	if len(fin.Choices) != 1 || fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "stop" || fin.Usage != nil {
		t.Fatalf("finish chunk %+v", fin)
	}
	for _, c := range chunks[:len(chunks)-1] {
		if c.Usage != nil {
			t.Fatalf("usage before the last chunk: %+v", c)
		}
	}
}

// The raw framing curl and every SSE parser see: "data: {json}\n\n"
// events, "data: [DONE]\n\n" last, nothing else.
func TestStreamFraming(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{})
	resp, body := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get(RequestIDHeader) == "" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	if !strings.HasSuffix(body, "}\n\ndata: [DONE]\n\n") {
		t.Fatalf("end %q", body[max(0, len(body)-60):])
	}
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data: ") || strings.Contains(ev, "\n") {
			t.Fatalf("event %q", ev)
		}
	}
}

// Every response, errors and health included, carries a request id that
// the log names too.
func TestRequestID(t *testing.T) {
	var log strings.Builder
	var mu sync.Mutex
	srv := newServer(t, &fakeRunner{}, Options{Token: "t", Log: lockedWriter{&mu, &log}})
	ids := map[string]bool{}
	for _, r := range [][3]string{{"GET", "/v1/health", ""}, {"GET", "/v1/models", "t"}, {"GET", "/v1/models", "wrong"}} {
		resp, _ := do(t, r[0], srv.URL+r[1], r[2], "")
		id := resp.Header.Get(RequestIDHeader)
		if !strings.HasPrefix(id, "req_") || ids[id] {
			t.Fatalf("%s %s: request id %q", r[0], r[1], id)
		}
		ids[id] = true
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range ids {
		if !strings.Contains(log.String(), " "+id) {
			t.Fatalf("log misses %s:\n%s", id, log.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// What asky cannot honour is refused with 400 naming the parameter;
// fields it accepts without applying are named in IgnoredHeader (sampling
// parameters are applied: sampling_test.go).
func TestChatParameters(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	for param, body := range map[string]string{
		"n":               `{"n":2,"messages":[{"role":"user","content":"x"}]}`,
		"tools":           `{"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"x"}]}`,
		"response_format": `{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}`,
		"logprobs":        `{"logprobs":true,"messages":[{"role":"user","content":"x"}]}`,
	} {
		resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", body)
		if typ, code, p := apiErr(t, b); resp.StatusCode != 400 || typ != "invalid_request_error" || code != "unsupported_parameter" || p != param {
			t.Errorf("%s: %d %s", param, resp.StatusCode, b)
		}
	}
	if len(fr.asks) != 0 {
		t.Fatalf("a refused request ran: %+v", fr.asks)
	}
	resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "",
		`{"n":1,"temperature":0.2,"max_tokens":9,"top_p":null,"seed":1,"tools":[],"response_format":{"type":"text"},"verbosity":null,"service_tier":"auto","top_logprobs":2,"messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get(IgnoredHeader) != "service_tier, top_logprobs" {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get(IgnoredHeader), b)
	}
	if resp, _ := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"messages":[{"role":"user","content":"x"}]}`); resp.Header.Get(IgnoredHeader) != "" {
		t.Fatalf("ignored %q", resp.Header.Get(IgnoredHeader))
	}
}

// The SDKs pick their exception from the status: an unknown model must be
// 404 (NotFoundError, code model_not_found), a provider that rate limits
// asky 429 with Retry-After (RateLimitError), a failed provider 502, a
// too-long prompt 400 context_length_exceeded.
func TestTurnErrorStatuses(t *testing.T) {
	unknown := &daemon.RequestError{Err: &config.UnknownAliasError{Alias: "nope", Aliases: []string{"fake"}}, Hint: "GET /v1/models lists the aliases"}
	for _, c := range []struct {
		name        string
		err         error
		status      int
		code, param string
		retryAfter  string
		noRetry     bool
	}{
		{"unknown model", unknown, 404, "model_not_found", "model", "", false},
		{"default model misconfigured", &config.UnknownAliasError{Alias: "x", From: "general.default_model"}, 500, "", "", "", true},
		{"upstream 429", fmt.Errorf("turn: %w", &llm.Error{Kind: llm.KindRateLimit, Status: 429, RetryAfter: 1500 * time.Millisecond}), 429, "upstream_rate_limited", "", "2", false},
		{"upstream 429 without Retry-After", &llm.Error{Kind: llm.KindRateLimit, Status: 429}, 429, "upstream_rate_limited", "", "1", false},
		{"context overflow", &llm.Error{Kind: llm.KindContextOverflow}, 400, "context_length_exceeded", "messages", "", false},
		{"provider down", &llm.Error{Kind: llm.KindUnreachable}, 502, "", "", "", true},
		{"busy", fmt.Errorf("c: %w", daemon.ErrBusy), 429, "conversation_busy", "", "5", false},
		{"value the model's API refuses", &daemon.RequestError{Err: fmt.Errorf("x: %w", &llm.ParamError{Param: "temperature", Code: "decimal_above_max_value", Message: "too hot"})},
			400, "decimal_above_max_value", "temperature", "", false},
		{"asky", errors.New("disk full"), 500, "", "", "", true},
	} {
		srv := newServer(t, &fakeRunner{err: c.err}, Options{})
		for _, stream := range []string{"false", "true"} {
			resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"model":"nope","stream":`+stream+`,"messages":[{"role":"user","content":"x"}]}`)
			_, code, param := apiErr(t, b)
			// X-Should-Retry: false keeps the SDKs from running (and
			// paying for) the whole turn again after asky's own retries.
			noRetry := resp.Header.Get("X-Should-Retry") == "false"
			if resp.StatusCode != c.status || code != c.code || param != c.param || resp.Header.Get("Retry-After") != c.retryAfter || noRetry != c.noRetry {
				t.Errorf("%s (stream %s): %d Retry-After %q %s", c.name, stream, resp.StatusCode, resp.Header.Get("Retry-After"), b)
			}
		}
	}
}

// models.retrieve(id): GET /v1/models/{id}, 404 model_not_found for an
// unknown alias.
func TestModelRetrieve(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{Token: "t"})
	resp, b := do(t, "GET", srv.URL+"/v1/models/claude", "t", "")
	var m struct{ ID, Object string }
	if resp.StatusCode != 200 || json.Unmarshal([]byte(b), &m) != nil || m.ID != "claude" || m.Object != "model" {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b = do(t, "GET", srv.URL+"/v1/models/nope", "t", "")
	if _, code, _ := apiErr(t, b); resp.StatusCode != 404 || code != "model_not_found" {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if resp, _ := do(t, "GET", srv.URL+"/v1/models/claude", "", ""); resp.StatusCode != 401 {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}

// Unknown endpoints and methods answer in the OpenAI error shape, so an
// SDK's NotFoundError says what asky serves.
func TestUnknownEndpointJSON(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{Token: "t"})
	resp, b := do(t, "POST", srv.URL+"/v1/embeddings", "t", `{"input":"x"}`)
	if typ, _, _ := apiErr(t, b); resp.StatusCode != 404 || typ != "not_found" || !strings.Contains(b, "/v1/chat/completions") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b = do(t, "GET", srv.URL+"/v1/chat/completions", "t", "")
	if typ, _, _ := apiErr(t, b); resp.StatusCode != 405 || typ != "invalid_request_error" || resp.Header.Get("Allow") == "" ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, b)
	}
}

// A client that hangs up mid-stream cancels the turn (the engine saves it
// as interrupted) and frees the conversation for the next question.
func TestStreamClientDisconnect(t *testing.T) {
	var once sync.Once
	started := make(chan struct{})
	canceled := make(chan error, 1)
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		if a.Question == "again" {
			return &turn.Result{Answer: "yes", Model: "fake"}, nil
		}
		a.Events(turn.Event{Kind: turn.EventText, Text: "Par"})
		once.Do(func() { close(started) })
		<-ctx.Done()
		canceled <- ctx.Err()
		return nil, ctx.Err()
	})
	srv := newServer(t, r, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/chat/completions",
		strings.NewReader(`{"user":"c","stream":true,"messages":[{"role":"user","content":"x"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	resp.Body.Close()
	select {
	case err := <-canceled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("turn ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn was not canceled when the client left")
	}
	if resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"user":"c","messages":[{"role":"user","content":"again"}]}`); resp.StatusCode != 200 {
		t.Fatalf("next question in the conversation: %d %s", resp.StatusCode, b)
	}
}

type runnerFunc func(ctx context.Context, a daemon.Ask) (*turn.Result, error)

func (f runnerFunc) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) { return f(ctx, a) }
