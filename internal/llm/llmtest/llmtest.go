// Package llmtest is a scripted fake LLM server for tests at every level:
// client unit tests, turn-engine tests and testscript end-to-end runs. It
// needs no *testing.T, so a testscript Setup can start it and a custom
// command can feed it.
//
// One server speaks both wire formats under any base path:
//
//	POST …/chat/completions   OpenAI chat-completions (SSE; JSON when "stream": false)
//	POST …/messages           Anthropic Messages (SSE)
//	GET  …/models             {"data":[{"id":"fake-model"}]}
//
// so URL() ("http://127.0.0.1:PORT/v1") works as base_url for either type.
//
// Each call takes the next scripted Response from a FIFO (Enqueue); when the
// queue is empty the default responder answers (Keywords unless replaced
// with SetDefault). Every call is recorded (Requests) for assertions.
//
// # Script files
//
// LoadScript reads a JSON array of responses, the same fields as Response:
//
//	[
//	  {"tool_calls": [{"name": "web_search", "arguments": "{\"query\":\"go fuzzing\"}"}]},
//	  {"text": "# Go Fuzzing\n\nUse go test -fuzz.", "pieces": 4, "usage": {"prompt_tokens": 120, "completion_tokens": 30}},
//	  {"status": 429, "retry_after": "1"},
//	  {"status": 502, "html": true},
//	  {"text": "# Partial", "truncate_after": 3},
//	  {"text": "# Slow", "stall_after": 2, "stall": "5s"},
//	  {"text": "# Oops", "malformed_at": 2},
//	  {"text": "# Error", "error_frame": "upstream provider error"},
//	  {"text": "# Cut", "finish_reason": "length"},
//	  {}
//	]
//
// The last entry, an empty object, is an empty assistant message. Durations
// are Go duration strings ("1.5s") or numbers of seconds. Unknown fields are
// errors, so a typo fails the test instead of silently scripting nothing.
//
// # Use from testscript
//
//	Setup: func(env *testscript.Env) error {
//		srv := llmtest.New()
//		env.Defer(srv.Close)
//		env.Setenv("FAKE_LLM_URL", srv.URL()) // base_url in the script's config.toml
//		env.Values["llm"] = srv
//		return nil
//	},
//	Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
//		"llm-enqueue": func(ts *testscript.TestScript, neg bool, args []string) {
//			ts.Check(ts.Value("llm").(*llmtest.Server).EnqueueFile(ts.MkAbs(args[0])))
//		},
//	},
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/llm"
)

// Protocols a request can use.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
)

// ToolCall is a scripted tool call. An empty ID becomes "call_N".
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Response is one scripted answer or fault. The zero value is an empty
// assistant message that finishes normally.
type Response struct {
	Text      string     `json:"text,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Pieces splits text, reasoning and each tool call's arguments into this
	// many streamed chunks (default 3).
	Pieces int `json:"pieces,omitempty"`
	// FinishReason in OpenAI terms ("stop", "tool_calls", "length"); the
	// default follows from the tool calls. Anthropic streams get the
	// matching stop_reason.
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage reported at the end (default 10 prompt / 5 completion tokens);
	// NoUsage reports none.
	Usage   *llm.Usage `json:"usage,omitempty"`
	NoUsage bool       `json:"no_usage,omitempty"`
	Model   string     `json:"model,omitempty"`

	// OpenAI-compatible server quirks.
	OmitToolIndex bool   `json:"omit_tool_index,omitempty"` // tool-call deltas without "index"
	ArgsAsObject  bool   `json:"args_as_object,omitempty"`  // arguments as a JSON object, whole
	NoDone        bool   `json:"no_done,omitempty"`         // no "data: [DONE]" after finish_reason
	Comments      bool   `json:"comments,omitempty"`        // ": keep-alive" comments and event: lines
	ReasoningKey  string `json:"reasoning_key,omitempty"`   // "reasoning" instead of "reasoning_content"

	// Faults.
	Status       int    `json:"status,omitempty"`        // reply with this HTTP status
	RetryAfter   string `json:"retry_after,omitempty"`   // Retry-After header value
	ErrorMessage string `json:"error_message,omitempty"` // message in the JSON error body
	ErrorBody    string `json:"error_body,omitempty"`    // raw error body instead
	HTML         bool   `json:"html,omitempty"`          // an nginx-style HTML error page
	// MalformedAt replaces frame N (1-based) with broken JSON.
	MalformedAt int `json:"malformed_at,omitempty"`
	// TruncateAfter ends the stream after N frames, without its terminal event.
	TruncateAfter int `json:"truncate_after,omitempty"`
	// StallAfter N frames, wait Stall (or until the client gives up).
	StallAfter int      `json:"stall_after,omitempty"`
	Stall      Duration `json:"stall,omitempty"`
	// ErrorFrame sends an error frame with this message after the content
	// and ends the stream.
	ErrorFrame string `json:"error_frame,omitempty"`
	// FrameDelay is waited before each frame.
	FrameDelay Duration `json:"frame_delay,omitempty"`
	// Raw frames are written verbatim instead of generated ones.
	Raw []string `json:"raw,omitempty"`
}

// Duration is a time.Duration that reads "1.5s" or a number of seconds.
type Duration time.Duration

// UnmarshalJSON accepts a duration string or seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("duration: want \"1.5s\" or seconds, got %s", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Responder answers a call when the queue is empty.
type Responder func(Request) Response

// Server is the fake. Create it with New and Close it when done.
type Server struct {
	hs *httptest.Server

	mu     sync.Mutex
	queue  []Response
	reqs   []Request
	def    Responder
	key    string
	models []string
}

// New starts a server on 127.0.0.1.
func New() *Server {
	s := &Server{def: Keywords, models: []string{"fake-model"}}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the server, unblocking stalled responses.
func (s *Server) Close() {
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// URL is the base_url to configure: http://127.0.0.1:PORT/v1.
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// Enqueue appends scripted responses, used in order.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// EnqueueFile enqueues the responses of a script file (see LoadScript).
func (s *Server) EnqueueFile(path string) error {
	rs, err := LoadScript(path)
	if err != nil {
		return err
	}
	s.Enqueue(rs...)
	return nil
}

// Pending is the number of queued responses not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetDefault replaces the responder used when the queue is empty.
func (s *Server) SetDefault(r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// RequireKey makes every route answer 401 unless the request carries key
// (Authorization: Bearer for OpenAI, x-api-key for Anthropic). It catches
// a key sent to the wrong provider.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetModels sets the ids listed by /models.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// Requests returns the calls received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// LoadScript reads a JSON array of responses from a file.
func LoadScript(path string) ([]Response, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScript(b)
}

// ParseScript decodes a JSON array of responses; unknown fields are errors
// so a typo in a script fails loudly.
func ParseScript(b []byte) ([]Response, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var rs []Response
	if err := dec.Decode(&rs); err != nil {
		return nil, fmt.Errorf("llmtest script: %w", err)
	}
	return rs, nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.Protocol = OpenAI
	case strings.HasSuffix(r.URL.Path, "/messages"):
		req.Protocol = Anthropic
	case strings.HasSuffix(r.URL.Path, "/models") && r.Method == http.MethodGet:
		s.serveModels(w, r)
		return
	default:
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		writeError(w, req.Protocol, Response{Status: 400, ErrorMessage: "invalid JSON body: " + err.Error()})
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	key := s.key
	var resp Response
	if len(s.queue) > 0 {
		resp, s.queue = s.queue[0], s.queue[1:]
	} else {
		resp = s.def(req)
	}
	s.mu.Unlock()
	if key != "" && !hasKey(r, req.Protocol, key) {
		writeError(w, req.Protocol, Response{Status: 401, ErrorMessage: "invalid api key"})
		return
	}
	if resp.Status >= 300 {
		writeError(w, req.Protocol, resp)
		return
	}
	if req.Protocol == OpenAI && !req.Stream() {
		writeJSONCompletion(w, req, resp)
		return
	}
	writeStream(w, r, req, resp)
}

func hasKey(r *http.Request, protocol, key string) bool {
	if protocol == Anthropic {
		return r.Header.Get("x-api-key") == key
	}
	return r.Header.Get("Authorization") == "Bearer "+key
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key, ids := s.key, s.models
	s.mu.Unlock()
	if key != "" && !hasKey(r, OpenAI, key) && !hasKey(r, Anthropic, key) {
		writeError(w, OpenAI, Response{Status: 401, ErrorMessage: "invalid api key"})
		return
	}
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	data := []model{}
	for _, id := range ids {
		data = append(data, model{id, "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

const htmlError = `<html><head><title>%d Bad Gateway</title></head><body><center><h1>%d Bad Gateway</h1></center><hr><center>nginx</center></body></html>`

func writeError(w http.ResponseWriter, protocol string, resp Response) {
	if resp.RetryAfter != "" {
		w.Header().Set("Retry-After", resp.RetryAfter)
	}
	body := resp.ErrorBody
	switch {
	case resp.HTML:
		w.Header().Set("Content-Type", "text/html")
		body = fmt.Sprintf(htmlError, resp.Status, resp.Status)
	case body == "":
		msg := resp.ErrorMessage
		if msg == "" {
			msg = fmt.Sprintf("fake error (HTTP %d)", resp.Status)
		}
		var v any = map[string]any{"error": map[string]any{"message": msg, "type": "fake_error", "code": resp.Status}}
		if protocol == Anthropic {
			v = map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": msg}}
		}
		b, _ := json.Marshal(v)
		body = string(b)
		w.Header().Set("Content-Type", "application/json")
	default:
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(resp.Status)
	_, _ = io.WriteString(w, body)
}

func writeStream(w http.ResponseWriter, r *http.Request, req Request, resp Response) {
	frames := resp.Raw
	if frames == nil {
		if req.Protocol == Anthropic {
			frames = anthropicFrames(req, resp)
		} else {
			frames = openAIFrames(req, resp)
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	flush()
	for i, f := range frames {
		if resp.TruncateAfter > 0 && i >= resp.TruncateAfter {
			return
		}
		if resp.StallAfter > 0 && i == resp.StallAfter && resp.Stall > 0 {
			flush()
			select {
			case <-time.After(time.Duration(resp.Stall)):
			case <-r.Context().Done():
				return
			}
		}
		if resp.FrameDelay > 0 {
			time.Sleep(time.Duration(resp.FrameDelay))
		}
		if _, err := io.WriteString(w, f); err != nil {
			return
		}
		flush()
	}
}
