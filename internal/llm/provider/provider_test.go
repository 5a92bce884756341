package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/llmtest"
)

const testKey = "sk-test-CANARY-1234567890"

// sleeps records the retry waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

type fixture struct {
	srv    *llmtest.Server
	client llm.Client
	sleeps *sleeps
	trace  *bytes.Buffer
}

func newFixture(t *testing.T, typ string, o Options) *fixture {
	t.Helper()
	srv := llmtest.New()
	t.Cleanup(srv.Close)
	srv.RequireKey(testKey)
	f := &fixture{srv: srv, sleeps: &sleeps{}, trace: &bytes.Buffer{}}
	o.Sleep = f.sleeps.sleep
	o.Trace = f.trace
	if o.MaxRetries == 0 {
		o.MaxRetries = 2
	}
	m := &config.ResolvedModel{Alias: "fake", ID: "fake-model", APIName: "fake", Type: typ, BaseURL: srv.URL(), Key: config.Secret(testKey)}
	c, err := New(m, &http.Client{}, o)
	if err != nil {
		t.Fatal(err)
	}
	f.client = c
	return f
}

func (f *fixture) chat(t *testing.T, ctx context.Context) (*llm.Response, string, error) {
	t.Helper()
	var streamed strings.Builder
	resp, err := f.client.Chat(ctx, llm.Request{Model: "fake-model", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: "hi"}},
		Tools: []llm.ToolSpec{{Name: "web_search", Description: "search", Parameters: []byte(`{"type":"object"}`)}},
	}, func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			streamed.WriteString(d.Text)
		}
	})
	return resp, streamed.String(), err
}

var protocols = []string{"openai", "anthropic"}

func TestSuccess(t *testing.T) {
	for _, typ := range protocols {
		t.Run(typ, func(t *testing.T) {
			f := newFixture(t, typ, Options{})
			f.srv.Enqueue(
				llmtest.Response{Text: "# Title\n\nHello, wörld — streamed.", Reasoning: "let me think", Pieces: 5,
					Usage: &llm.Usage{PromptTokens: 42, CompletionTokens: 7}},
				llmtest.Response{Text: "Looking.", ToolCalls: []llmtest.ToolCall{
					{ID: "call_a", Name: "web_search", Arguments: `{"query":"go fuzzing","n":3}`},
					{Name: "fetch_url", Arguments: `{"urls":["https://go.dev"]}`}}, Pieces: 4},
			)
			resp, streamed, err := f.chat(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if want := "# Title\n\nHello, wörld — streamed."; resp.Message.Content != want || streamed != want {
				t.Errorf("content %q, streamed %q", resp.Message.Content, streamed)
			}
			if resp.FinishReason != "stop" || resp.Usage != (llm.Usage{PromptTokens: 42, CompletionTokens: 7}) || resp.UsageEstimated {
				t.Errorf("finish %q usage %+v estimated %v", resp.FinishReason, resp.Usage, resp.UsageEstimated)
			}
			resp, _, err = f.chat(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := []llm.ToolCall{{ID: "call_a", Name: "web_search", Arguments: `{"query":"go fuzzing","n":3}`},
				{ID: "call_2", Name: "fetch_url", Arguments: `{"urls":["https://go.dev"]}`}}
			if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[0] != want[0] || resp.Message.ToolCalls[1] != want[1] {
				t.Errorf("tool calls %+v, want %+v", resp.Message.ToolCalls, want)
			}
			if resp.FinishReason != "tool_calls" || resp.Message.Content != "Looking." {
				t.Errorf("finish %q content %q", resp.FinishReason, resp.Message.Content)
			}
			if strings.Contains(f.trace.String(), testKey) {
				t.Error("trace contains the key")
			}
			for _, want := range []string{"be brief", "web_search", "data: "} {
				if !strings.Contains(f.trace.String(), want) {
					t.Errorf("trace lacks %q:\n%s", want, f.trace)
				}
			}
		})
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name     string
		script   []llmtest.Response
		opts     Options
		kind     llm.Kind
		hits     int
		msg      string // substring of the error
		streamed bool
	}{
		{name: "auth", script: []llmtest.Response{{Status: 401, ErrorMessage: "Incorrect API key provided: " + testKey}},
			kind: llm.KindAuth, hits: 1, msg: "Incorrect API key"},
		{name: "forbidden", script: []llmtest.Response{{Status: 403}}, kind: llm.KindAuth, hits: 1},
		{name: "rate limit storm", script: []llmtest.Response{{Status: 429, RetryAfter: "1"}, {Status: 429, RetryAfter: "1"}, {Status: 429, RetryAfter: "1"}},
			kind: llm.KindRateLimit, hits: 3, msg: "HTTP 429"},
		{name: "server errors", script: []llmtest.Response{{Status: 500}, {Status: 503}, {Status: 500}}, kind: llm.KindServer, hits: 3},
		{name: "overloaded", script: []llmtest.Response{{Status: 529}, {Status: 529}, {Status: 529}}, kind: llm.KindServer, hits: 3},
		{name: "html 502", script: []llmtest.Response{{Status: 502, HTML: true}, {Status: 502, HTML: true}, {Status: 502, HTML: true}},
			kind: llm.KindServer, hits: 3, msg: "Bad Gateway"},
		{name: "context overflow", script: []llmtest.Response{{Status: 400, ErrorMessage: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."}},
			kind: llm.KindContextOverflow, hits: 1, msg: "context window"},
		{name: "prompt too long 413", script: []llmtest.Response{{Status: 413, ErrorMessage: "prompt is too long: 210000 tokens > 200000 maximum"}},
			kind: llm.KindContextOverflow, hits: 1},
		{name: "bad request", script: []llmtest.Response{{Status: 400, ErrorMessage: "temperature must be between 0 and 2"}},
			kind: llm.KindBadRequest, hits: 1, msg: "temperature must be between 0 and 2"},
		{name: "not found", script: []llmtest.Response{{Status: 404, ErrorMessage: "model 'nope' not found"}},
			kind: llm.KindBadRequest, hits: 1, msg: "model 'nope' not found"},
		{name: "malformed frame", script: []llmtest.Response{{Text: "abcdef", MalformedAt: 5}},
			kind: llm.KindBadResponse, hits: 1, msg: "malformed stream frame", streamed: true},
		{name: "malformed first frame", script: []llmtest.Response{{Text: "abcdef", MalformedAt: 1}},
			kind: llm.KindBadResponse, hits: 1, msg: "malformed stream frame"},
		{name: "truncated", script: []llmtest.Response{{Text: "The answer is partial and", TruncateAfter: 4}},
			kind: llm.KindTruncated, hits: 1, streamed: true},
		{name: "truncated tool call", script: []llmtest.Response{{ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: `{"query":"x"}`}}, TruncateAfter: 5}},
			kind: llm.KindTruncated, hits: 1, streamed: true},
		{name: "mid-stream error", script: []llmtest.Response{{Text: "Hello there", ErrorFrame: "upstream provider error"}},
			kind: llm.KindBadResponse, hits: 1, msg: "upstream provider error", streamed: true},
		{name: "stall", script: []llmtest.Response{{Text: "slow answer here", Pieces: 6, StallAfter: 5, Stall: llmtest.Duration(5 * time.Second)}},
			opts: Options{IdleTimeout: 400 * time.Millisecond}, kind: llm.KindTimeout, hits: 1, msg: "stream stalled", streamed: true},
	}
	for _, typ := range protocols {
		for _, tc := range cases {
			t.Run(typ+"/"+tc.name, func(t *testing.T) {
				f := newFixture(t, typ, tc.opts)
				f.srv.Enqueue(tc.script...)
				resp, _, err := f.chat(t, context.Background())
				if err == nil {
					t.Fatalf("no error; response %+v", resp)
				}
				var le *llm.Error
				if !errors.As(err, &le) {
					t.Fatalf("error %T %v is not *llm.Error", err, err)
				}
				if le.Kind != tc.kind {
					t.Errorf("kind %v, want %v (%v)", le.Kind, tc.kind, err)
				}
				if got := len(f.srv.Requests()); got != tc.hits {
					t.Errorf("%d requests, want %d", got, tc.hits)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("error %q lacks %q", err, tc.msg)
				}
				if le.Streamed != tc.streamed {
					t.Errorf("Streamed = %v, want %v", le.Streamed, tc.streamed)
				}
				for _, bad := range []string{testKey, "<html", "<center>"} {
					if strings.Contains(err.Error(), bad) {
						t.Errorf("error leaks %q: %v", bad, err)
					}
				}
				if !strings.Contains(err.Error(), f.srv.URL()) {
					t.Errorf("error %q does not name the base URL", err)
				}
			})
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	for _, typ := range protocols {
		t.Run(typ, func(t *testing.T) {
			var retries []int
			f := newFixture(t, typ, Options{MaxRetries: 3, InitialBackoff: time.Second, MaxBackoff: 10 * time.Second,
				OnRetry: func(n int, _ time.Duration, _ error) { retries = append(retries, n) }})
			f.srv.Enqueue(llmtest.Response{Status: 429, RetryAfter: "7"}, llmtest.Response{Status: 429, RetryAfter: "3600"},
				llmtest.Response{Status: 500}, llmtest.Response{Text: "# Done"})
			resp, _, err := f.chat(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "# Done" {
				t.Errorf("content %q", resp.Message.Content)
			}
			d := f.sleeps.d
			if len(d) != 3 || d[0] != 7*time.Second || d[1] != 10*time.Second {
				t.Fatalf("waits %v: want Retry-After 7s honoured, then capped at 10s", d)
			}
			if d[2] < 2*time.Second || d[2] > 4*time.Second {
				t.Errorf("third wait %v, want 4s backoff with jitter in [2s,4s]", d[2])
			}
			if len(retries) != 3 || retries[2] != 3 {
				t.Errorf("OnRetry attempts %v", retries)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now
	for _, typ := range protocols {
		t.Run(typ, func(t *testing.T) {
			s := &sleeps{}
			c, err := New(&config.ResolvedModel{Type: typ, BaseURL: base, ID: "m"}, &http.Client{}, Options{Sleep: s.sleep, MaxRetries: 10})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
			if llm.KindOf(err) != llm.KindUnreachable || !strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("err = %v", err)
			}
			if len(s.d) != 1 || s.d[0] > time.Second {
				t.Errorf("waits %v: want one short retry", s.d)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("took %v; a refused connection must fail fast", el)
			}
		})
	}
	c, _ := New(&config.ResolvedModel{Type: "openai", BaseURL: "http://no-such-host.invalid/v1"}, &http.Client{}, Options{MaxRetries: -1})
	_, err = c.Chat(context.Background(), llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindUnreachable || !strings.Contains(err.Error(), "no-such-host.invalid") {
		t.Errorf("DNS failure: %v", err)
	}
}

func TestNoResponseTimeout(t *testing.T) {
	block := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer hs.Close()
	defer close(block)
	c, _ := New(&config.ResolvedModel{Type: "openai", BaseURL: hs.URL}, &http.Client{}, Options{Timeout: 100 * time.Millisecond, MaxRetries: -1})
	_, err := c.Chat(context.Background(), llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindTimeout || !strings.Contains(err.Error(), "no response within 100ms") {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	c, _ = New(&config.ResolvedModel{Type: "anthropic", BaseURL: hs.URL}, &http.Client{}, Options{MaxRetries: -1})
	_, err = c.Chat(ctx, llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	for _, typ := range protocols {
		t.Run(typ, func(t *testing.T) {
			f := newFixture(t, typ, Options{})
			f.srv.Enqueue(llmtest.Response{Text: "long answer being typed", Pieces: 6, StallAfter: 5, Stall: llmtest.Duration(10 * time.Second)})
			ctx, cancel := context.WithCancel(context.Background())
			var once sync.Once
			_, err := f.client.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}, func(llm.Delta) {
				once.Do(func() { time.AfterFunc(50*time.Millisecond, cancel) })
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if len(f.srv.Requests()) != 1 {
				t.Errorf("%d requests after cancel", len(f.srv.Requests()))
			}
		})
	}
}

func TestUsageEstimatedAndQuirks(t *testing.T) {
	for _, typ := range protocols {
		t.Run(typ, func(t *testing.T) {
			f := newFixture(t, typ, Options{})
			f.srv.Enqueue(llmtest.Response{Text: "twelve chars", NoUsage: true, FinishReason: "length"}, llmtest.Response{})
			resp, _, err := f.chat(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !resp.UsageEstimated || resp.Usage.CompletionTokens == 0 || resp.Usage.PromptTokens == 0 {
				t.Errorf("usage %+v estimated %v", resp.Usage, resp.UsageEstimated)
			}
			if resp.FinishReason != "length" {
				t.Errorf("finish %q, want length", resp.FinishReason)
			}
			resp, _, err = f.chat(t, context.Background())
			if err != nil || resp.Message.Content != "" || len(resp.Message.ToolCalls) != 0 {
				t.Errorf("empty message: %+v, %v", resp, err)
			}
		})
	}
}

func TestUnknownType(t *testing.T) {
	_, err := New(&config.ResolvedModel{Type: "gemini", APIName: "g"}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), `"openai" and "anthropic"`) {
		t.Errorf("err = %v", err)
	}
}

// replay serves captured response bytes, cut into pieces at cuts.
type replay struct {
	data []byte
	cuts []int
}

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"text/event-stream"}}
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: h, Request: req,
		Body: io.NopCloser(&cutReader{data: r.data, cuts: r.cuts})}, nil
}

type cutReader struct {
	data []byte
	cuts []int
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.cuts) > 0 {
		n, c.cuts = c.cuts[0], c.cuts[1:]
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// capture returns the raw bytes the fake server sends for resp.
func capture(t *testing.T, typ string, resp llmtest.Response) []byte {
	t.Helper()
	srv := llmtest.New()
	defer srv.Close()
	srv.Enqueue(resp)
	path := "/chat/completions"
	if typ == "anthropic" {
		path = "/messages"
	}
	r, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(`{"stream":true,"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRechunking: the same stream cut at random byte boundaries (mid-UTF-8,
// mid-"data:", mid-JSON) gives an identical response or identical error.
func TestRechunking(t *testing.T) {
	scripts := []llmtest.Response{
		{Text: "# Zürich 🇨🇭\n\nA city — «ville».", Reasoning: "thinking about 日本", Pieces: 7},
		{Text: "Checking.", ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: `{"query":"naïve café"}`},
			{Name: "fetch_url", Arguments: `{"urls":["https://a.example/ü"]}`}}, Pieces: 5},
		{Text: "quirky", ToolCalls: []llmtest.ToolCall{{Name: "a", Arguments: `{"x":1}`}, {Name: "b", Arguments: `{"y":2}`}},
			OmitToolIndex: true, Comments: true, NoDone: true, NoUsage: true},
		{ToolCalls: []llmtest.ToolCall{{Name: "a", Arguments: `{"x":[1,2]}`}}, ArgsAsObject: true, ReasoningKey: "reasoning", Reasoning: "r"},
		{Text: "partial answer", TruncateAfter: 4},
		{Text: "bad frame", MalformedAt: 3},
		{Text: "error frame", ErrorFrame: "boom"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range protocols {
		for i, script := range scripts {
			data := capture(t, typ, script)
			run := func(cuts []int) (*llm.Response, string) {
				m := &config.ResolvedModel{Type: typ, BaseURL: "http://fake.invalid/v1"}
				c, _ := New(m, &http.Client{Transport: replay{data: data, cuts: cuts}}, Options{MaxRetries: -1})
				resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}, nil)
				if err != nil {
					return nil, err.Error()
				}
				return resp, ""
			}
			want, wantErr := run(nil)
			if script.TruncateAfter == 0 && script.MalformedAt == 0 && script.ErrorFrame == "" && wantErr != "" {
				t.Fatalf("%s script %d: %s", typ, i, wantErr)
			}
			for trial := 0; trial < 40; trial++ {
				var cuts []int
				for n := 0; n < len(data); {
					k := 1 + rng.IntN(24)
					cuts = append(cuts, k)
					n += k
				}
				got, gotErr := run(cuts)
				if gotErr != wantErr || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s script %d trial %d: chunking changed the result\nwant %+v %q\ngot  %+v %q", typ, i, trial, want, wantErr, got, gotErr)
				}
			}
		}
	}
}

// BenchmarkChat measures one streamed call (500 text chunks) against the
// local fake: the client's own overhead on top of loopback HTTP.
func BenchmarkChat(b *testing.B) {
	for _, typ := range protocols {
		b.Run(typ, func(b *testing.B) {
			srv := llmtest.New()
			defer srv.Close()
			text := strings.Repeat("word ", 500)
			srv.SetDefault(func(llmtest.Request) llmtest.Response { return llmtest.Response{Text: text, Pieces: 500} })
			c, err := New(&config.ResolvedModel{Type: typ, BaseURL: srv.URL()}, &http.Client{}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}
			for b.Loop() {
				resp, err := c.Chat(context.Background(), req, nil)
				if err != nil || resp.Message.Content != text {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/500, "µs/chunk")
		})
	}
}

// FuzzClientStream feeds arbitrary bytes to both clients as a response
// body: no panic, the result does not depend on chunking, and a call only
// succeeds when the stream carried its terminal event.
func FuzzClientStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"), false, uint8(3))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"a\",\"arguments\":{\"x\":1}}}]}}]}\n\n"), false, uint8(1))
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"é\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), true, uint8(5))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":9,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"), true, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, anthropic bool, step uint8) {
		typ, terminal := "openai", []string{"[DONE]", "finish_reason"}
		if anthropic {
			typ, terminal = "anthropic", []string{"message_stop"}
		}
		run := func(cut int) (*llm.Response, error) {
			var cuts []int
			for n := 0; n < len(data); n += cut {
				cuts = append(cuts, cut)
			}
			c, _ := New(&config.ResolvedModel{Type: typ, BaseURL: "http://fake.invalid"}, &http.Client{Transport: replay{data: data, cuts: cuts}}, Options{MaxRetries: -1})
			return c.Chat(context.Background(), llm.Request{}, nil)
		}
		r1, e1 := run(len(data) + 1)
		r2, e2 := run(int(step%32) + 1)
		if !reflect.DeepEqual(r1, r2) || (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
			t.Fatalf("chunking changed the result: %+v %v / %+v %v", r1, e1, r2, e2)
		}
		if e1 == nil {
			ok := false
			for _, m := range terminal {
				ok = ok || bytes.Contains(data, []byte(m))
			}
			if !ok {
				t.Fatalf("success without a terminal event: %+v", r1)
			}
		}
	})
}
