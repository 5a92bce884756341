// Package llm is the provider boundary: neutral message, tool-call and usage
// types, and a Client interface implemented by the hand-written OpenAI
// chat-completions (openai/) and Anthropic Messages (anthropic/) clients.
// Nothing outside this package tree knows a wire format.
package llm

import (
	"context"
	"encoding/json"
)

// Role of a message.
type Role string

// Roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message in neutral form.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message requests.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool-result message to its call.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name on tool-result messages.
	Name string `json:"name,omitempty"`
}

// ToolCall is one function call requested by the model. Arguments is the raw
// JSON text exactly as the model produced it (it may be invalid).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
	// Parameters are passed through into the request body (temperature,
	// max_tokens, top_p, reasoning, …).
	Parameters map[string]any
}

// Usage counts tokens of one call. PromptTokens counts every input token,
// including those read from or written to the provider's prompt cache;
// CacheReadTokens and CacheWriteTokens say how many of them were (they
// are priced differently).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Add accumulates another call's usage.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// Response is the complete result of one call.
type Response struct {
	Message      Message
	FinishReason string
	Usage        Usage
	// UsageEstimated is true when the server reported no usage and chars/4
	// was used instead.
	UsageEstimated bool
	Model          string
}

// DeltaKind says what a streamed Delta carries.
type DeltaKind int

// Delta kinds.
const (
	DeltaText DeltaKind = iota
	DeltaReasoning
	// DeltaToolCall announces a tool call by name as soon as it is known.
	DeltaToolCall
)

// Delta is one streamed piece, delivered as it arrives.
type Delta struct {
	Kind DeltaKind
	Text string
}

// Client calls a model. Chat streams deltas to onDelta (which may be nil)
// and returns the complete response. A stream that ends without its
// terminal event returns an *Error of KindTruncated, never a short answer.
type Client interface {
	Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}

// EstimateTokens is the chars/4 estimate used wherever a tokenizer is absent.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// EstimateMessages estimates the tokens of a message list.
func EstimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateTokens(m.Content) + 4
		for _, c := range m.ToolCalls {
			n += EstimateTokens(c.Name) + EstimateTokens(c.Arguments)
		}
	}
	return n
}
