package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/llm/wire"
)

func newClient(t *testing.T) (*Client, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New()
	t.Cleanup(srv.Close)
	c := New(&wire.Endpoint{BaseURL: srv.URL(), HTTP: &http.Client{}, Secret: "sk-key",
		Headers: map[string]string{"HTTP-Referer": "https://asky.example"}, UserAgent: "asky-test/1"})
	return c, srv
}

func TestRequestBody(t *testing.T) {
	c, srv := newClient(t)
	req := llm.Request{
		Model: "gpt-x",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "q"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"x"}`}, {ID: "c2", Name: "now"}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "web_search", Content: "results"},
			{Role: llm.RoleTool, ToolCallID: "c2", Name: "now", Content: "noon"},
		},
		Tools:      []llm.ToolSpec{{Name: "web_search", Description: "Search the web.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)}},
		Parameters: map[string]any{"temperature": 0.2, "reasoning": true, "model": "must-not-win", "max_tokens": 100, "top_p": nil},
	}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-key" ||
		r.Header.Get("HTTP-Referer") != "https://asky.example" || r.Header.Get("User-Agent") != "asky-test/1" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	want := `{
	  "model": "gpt-x", "stream": true, "stream_options": {"include_usage": true},
	  "temperature": 0.2, "reasoning": {"enabled": true}, "max_tokens": 100, "tool_choice": "auto",
	  "messages": [
	    {"role": "system", "content": "sys"},
	    {"role": "user", "content": "q"},
	    {"role": "assistant", "content": null, "tool_calls": [
	      {"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": "{\"query\":\"x\"}"}},
	      {"id": "c2", "type": "function", "function": {"name": "now", "arguments": "{}"}}]},
	    {"role": "tool", "tool_call_id": "c1", "content": "results"},
	    {"role": "tool", "tool_call_id": "c2", "content": "noon"}],
	  "tools": [{"type": "function", "function": {"name": "web_search", "description": "Search the web.",
	    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]
	}`
	var wantBody map[string]any
	if err := json.Unmarshal([]byte(want), &wantBody); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Body, wantBody) {
		got, _ := json.MarshalIndent(r.Body, "", "  ")
		t.Errorf("body:\n%s", got)
	}
}

func collect(t *testing.T, c *Client) (*llm.Response, []llm.Delta) {
	t.Helper()
	var ds []llm.Delta
	resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}},
		func(d llm.Delta) { ds = append(ds, d) })
	if err != nil {
		t.Fatal(err)
	}
	return resp, ds
}

func TestQuirks(t *testing.T) {
	c, srv := newClient(t)
	calls := []llmtest.ToolCall{{ID: "a", Name: "web_search", Arguments: `{"query":"x"}`}, {ID: "b", Name: "fetch_url", Arguments: `{"urls":["u"]}`}}
	srv.Enqueue(
		llmtest.Response{ToolCalls: calls, OmitToolIndex: true, Comments: true},
		llmtest.Response{ToolCalls: calls, ArgsAsObject: true, NoDone: true},
		llmtest.Response{Text: "# A", Reasoning: "hmm, thinking", ReasoningKey: "reasoning"},
	)
	want := []llm.ToolCall{{ID: "a", Name: "web_search", Arguments: `{"query":"x"}`}, {ID: "b", Name: "fetch_url", Arguments: `{"urls":["u"]}`}}
	for _, name := range []string{"no index + comments", "args as object, no [DONE]"} {
		resp, ds := collect(t, c)
		if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
			t.Errorf("%s: calls %+v", name, resp.Message.ToolCalls)
		}
		if len(ds) != 2 || ds[0] != (llm.Delta{Kind: llm.DeltaToolCall, Text: "web_search"}) || ds[1].Text != "fetch_url" {
			t.Errorf("%s: deltas %+v", name, ds)
		}
	}
	resp, ds := collect(t, c)
	var reasoning strings.Builder
	for _, d := range ds {
		if d.Kind == llm.DeltaReasoning {
			reasoning.WriteString(d.Text)
		}
	}
	if resp.Message.Content != "# A" || reasoning.String() != "hmm, thinking" {
		t.Errorf("content %q reasoning %q", resp.Message.Content, reasoning.String())
	}
}

func TestRawQuirks(t *testing.T) {
	cases := []struct {
		name   string
		frames []string
		want   llm.Message
	}{
		{"index 0 reused with new ids", []string{
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x1","function":{"name":"a","arguments":"{}"}}]}}]}` + "\n\n",
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x2","function":{"name":"b","arguments":"{\"k\""}}]}}]}` + "\n\n",
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}` + "\n\n",
			`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "x1", Name: "a", Arguments: "{}"}, {ID: "x2", Name: "b", Arguments: `{"k":1}`}}}},
		{"[DONE] without finish_reason, no ids", []string{
			`data: {"choices":[{"delta":{"content":"hi"}}]}` + "\n\n",
			`data: {"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","arguments":"{}"}}]}}]}` + "\n\n",
			"data: [DONE]\n\n"},
			llm.Message{Role: llm.RoleAssistant, Content: "hi", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "a", Arguments: "{}"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := newClient(t)
			srv.Enqueue(llmtest.Response{Raw: tc.frames})
			resp, _ := collect(t, c)
			if !reflect.DeepEqual(resp.Message, tc.want) {
				t.Errorf("message %+v, want %+v", resp.Message, tc.want)
			}
		})
	}
}

func TestNonStreamedBody(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"# Whole","tool_calls":[{"id":"t","function":{"name":"x","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`))
	}))
	defer hs.Close()
	c := New(&wire.Endpoint{BaseURL: hs.URL})
	resp, _ := collect(t, c)
	want := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "# Whole", ToolCalls: []llm.ToolCall{{ID: "t", Name: "x", Arguments: "{}"}}},
		FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 2}}
	if !reflect.DeepEqual(*resp, want) {
		t.Errorf("got %+v", *resp)
	}
}

func TestHTMLPageWith200(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<html><body>Welcome to nginx</body></html>"))
	}))
	defer hs.Close()
	_, err := New(&wire.Endpoint{BaseURL: hs.URL}).Chat(context.Background(), llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindBadResponse || strings.Contains(err.Error(), "nginx") {
		t.Errorf("err = %v", err)
	}
}

func TestErrorFrameBeforeOutput(t *testing.T) {
	cases := []struct {
		frame string
		kind  llm.Kind
	}{
		{`{"error":{"message":"Rate limit exceeded upstream","code":429}}`, llm.KindRateLimit},
		{`{"error":{"message":"Provider returned error","code":502}}`, llm.KindServer},
		{`{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, llm.KindRateLimit},
		{`{"error":{"message":"This endpoint's maximum context length is 8192 tokens","code":400}}`, llm.KindContextOverflow},
		{`{"error":{"message":"weird","code":400}}`, llm.KindBadResponse},
	}
	for _, tc := range cases {
		c, srv := newClient(t)
		srv.Enqueue(llmtest.Response{Raw: []string{": OPENROUTER PROCESSING\n\n", "data: " + tc.frame + "\n\n"}})
		_, err := c.Chat(context.Background(), llm.Request{}, nil)
		var le *llm.Error
		if !errors.As(err, &le) || le.Kind != tc.kind || le.Streamed {
			t.Errorf("%s: err = %v", tc.frame, err)
		}
	}
}

func TestCachedPromptTokens(t *testing.T) {
	c, srv := newClient(t)
	srv.Enqueue(llmtest.Response{Raw: []string{
		`data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}` + "\n\n",
		`data: {"choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":1024}}}` + "\n\n",
		"data: [DONE]\n\n"}})
	resp, _ := collect(t, c)
	if want := (llm.Usage{PromptTokens: 1200, CompletionTokens: 7, CacheReadTokens: 1024}); resp.Usage != want {
		t.Fatalf("usage %+v, want %+v", resp.Usage, want)
	}
}

// A whole JSON body sent without a content type (or as text/plain) is
// still read as one completion, not as an empty event stream.
func TestNonStreamedBodyWithoutContentType(t *testing.T) {
	for _, ct := range []string{"", "text/plain; charset=utf-8"} {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = []string{ct}
			_, _ = w.Write([]byte("\n  {\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"# Whole\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}"))
		}))
		resp, _ := collect(t, New(&wire.Endpoint{BaseURL: hs.URL}))
		hs.Close()
		if resp.Message.Content != "# Whole" || resp.Usage.PromptTokens != 3 {
			t.Errorf("content type %q: got %+v", ct, *resp)
		}
	}
}
