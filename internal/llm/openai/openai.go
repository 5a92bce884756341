// Package openai is the client for the OpenAI chat-completions wire format,
// which OpenAI, OpenRouter, Gemini's compatibility endpoint, Ollama, LM
// Studio, llama.cpp and vLLM all speak. It always streams, tolerates the
// servers' quirks (reasoning fields, tool-call deltas without an index,
// arguments sent as objects, keep-alive comments) and treats a stream that
// ends without finish_reason or [DONE] as an error.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/wire"
)

// Client calls POST {BaseURL}/chat/completions.
type Client struct {
	ep *wire.Endpoint
}

// New returns a client for ep. The key (ep.Secret) is sent as a bearer token.
func New(ep *wire.Endpoint) *Client {
	if ep.Name == "" {
		ep.Name = "openai"
	}
	ep.Headers = maps.Clone(ep.Headers)
	if ep.Headers == nil {
		ep.Headers = map[string]string{}
	}
	if ep.Secret != "" {
		ep.Headers["Authorization"] = "Bearer " + ep.Secret
	}
	return &Client{ep: ep}
}

var _ llm.Client = (*Client)(nil)

// Chat streams one completion.
func (c *Client) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	s, err := c.ep.Post(ctx, "/chat/completions", requestBody(req))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	a := &accumulator{ep: c.ep, onDelta: onDelta}
	if err := s.Read(a.whole, a.stream); err != nil {
		return nil, err
	}
	return a.response(req), nil
}

// requestBody builds the JSON body. Parameters are copied first so they can
// never replace the model, messages or streaming settings.
func requestBody(req llm.Request) map[string]any {
	body := map[string]any{}
	for k, v := range req.Parameters {
		if v == nil {
			continue
		}
		if b, ok := v.(bool); ok && k == "reasoning" {
			// The original asky's OpenRouter shape: reasoning = true|false
			// becomes {"enabled": bool}.
			v = map[string]any{"enabled": b}
		}
		body[k] = v
	}
	body["model"] = req.Model
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	msgs := make([]map[string]any, 0, len(req.Messages))
	for _, m := range req.Messages {
		msgs = append(msgs, wireMessage(m))
	}
	body["messages"] = msgs
	if len(req.Tools) > 0 {
		ts := make([]map[string]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			params := t.Parameters
			if len(params) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			ts = append(ts, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": params}})
		}
		body["tools"] = ts
		body["tool_choice"] = "auto"
	}
	return body
}

func wireMessage(m llm.Message) map[string]any {
	w := map[string]any{"role": string(m.Role), "content": m.Content}
	switch m.Role {
	case llm.RoleAssistant:
		if len(m.ToolCalls) == 0 {
			break
		}
		if m.Content == "" {
			w["content"] = nil // some servers reject "" next to tool calls
		}
		calls := make([]map[string]any, 0, len(m.ToolCalls))
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": args}})
		}
		w["tool_calls"] = calls
	case llm.RoleTool:
		w["tool_call_id"] = m.ToolCallID
	}
	return w
}

// chunk is one streamed chat.completion.chunk, or a non-streamed
// chat.completion (which carries "message" instead of "delta").
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta        delta   `json:"delta"`
		Message      *delta  `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type delta struct {
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	Reasoning        *string `json:"reasoning"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// accumulator joins deltas into a response.
type accumulator struct {
	ep       *wire.Endpoint
	onDelta  func(llm.Delta)
	streamed bool

	text, reasoning strings.Builder
	calls           []*call
	finish          string
	usage           *llm.Usage
	model           string
}

type call struct {
	index     int
	id, name  string
	args      strings.Builder
	announced bool
}

// stream reads events until [DONE] or EOF; an EOF before finish_reason or
// [DONE] is a truncated stream.
func (a *accumulator) stream(s *wire.Stream) error {
	done := false
	for {
		ev, err := s.Next(a.streamed)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			done = true
			break
		}
		if data == "" {
			continue
		}
		if err := a.apply([]byte(data)); err != nil {
			return err
		}
	}
	if !done && a.finish == "" {
		return a.ep.Errorf(llm.KindTruncated, a.streamed,
			"the stream ended before the model finished (%d characters of text received)", a.text.Len())
	}
	return nil
}

// whole handles a server that ignored stream:true and sent one JSON body.
func (a *accumulator) whole(body []byte) error {
	if err := a.apply(body); err != nil {
		return err
	}
	if a.finish == "" {
		a.finish = "stop"
	}
	return nil
}

func (a *accumulator) apply(data []byte) error {
	var ch chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return a.ep.Errorf(llm.KindBadResponse, a.streamed, "malformed stream frame: %v", err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		msg := wire.ProviderMessage(data)
		if msg == "" {
			msg = "the provider reported an error mid-stream"
		}
		kind := llm.KindBadResponse
		if !a.streamed || wire.IsContextOverflow(msg) {
			kind = errorKind(ch.Error, msg)
		}
		return a.ep.Errorf(kind, a.streamed, "%s", msg)
	}
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.Usage != nil && (ch.Usage.PromptTokens > 0 || ch.Usage.CompletionTokens > 0) {
		a.usage = &llm.Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
		if d := ch.Usage.PromptTokensDetails; d != nil {
			a.usage.CacheReadTokens = d.CachedTokens
		}
	}
	// The final usage chunk has an empty choices array; never index it.
	for _, c := range ch.Choices {
		d := c.Delta
		if c.Message != nil {
			d = *c.Message
		}
		a.delta(d)
		if c.FinishReason != nil && *c.FinishReason != "" {
			a.finish = *c.FinishReason
		}
	}
	return nil
}

// errorKind classifies an error frame that arrived before any output.
// OpenRouter reports upstream rate limits and outages this way, with an
// HTTP-like code; they are as retryable as the real statuses.
func errorKind(raw json.RawMessage, msg string) llm.Kind {
	var e struct {
		Code any `json:"code"`
	}
	_ = json.Unmarshal(raw, &e)
	var code float64
	switch c := e.Code.(type) {
	case float64:
		code = c
	case string:
		if c == "rate_limit_exceeded" {
			code = 429
		}
	}
	switch {
	case wire.IsContextOverflow(msg):
		return llm.KindContextOverflow
	case code == 429:
		return llm.KindRateLimit
	case code >= 500:
		return llm.KindServer
	}
	return llm.KindBadResponse
}

func (a *accumulator) delta(d delta) {
	for _, r := range []*string{d.ReasoningContent, d.Reasoning} {
		if r != nil && *r != "" {
			a.reasoning.WriteString(*r)
			a.emit(llm.Delta{Kind: llm.DeltaReasoning, Text: *r})
			break // servers that send both repeat the same text
		}
	}
	if d.Content != nil && *d.Content != "" {
		a.text.WriteString(*d.Content)
		a.emit(llm.Delta{Kind: llm.DeltaText, Text: *d.Content})
	}
	for _, tc := range d.ToolCalls {
		c := a.callFor(tc.Index, tc.ID)
		if tc.ID != "" {
			c.id = tc.ID
		}
		c.name += tc.Function.Name
		c.args.WriteString(argText(tc.Function.Arguments))
		if !c.announced && c.name != "" {
			c.announced = true
			a.emit(llm.Delta{Kind: llm.DeltaToolCall, Text: c.name})
		}
	}
}

// callFor finds the call a tool-call delta belongs to. Servers that omit the
// index continue the last call unless a new id starts another; servers that
// reuse index 0 for every call are told apart by their ids.
func (a *accumulator) callFor(index *int, id string) *call {
	var last *call
	if n := len(a.calls); n > 0 {
		last = a.calls[n-1]
	}
	if index == nil {
		if last != nil && (id == "" || id == last.id) {
			return last
		}
	} else {
		for i := len(a.calls) - 1; i >= 0; i-- {
			c := a.calls[i]
			if c.index == *index && (id == "" || c.id == "" || c.id == id) {
				return c
			}
		}
	}
	c := &call{index: len(a.calls)}
	if index != nil {
		c.index = *index
	}
	a.calls = append(a.calls, c)
	return c
}

// argText returns the text of an arguments delta: normally a JSON string
// fragment, but some servers send the whole arguments as a JSON object.
func argText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (a *accumulator) emit(d llm.Delta) {
	a.streamed = true
	a.onDelta(d)
}

func (a *accumulator) response(req llm.Request) *llm.Response {
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String()}
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1) // local servers sometimes omit ids
		}
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	r := &llm.Response{Message: msg, FinishReason: a.finish, Model: a.model}
	if a.usage != nil {
		r.Usage = *a.usage
	} else {
		r.UsageEstimated = true
		r.Usage = llm.Usage{PromptTokens: llm.EstimateMessages(req.Messages),
			CompletionTokens: llm.EstimateMessages([]llm.Message{msg}) + llm.EstimateTokens(a.reasoning.String())}
	}
	return r
}
