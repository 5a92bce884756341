package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// fakeRunner answers with a fixed text streamed in pieces and records
// the asks it got.
type fakeRunner struct {
	mu   sync.Mutex
	asks []daemon.Ask
	err  error
	// discard streams a preamble that is then discarded, as when the
	// model calls a tool.
	discard bool
	block   chan struct{}
	// saveErr makes the turn answer but fail to save.
	saveErr error
	// notSent is reported as EventIgnoredParameters before answering.
	notSent string
	// truncated answers as if cut at the output limit.
	truncated bool
}

func (f *fakeRunner) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
	f.mu.Lock()
	f.asks = append(f.asks, a)
	f.mu.Unlock()
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	emit := a.Events
	if emit == nil {
		emit = func(turn.Event) {}
	}
	if f.notSent != "" {
		emit(turn.Event{Kind: turn.EventIgnoredParameters, Text: f.notSent})
	}
	if f.discard {
		emit(turn.Event{Kind: turn.EventText, Text: "let me search"})
		emit(turn.Event{Kind: turn.EventTextDiscard})
		emit(turn.Event{Kind: turn.EventToolStart, Tool: "web_search"})
	}
	for _, p := range []string{"Par", "is"} {
		emit(turn.Event{Kind: turn.EventText, Text: p})
	}
	if f.saveErr != nil {
		return &turn.Result{Answer: "Paris", Model: "fake"}, &turn.SaveError{Err: f.saveErr}
	}
	return &turn.Result{Answer: "Paris", Model: "fake", HistoryID: 7, SessionID: 3, Truncated: f.truncated,
		Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

func (f *fakeRunner) last() daemon.Ask {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asks[len(f.asks)-1]
}

func newServer(t *testing.T, r daemon.Runner, o Options) *httptest.Server {
	t.Helper()
	o.Service = daemon.NewService(r, 1)
	o.Version = "test"
	o.Models = func() []Model {
		return []Model{{Alias: "fake", ID: "fake-model", Default: true}, {Alias: "claude", ID: "c"}}
	}
	o.AskResult = func(res *turn.Result) any { return map[string]any{"answer": res.Answer, "history_id": res.HistoryID} }
	srv := httptest.NewServer(New(o).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url, token, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func errType(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Error.Type
}

func TestAuth(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{Token: "s3cret"})
	// Health needs no token.
	resp, body := do(t, "GET", srv.URL+"/v1/health", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"version":"test"`) {
		t.Fatalf("health: %d %s", resp.StatusCode, body)
	}
	for name, tok := range map[string]string{"missing": "", "wrong": "s3cre", "longer": "s3cret2"} {
		resp, body := do(t, "GET", srv.URL+"/v1/models", tok, "")
		if resp.StatusCode != 401 || errType(t, body) != "unauthorized" || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("%s token: %d %s", name, resp.StatusCode, body)
		}
	}
	resp, body = do(t, "GET", srv.URL+"/v1/models", "s3cret", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":"fake"`) || !strings.Contains(body, `"id":"claude"`) {
		t.Fatalf("models: %d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS header set")
	}
}

func TestAuthFailuresAreRateLimited(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{Token: "s3cret", FailRate: rate.Every(time.Hour), FailBurst: 3})
	for i := range 3 {
		if resp, _ := do(t, "GET", srv.URL+"/v1/models", "bad", ""); resp.StatusCode != 401 {
			t.Fatalf("attempt %d: %d", i, resp.StatusCode)
		}
	}
	resp, body := do(t, "GET", srv.URL+"/v1/models", "bad", "")
	if resp.StatusCode != 429 || errType(t, body) != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after failures: %d %s", resp.StatusCode, body)
	}
	// Guessing stops being possible from that address until the limiter
	// refills, but the owner's valid token still gets through.
	if resp, _ := do(t, "GET", srv.URL+"/v1/models", "s3cret", ""); resp.StatusCode != 200 {
		t.Fatalf("right token while guesses are limited: %d", resp.StatusCode)
	}
}

func TestRequestRateLimit(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{Rate: rate.Every(time.Hour), Burst: 2})
	for range 2 {
		if resp, _ := do(t, "GET", srv.URL+"/v1/models", "", ""); resp.StatusCode != 200 {
			t.Fatalf("%d", resp.StatusCode)
		}
	}
	resp, body := do(t, "GET", srv.URL+"/v1/models", "", "")
	if resp.StatusCode != 429 || errType(t, body) != "rate_limited" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestHostHeader(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{AllowedHosts: []string{"asky.lan"}})
	for host, want := range map[string]int{
		"localhost:8765": 200, "127.0.0.1": 200, "[::1]:8765": 200, "ASKY.lan:80": 200,
		"evil.example": 403, "127.0.0.1.nip.io": 403, "localhost.evil.example:8765": 403,
	} {
		resp, body := do(t, "GET", srv.URL+"/v1/health", "", "", "Host", host)
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d %s", host, resp.StatusCode, body)
		}
		if want == 403 && errType(t, body) != "forbidden_host" {
			t.Errorf("Host %q: %s", host, body)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{})
	big := `{"question":"` + strings.Repeat("a", MaxBody) + `"}`
	for _, path := range []string{"/v1/ask", "/v1/chat/completions"} {
		resp, body := do(t, "POST", srv.URL+path, "", big)
		if resp.StatusCode != 413 || errType(t, body) != "request_too_large" {
			t.Fatalf("%s: %d %.200s", path, resp.StatusCode, body)
		}
	}
}

func TestAskContract(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	resp, body := do(t, "POST", srv.URL+"/v1/ask", "", `{"question":" capital of france ","model":"claude","conversation":"trip","lean":true}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if strings.TrimSpace(body) != `{"answer":"Paris","history_id":7}` {
		t.Fatalf("body %s", body)
	}
	a := fr.last()
	if a.Question != "capital of france" || a.Model != "claude" || a.Conversation != "http:trip" || !a.Lean {
		t.Fatalf("ask %+v", a)
	}
	for name, tc := range map[string]struct {
		body   string
		status int
	}{
		"unknown field":  {`{"question":"x","temprature":1}`, 400},
		"no question":    {`{"model":"fake"}`, 400},
		"not json":       {`question=x`, 400},
		"bad name":       {`{"question":"x","conversation":"a\nb"}`, 400},
		"C1 control":     {`{"question":"x","conversation":"a\u009bb"}`, 400},
		"line separator": {`{"question":"x","conversation":"a\u2028b"}`, 400},
	} {
		if resp, body := do(t, "POST", srv.URL+"/v1/ask", "", tc.body); resp.StatusCode != tc.status {
			t.Errorf("%s: %d %s", name, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, "GET", srv.URL+"/v1/ask", "", ""); resp.StatusCode != 405 {
		t.Errorf("GET /v1/ask: %d", resp.StatusCode)
	}
}

func TestTurnErrors(t *testing.T) {
	fr := &fakeRunner{err: &daemon.RequestError{Err: errors.New(`unknown model alias "x"`), Hint: "GET /v1/models lists the aliases"}}
	srv := newServer(t, fr, Options{})
	resp, body := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"model":"x","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	// Nothing streamed yet: a real status, not a 200 stream.
	if resp.StatusCode != 400 || errType(t, body) != "invalid_request_error" || !strings.Contains(body, "/v1/models") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	fr.err = errors.New("provider down")
	if resp, body := do(t, "POST", srv.URL+"/v1/ask", "", `{"question":"x"}`); resp.StatusCode != 500 || errType(t, body) != "asky_error" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestBusyConversation(t *testing.T) {
	fr := &fakeRunner{block: make(chan struct{})}
	o := Options{}
	o.Service = daemon.NewService(fr, 1)
	o.AskResult = func(res *turn.Result) any { return res.Answer }
	srv := httptest.NewServer(New(o).Handler())
	defer srv.Close()
	codes := make(chan int, 2)
	for range 2 { // one running, one waiting
		go func() {
			resp, _ := do(t, "POST", srv.URL+"/v1/ask", "", `{"question":"x","conversation":"c"}`)
			codes <- resp.StatusCode
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for o.Service.Waiting("http:c") != 2 {
		if time.Now().After(deadline) {
			t.Fatal("asks never queued")
		}
		time.Sleep(time.Millisecond)
	}
	resp, body := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"user":"c","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 429 || errType(t, body) != "busy" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	close(fr.block)
	for range 2 {
		if c := <-codes; c != 200 {
			t.Fatalf("queued ask: %d", c)
		}
	}
}

func TestChatCompletionsJSON(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	req := `{"model":"fake","temperature":0.2,"messages":[
		{"role":"system","content":"answer briefly"},
		{"role":"user","content":"hello"},
		{"role":"assistant","content":"hi"},
		{"role":"user","content":[{"type":"text","text":"capital of "},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"france"}]}]}`
	resp, body := do(t, "POST", srv.URL+"/v1/chat/completions", "", req)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var out struct {
		ID      string
		Object  string
		Model   string
		Choices []struct {
			Index        int
			FinishReason string `json:"finish_reason"`
			Message      struct{ Role, Content string }
		}
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Total      int `json:"total_tokens"`
		}
		Asky struct {
			HistoryID int64 `json:"history_id"`
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.ID, "chatcmpl-") || out.Object != "chat.completion" || out.Model != "fake" || len(out.Choices) != 1 ||
		out.Choices[0].Message.Role != "assistant" || out.Choices[0].Message.Content != "Paris" || out.Choices[0].FinishReason != "stop" ||
		out.Usage.Prompt != 10 || out.Usage.Completion != 5 || out.Usage.Total != 15 || out.Asky.HistoryID != 7 {
		t.Fatalf("%+v", out)
	}
	a := fr.last()
	if a.Question != "capital of france" || a.Instructions != "answer briefly" || a.Conversation != "" || len(a.History) != 2 ||
		a.History[0].Role != llm.RoleUser || a.History[1].Content != "hi" {
		t.Fatalf("ask %+v", a)
	}
	// The conversation header wins over "user".
	do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"user":"u","messages":[{"role":"user","content":"x"}]}`, ConversationHeader, "h")
	if c := fr.last().Conversation; c != "http:h" {
		t.Fatalf("conversation %q", c)
	}
	for name, body := range map[string]string{
		"no messages":     `{"messages":[]}`,
		"last not user":   `{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}`,
		"empty question":  `{"messages":[{"role":"user","content":"  "}]}`,
		"bad content":     `{"messages":[{"role":"user","content":42}]}`,
		"long conversion": `{"user":"` + strings.Repeat("u", 65) + `","messages":[{"role":"user","content":"x"}]}`,
	} {
		if resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", body); resp.StatusCode != 400 {
			t.Errorf("%s: %d %s", name, resp.StatusCode, b)
		}
	}
}

// sseEvents reads a text/event-stream body: the data of each event.
func sseEvents(t *testing.T, r io.Reader) []string {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(r)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				events = append(events, strings.Join(data, "\n"))
				data = nil
			}
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if data != nil {
		t.Fatalf("unterminated event %q", data)
	}
	return events
}

type chunk struct {
	ID      string
	Object  string
	Model   string
	Choices []struct {
		Delta        struct{ Role, Content string }
		FinishReason *string `json:"finish_reason"`
	}
	Usage *struct {
		Total int `json:"total_tokens"`
	}
}

func streamChat(t *testing.T, srv *httptest.Server, body string) (content string, chunks []chunk) {
	t.Helper()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := sseEvents(t, resp.Body)
	if len(events) < 3 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events %q", events)
	}
	for _, e := range events[:len(events)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %q: %v", e, err)
		}
		// One choice per chunk, but for the usage chunk of
		// stream_options.include_usage, which has none.
		if c.Object != "chat.completion.chunk" || len(c.Choices) != 1 && c.Usage == nil || c.ID != chunks0ID(chunks, c.ID) {
			t.Fatalf("chunk %q", e)
		}
		for _, ch := range c.Choices {
			content += ch.Delta.Content
		}
		chunks = append(chunks, c)
	}
	return content, chunks
}

// chunks0ID returns the id every chunk must share.
func chunks0ID(chunks []chunk, id string) string {
	if len(chunks) > 0 {
		return chunks[0].ID
	}
	return id
}

func TestChatCompletionsStream(t *testing.T) {
	srv := newServer(t, &fakeRunner{}, Options{})
	content, chunks := streamChat(t, srv, `{"stream":true,"messages":[{"role":"user","content":"capital of france"}]}`)
	if content != "Paris" {
		t.Fatalf("content %q", content)
	}
	first, last := chunks[0], chunks[len(chunks)-1]
	if first.Choices[0].Delta.Role != "assistant" || first.Model != "fake" {
		t.Fatalf("first chunk %+v", first)
	}
	// Without stream_options.include_usage no chunk carries usage
	// (OpenAI's contract; clients that sum usage per chunk would count it).
	if last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "stop" || last.Usage != nil {
		t.Fatalf("last chunk %+v", last)
	}
	for _, c := range chunks[:len(chunks)-1] {
		if c.Choices[0].FinishReason != nil || c.Usage != nil {
			t.Fatalf("finish_reason or usage before the end: %+v", c)
		}
	}
}

// Text streamed before a tool call cannot be taken back; the answer that
// follows still streams, and nothing is sent twice.
func TestChatCompletionsStreamAfterDiscard(t *testing.T) {
	srv := newServer(t, &fakeRunner{discard: true}, Options{})
	content, _ := streamChat(t, srv, `{"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if content != "let me searchParis" {
		t.Fatalf("content %q", content)
	}
}

// A result whose answer never streamed is sent whole at the end.
type quietRunner struct{}

func (quietRunner) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
	a.Events(turn.Event{Kind: turn.EventText, Text: "<think>"})
	a.Events(turn.Event{Kind: turn.EventTextDiscard})
	return &turn.Result{Answer: "clean answer", Model: "fake"}, nil
}

func TestChatCompletionsStreamSendsUnstreamedAnswer(t *testing.T) {
	srv := newServer(t, quietRunner{}, Options{})
	content, _ := streamChat(t, srv, `{"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if !strings.HasSuffix(content, "clean answer") {
		t.Fatalf("content %q", content)
	}
}

// Serve stops on ctx: the running turn's context is canceled and its
// handler answers before Serve returns.
func TestServeCancelsTurnsOnShutdown(t *testing.T) {
	fr := &fakeRunner{block: make(chan struct{})}
	o := Options{Service: daemon.NewService(fr, 1), AskResult: func(r *turn.Result) any { return r.Answer }}
	s := New(o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := fmt.Sprintf("http://%s/v1/ask", ln.Addr())
	got := make(chan int, 1)
	go func() {
		resp, _ := do(t, "POST", url, "", `{"question":"long"}`)
		got <- resp.StatusCode
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		fr.mu.Lock()
		n := len(fr.asks)
		fr.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ask never ran")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if code := <-got; code != 503 {
		t.Fatalf("in-flight ask got %d", code)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// An answer that could not be saved is still returned (it was paid for),
// with the reason in X-Asky-Warning.
func TestUnsavedAnswerIsStillReturned(t *testing.T) {
	srv := newServer(t, &fakeRunner{saveErr: errors.New("database /d/asky.db: database or disk is full (13)")}, Options{})
	for _, path := range []string{"/v1/ask", "/v1/chat/completions"} {
		body := `{"question":"x"}`
		if path != "/v1/ask" {
			body = `{"messages":[{"role":"user","content":"x"}]}`
		}
		resp, b := do(t, "POST", srv.URL+path, "", body)
		if resp.StatusCode != 200 || !strings.Contains(b, "Paris") || !strings.Contains(resp.Header.Get("X-Asky-Warning"), "disk is full") {
			t.Errorf("%s: %d %s (warning %q)", path, resp.StatusCode, b, resp.Header.Get("X-Asky-Warning"))
		}
	}
}
