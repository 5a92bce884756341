package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/askygo/asky/internal/llm"
)

// frame is one SSE event before faults are applied.
type frame struct {
	event string
	data  any // marshalled to JSON; a string is written as-is
}

func (f frame) String() string {
	var data string
	if s, ok := f.data.(string); ok {
		data = s
	} else {
		b, _ := json.Marshal(f.data)
		data = string(b)
	}
	if f.event != "" {
		return "event: " + f.event + "\ndata: " + data + "\n\n"
	}
	return "data: " + data + "\n\n"
}

// render applies MalformedAt and ErrorFrame and serializes the frames.
// errAt is the index before which an error frame replaces the rest.
func render(fs []frame, resp Response, errAt int, errFrame frame) []string {
	if resp.ErrorFrame != "" {
		fs = append(fs[:errAt:errAt], errFrame)
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		if i+1 == resp.MalformedAt {
			f.data = `{"choices":[{"delta":{"content":"brok`
			if f.event != "" {
				f.data = `{"type":"content_block_delta","delta":{"type":"text_delta","text":"brok`
			}
		}
		out[i] = f.String()
	}
	return out
}

func (r Response) pieces() int {
	if r.Pieces <= 0 {
		return 3
	}
	return r.Pieces
}

func (r Response) finish() string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (r Response) usage() llm.Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return llm.Usage{PromptTokens: 10, CompletionTokens: 5}
}

func (r Response) model(req Request) string {
	if r.Model != "" {
		return r.Model
	}
	if m := req.Model(); m != "" {
		return m
	}
	return "fake-model"
}

func callID(tc ToolCall, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d", i+1)
}

func openAIFrames(req Request, resp Response) []string {
	model := resp.model(req)
	chunk := func(delta map[string]any, finish any) frame {
		return frame{data: map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}}
	}
	var fs []frame
	if resp.Comments {
		fs = append(fs, frame{data: nil})
	}
	fs = append(fs, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	rkey := resp.ReasoningKey
	if rkey == "" {
		rkey = "reasoning_content"
	}
	for _, p := range Split(resp.Reasoning, resp.pieces()) {
		fs = append(fs, chunk(map[string]any{rkey: p}, nil))
	}
	for _, p := range Split(resp.Text, resp.pieces()) {
		fs = append(fs, chunk(map[string]any{"content": p}, nil))
	}
	for i, tc := range resp.ToolCalls {
		call := func(fields map[string]any) map[string]any {
			if !resp.OmitToolIndex {
				fields["index"] = i
			}
			return map[string]any{"tool_calls": []any{fields}}
		}
		if resp.ArgsAsObject && json.Valid([]byte(tc.Arguments)) {
			fs = append(fs, chunk(call(map[string]any{"id": callID(tc, i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": json.RawMessage(tc.Arguments)}}), nil))
			continue
		}
		fs = append(fs, chunk(call(map[string]any{"id": callID(tc, i), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}), nil))
		for _, p := range Split(tc.Arguments, resp.pieces()) {
			fs = append(fs, chunk(call(map[string]any{"function": map[string]any{"arguments": p}}), nil))
		}
	}
	errAt := len(fs)
	fs = append(fs, chunk(map[string]any{}, resp.finish()))
	if !resp.NoUsage {
		u := resp.usage()
		fs = append(fs, frame{data: map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
				"total_tokens": u.PromptTokens + u.CompletionTokens}}})
	}
	if !resp.NoDone {
		fs = append(fs, frame{data: "[DONE]"})
	}
	out := render(fs, resp, errAt, frame{data: map[string]any{"error": map[string]any{"message": resp.ErrorFrame, "code": 502}}})
	if resp.Comments {
		out[0] = ": OPENROUTER PROCESSING\n\n"
		for i := 1; i < len(out); i += 2 {
			out[i] = "event: message\n" + out[i] + ": keep-alive\n\n"
		}
	}
	return out
}

func anthropicFrames(req Request, resp Response) []string {
	u := resp.usage()
	if resp.NoUsage {
		u = llm.Usage{}
	}
	fs := []frame{
		{"message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_fake", "type": "message",
			"role": "assistant", "model": resp.model(req), "content": []any{}, "stop_reason": nil,
			"usage": map[string]any{"input_tokens": u.PromptTokens, "output_tokens": min(u.CompletionTokens, 1)}}}},
		{"ping", map[string]any{"type": "ping"}},
	}
	idx := 0
	block := func(start map[string]any, deltaType, field string, parts []string) {
		fs = append(fs, frame{"content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": start}})
		for _, p := range parts {
			fs = append(fs, frame{"content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": deltaType, field: p}}})
		}
		fs = append(fs, frame{"content_block_stop", map[string]any{"type": "content_block_stop", "index": idx}})
		idx++
	}
	if resp.Reasoning != "" {
		block(map[string]any{"type": "thinking", "thinking": ""}, "thinking_delta", "thinking", Split(resp.Reasoning, resp.pieces()))
	}
	if resp.Text != "" {
		block(map[string]any{"type": "text", "text": ""}, "text_delta", "text", Split(resp.Text, resp.pieces()))
	}
	for i, tc := range resp.ToolCalls {
		block(map[string]any{"type": "tool_use", "id": callID(tc, i), "name": tc.Name, "input": map[string]any{}},
			"input_json_delta", "partial_json", Split(tc.Arguments, resp.pieces()))
	}
	errAt := len(fs)
	stop := map[string]string{"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}[resp.finish()]
	if stop == "" {
		stop = resp.finish()
	}
	md := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}}
	if !resp.NoUsage {
		md["usage"] = map[string]any{"output_tokens": u.CompletionTokens}
	}
	fs = append(fs, frame{"message_delta", md}, frame{"message_stop", map[string]any{"type": "message_stop"}})
	return render(fs, resp, errAt, frame{"error", map[string]any{"type": "error",
		"error": map[string]any{"type": "api_error", "message": resp.ErrorFrame}}})
}

// writeJSONCompletion answers a "stream": false OpenAI request.
func writeJSONCompletion(w http.ResponseWriter, req Request, resp Response) {
	msg := map[string]any{"role": "assistant", "content": resp.Text}
	if len(resp.ToolCalls) > 0 {
		var calls []any
		for i, tc := range resp.ToolCalls {
			calls = append(calls, map[string]any{"id": callID(tc, i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
	}
	body := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "model": resp.model(req),
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": resp.finish()}}}
	if !resp.NoUsage {
		u := resp.usage()
		body["usage"] = map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
			"total_tokens": u.PromptTokens + u.CompletionTokens}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// Split cuts s into n pieces of similar length at rune boundaries. Empty
// input yields no pieces.
func Split(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := utf8.RuneCountInString(s)
	n = max(1, min(n, runes))
	out := make([]string, 0, n)
	per, extra := runes/n, runes%n
	for i := 0; i < n; i++ {
		k := per
		if i < extra {
			k++
		}
		j, c := 0, 0
		for c < k && j < len(s) {
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
			c++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
