package anthropic

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
	srv.RequireKey("ak-key")
	return New(&wire.Endpoint{BaseURL: srv.URL(), HTTP: &http.Client{}, Secret: "ak-key"}), srv
}

func TestRequestBody(t *testing.T) {
	c, srv := newClient(t)
	req := llm.Request{
		Model: "claude-x",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "q"},
			{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{
				{ID: "t1", Name: "web_search", Arguments: `{"query":"x"}`}, {ID: "t2", Name: "bad", Arguments: `{"broken`}}},
			{Role: llm.RoleTool, ToolCallID: "t1", Content: "results"},
			{Role: llm.RoleTool, ToolCallID: "t2", Content: ""},
			{Role: llm.RoleUser, Content: "SYSTEM: answer now"},
		},
		Tools:      []llm.ToolSpec{{Name: "web_search", Description: "Search.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Parameters: map[string]any{"temperature": 0.5, "reasoning": true},
	}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("anthropic-version") != "2023-06-01" || r.Header.Get("Authorization") != "" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	want := `{
	  "model": "claude-x", "stream": true, "max_tokens": 4096, "temperature": 0.5, "system": "sys",
	  "messages": [
	    {"role": "user", "content": [{"type": "text", "text": "q"}]},
	    {"role": "assistant", "content": [
	      {"type": "text", "text": "Let me look."},
	      {"type": "tool_use", "id": "t1", "name": "web_search", "input": {"query": "x"}},
	      {"type": "tool_use", "id": "t2", "name": "bad", "input": {}}]},
	    {"role": "user", "content": [
	      {"type": "tool_result", "tool_use_id": "t1", "content": "results"},
	      {"type": "tool_result", "tool_use_id": "t2", "content": "(empty)"},
	      {"type": "text", "text": "SYSTEM: answer now"}]}],
	  "tools": [{"name": "web_search", "description": "Search.", "input_schema": {"type": "object"}}]
	}`
	var wantBody map[string]any
	if err := json.Unmarshal([]byte(want), &wantBody); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Body, wantBody) {
		got, _ := json.MarshalIndent(r.Body, "", "  ")
		t.Errorf("body:\n%s", got)
	}

	req.Parameters = map[string]any{"max_tokens": 123}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].Body["max_tokens"]; got != float64(123) {
		t.Errorf("max_tokens = %v", got)
	}
}

func TestStreamContent(t *testing.T) {
	c, srv := newClient(t)
	srv.Enqueue(llmtest.Response{Text: "# Hi", Reasoning: "pondering", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "web_search", Arguments: `{"query":"q"}`}},
		Usage: &llm.Usage{PromptTokens: 30, CompletionTokens: 12}})
	var kinds []llm.DeltaKind
	var reasoning strings.Builder
	resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}, func(d llm.Delta) {
		kinds = append(kinds, d.Kind)
		if d.Kind == llm.DeltaReasoning {
			reasoning.WriteString(d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "# Hi",
		ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "web_search", Arguments: `{"query":"q"}`}}},
		FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 30, CompletionTokens: 12}, Model: "fake-model"}
	if !reflect.DeepEqual(*resp, want) {
		t.Errorf("got %+v", *resp)
	}
	if reasoning.String() != "pondering" || kinds[len(kinds)-1] != llm.DeltaToolCall {
		t.Errorf("reasoning %q kinds %v", reasoning.String(), kinds)
	}
}

func TestOverloadedMidStream(t *testing.T) {
	c, srv := newClient(t)
	srv.Enqueue(llmtest.Response{Raw: []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"}})
	_, err := c.Chat(context.Background(), llm.Request{}, nil)
	var le *llm.Error
	if llm.KindOf(err) != llm.KindServer || !strings.Contains(err.Error(), "Overloaded") {
		t.Fatalf("err = %v", err)
	}
	if !errors.As(err, &le) || !le.Retryable() {
		t.Errorf("an overload before any output should be retryable: %v", err)
	}
}

func TestWrongKey(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	srv.RequireKey("right")
	c := New(&wire.Endpoint{BaseURL: srv.URL(), Secret: "wrong-secret-value"})
	_, err := c.Chat(context.Background(), llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindAuth || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("err = %v", err)
	}
}

func TestCacheTokens(t *testing.T) {
	c, srv := newClient(t)
	srv.Enqueue(llmtest.Response{Raw: []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":900,\"cache_creation_input_tokens\":90}}}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}})
	resp, err := c.Chat(context.Background(), llm.Request{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{PromptTokens: 1000, CompletionTokens: 4, CacheReadTokens: 900, CacheWriteTokens: 90}); resp.Usage != want {
		t.Fatalf("usage %+v, want %+v", resp.Usage, want)
	}
}

// A server that ignores stream:true and sends the whole message as JSON
// (with or without its content type) is read like a stream.
func TestNonStreamedBody(t *testing.T) {
	for _, ct := range []string{"application/json", ""} {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = []string{ct}
			_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",
"content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"web_search","input":{"q":"go"}}],
"stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":7}}`))
		}))
		c := New(&wire.Endpoint{BaseURL: hs.URL})
		var text strings.Builder
		resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}, func(d llm.Delta) {
			if d.Kind == llm.DeltaText {
				text.WriteString(d.Text)
			}
		})
		hs.Close()
		if err != nil {
			t.Fatalf("content type %q: %v", ct, err)
		}
		want := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Looking.",
			ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "web_search", Arguments: `{"q":"go"}`}}},
			FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 7}, Model: "claude-x"}
		if !reflect.DeepEqual(*resp, want) || text.String() != "Looking." {
			t.Errorf("content type %q: got %+v (streamed %q)", ct, *resp, text.String())
		}
	}
}

func TestNonStreamedError(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	}))
	defer hs.Close()
	_, err := New(&wire.Endpoint{BaseURL: hs.URL}).Chat(context.Background(), llm.Request{}, nil)
	if llm.KindOf(err) != llm.KindServer || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("err = %v", err)
	}
}
