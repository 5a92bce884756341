// Package anthropic is the client for the Anthropic Messages API. It
// always streams and treats a stream that ends without message_stop as an
// error, never as a short answer.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/wire"
)

// DefaultMaxTokens is sent when the model's parameters set no max_tokens;
// the Messages API requires the field.
const DefaultMaxTokens = 4096

// Client calls POST {BaseURL}/messages.
type Client struct {
	ep *wire.Endpoint
}

// New returns a client for ep. The key (ep.Secret) is sent as x-api-key.
func New(ep *wire.Endpoint) *Client {
	if ep.Name == "" {
		ep.Name = "anthropic"
	}
	ep.Headers = maps.Clone(ep.Headers)
	if ep.Headers == nil {
		ep.Headers = map[string]string{}
	}
	if ep.Secret != "" {
		ep.Headers["x-api-key"] = ep.Secret
	}
	if _, ok := ep.Headers["anthropic-version"]; !ok {
		ep.Headers["anthropic-version"] = "2023-06-01"
	}
	return &Client{ep: ep}
}

var _ llm.Client = (*Client)(nil)

// Chat streams one message.
func (c *Client) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	s, err := c.ep.Post(ctx, "/messages", requestBody(req))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	a := &accumulator{ep: c.ep, onDelta: onDelta, byIndex: map[int]*toolBlock{}}
	if err := s.Read(a.whole, a.stream); err != nil {
		return nil, err
	}
	return a.response(req), nil
}

// whole reads a server that ignored stream:true and sent the complete
// message as one JSON body (a proxy or a small compatible server).
func (a *accumulator) whole(body []byte) error {
	var m struct {
		Type       string `json:"type"`
		Model      string `json:"model"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		Usage *usage `json:"usage"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return a.ep.Errorf(llm.KindBadResponse, false, "malformed response body: %v", err)
	}
	if m.Type == "error" || m.Error != nil {
		msg, typ := "the provider reported an error", ""
		if m.Error != nil {
			msg, typ = orDefault(m.Error.Message, msg), m.Error.Type
		}
		kind := llm.KindBadResponse
		if typ == "overloaded_error" {
			kind = llm.KindServer
		}
		return a.ep.Errorf(kind, false, "%s", msg)
	}
	a.model = m.Model
	a.addUsage(m.Usage)
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			a.addText(b.Text)
		case "thinking":
			if b.Thinking != "" {
				a.thinking.WriteString(b.Thinking)
				a.emit(llm.Delta{Kind: llm.DeltaReasoning, Text: b.Thinking})
			}
		case "tool_use":
			a.tools = append(a.tools, &toolBlock{id: b.ID, name: b.Name, start: b.Input})
			a.emit(llm.Delta{Kind: llm.DeltaToolCall, Text: b.Name})
		}
	}
	a.stop = m.StopReason
	if a.stop == "" {
		a.stop = "end_turn"
	}
	return nil
}

type block = map[string]any

// requestBody builds the JSON body: system messages become the top-level
// system field, tool calls become tool_use blocks and consecutive messages
// of the same role (tool results, a follow-up user note) are merged, as the
// API requires alternating roles.
func requestBody(req llm.Request) map[string]any {
	body := map[string]any{}
	for k, v := range req.Parameters {
		if v == nil || k == "reasoning" { // OpenRouter-only flag; Anthropic rejects unknown fields
			continue
		}
		body[k] = v
	}
	if _, ok := body["max_tokens"]; !ok {
		body["max_tokens"] = DefaultMaxTokens
	}
	body["model"] = req.Model
	body["stream"] = true
	var system []string
	type msg struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	var msgs []*msg
	add := func(role string, blocks ...block) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, &msg{Role: role, Content: blocks})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			if m.Content != "" {
				system = append(system, m.Content)
			}
		case llm.RoleTool:
			add("user", block{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": orSpace(m.Content)})
		case llm.RoleAssistant:
			var bs []block
			if strings.TrimSpace(m.Content) != "" {
				bs = append(bs, block{"type": "text", "text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				bs = append(bs, block{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": inputObject(tc.Arguments)})
			}
			add("assistant", bs...)
		default:
			add("user", block{"type": "text", "text": orSpace(m.Content)})
		}
	}
	if len(system) > 0 {
		body["system"] = strings.Join(system, "\n\n")
	}
	body["messages"] = msgs
	if len(req.Tools) > 0 {
		ts := make([]map[string]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			ts = append(ts, map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema})
		}
		body["tools"] = ts
	}
	return body
}

// orSpace avoids empty text blocks, which the API rejects.
func orSpace(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// inputObject turns stored arguments into the object tool_use requires. A
// call whose arguments were invalid JSON (already answered with a tool
// error) is replayed with an empty input.
func inputObject(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// event is the union of the stream's event payloads.
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Model string `json:"model"`
		Usage usage  `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type toolBlock struct {
	id, name string
	start    json.RawMessage
	args     strings.Builder
}

type accumulator struct {
	ep       *wire.Endpoint
	onDelta  func(llm.Delta)
	streamed bool

	text, thinking strings.Builder
	tools          []*toolBlock
	byIndex        map[int]*toolBlock
	stop           string
	model          string
	in, out        int
	cacheRead      int
	cacheWrite     int
	usageSeen      bool
}

// stream reads events until message_stop; EOF before it is a truncation.
func (a *accumulator) stream(s *wire.Stream) error {
	for {
		ev, err := s.Next(a.streamed)
		if errors.Is(err, io.EOF) {
			return a.ep.Errorf(llm.KindTruncated, a.streamed,
				"the stream ended before message_stop (%d characters of text received)", a.text.Len())
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(ev.Data) == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return a.ep.Errorf(llm.KindBadResponse, a.streamed, "malformed stream frame: %v", err)
		}
		if e.Type == "" {
			e.Type = ev.Name
		}
		done, err := a.apply(&e)
		if err != nil || done {
			return err
		}
	}
}

func (a *accumulator) apply(e *event) (bool, error) {
	switch e.Type {
	case "message_start":
		a.model = e.Message.Model
		a.addUsage(&e.Message.Usage)
	case "content_block_start":
		switch e.ContentBlock.Type {
		case "tool_use":
			tb := &toolBlock{id: e.ContentBlock.ID, name: e.ContentBlock.Name, start: e.ContentBlock.Input}
			a.tools = append(a.tools, tb)
			a.byIndex[e.Index] = tb
			a.emit(llm.Delta{Kind: llm.DeltaToolCall, Text: tb.name})
		case "text":
			a.addText(e.ContentBlock.Text)
		}
	case "content_block_delta":
		switch e.Delta.Type {
		case "text_delta":
			a.addText(e.Delta.Text)
		case "thinking_delta":
			if e.Delta.Thinking != "" {
				a.thinking.WriteString(e.Delta.Thinking)
				a.emit(llm.Delta{Kind: llm.DeltaReasoning, Text: e.Delta.Thinking})
			}
		case "input_json_delta":
			if tb := a.byIndex[e.Index]; tb != nil {
				tb.args.WriteString(e.Delta.PartialJSON)
			}
		}
	case "message_delta":
		if e.Delta.StopReason != "" {
			a.stop = e.Delta.StopReason
		}
		a.addUsage(e.Usage)
	case "message_stop":
		return true, nil
	case "error":
		msg, typ := "the provider reported an error mid-stream", ""
		if e.Error != nil {
			msg, typ = e.Error.Message, e.Error.Type
		}
		kind := llm.KindBadResponse
		if typ == "overloaded_error" {
			kind = llm.KindServer
		}
		return false, a.ep.Errorf(kind, a.streamed, "%s", orDefault(msg, typ))
	}
	// ping, content_block_stop and future event types need nothing.
	return false, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (a *accumulator) addText(t string) {
	if t == "" {
		return
	}
	a.text.WriteString(t)
	a.emit(llm.Delta{Kind: llm.DeltaText, Text: t})
}

// addUsage keeps the largest counts seen: message_start carries the input
// tokens, message_delta the cumulative output tokens.
func (a *accumulator) addUsage(u *usage) {
	if u == nil {
		return
	}
	if in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens; in > a.in {
		a.in = in
	}
	a.out = max(a.out, u.OutputTokens)
	a.cacheRead = max(a.cacheRead, u.CacheReadInputTokens)
	a.cacheWrite = max(a.cacheWrite, u.CacheCreationInputTokens)
	if a.in > 0 || a.out > 0 {
		a.usageSeen = true
	}
}

func (a *accumulator) emit(d llm.Delta) {
	a.streamed = true
	a.onDelta(d)
}

func (a *accumulator) response(req llm.Request) *llm.Response {
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String()}
	for _, tb := range a.tools {
		args := tb.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
			if len(tb.start) > 0 && string(tb.start) != "null" {
				args = string(tb.start) // a proxy that sent the input whole
			}
		}
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tb.id, Name: tb.name, Arguments: args})
	}
	r := &llm.Response{Message: msg, FinishReason: finishReason(a.stop), Model: a.model}
	if a.usageSeen {
		r.Usage = llm.Usage{PromptTokens: a.in, CompletionTokens: a.out, CacheReadTokens: a.cacheRead, CacheWriteTokens: a.cacheWrite}
	} else {
		r.UsageEstimated = true
		r.Usage = llm.Usage{PromptTokens: llm.EstimateMessages(req.Messages),
			CompletionTokens: llm.EstimateMessages([]llm.Message{msg}) + llm.EstimateTokens(a.thinking.String())}
	}
	return r
}

// finishReason maps stop reasons onto the OpenAI vocabulary the rest of
// asky uses.
func finishReason(s string) string {
	switch s {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	}
	return s
}
