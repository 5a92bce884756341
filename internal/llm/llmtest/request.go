package llmtest

import (
	"net/http"
	"regexp"
	"strings"
)

// Request is one recorded call.
type Request struct {
	Method   string
	Path     string
	Protocol string // OpenAI or Anthropic
	Header   http.Header
	// Body is the decoded JSON body; Raw the bytes as received.
	Body map[string]any
	Raw  []byte
}

// Model is the requested model id.
func (r Request) Model() string { s, _ := r.Body["model"].(string); return s }

// Stream reports whether the client asked for a stream.
func (r Request) Stream() bool { b, _ := r.Body["stream"].(bool); return b }

// Messages returns the messages array.
func (r Request) Messages() []map[string]any {
	arr, _ := r.Body["messages"].([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, m := range arr {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// System returns the system prompt: the OpenAI system message or the
// Anthropic system field.
func (r Request) System() string {
	if s, ok := r.Body["system"].(string); ok {
		return s
	}
	for _, m := range r.Messages() {
		if m["role"] == "system" {
			return Text(m["content"])
		}
	}
	return ""
}

// LastUser returns the text of the last user message (tool results in an
// Anthropic user message are skipped).
func (r Request) LastUser() string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] != "user" {
			continue
		}
		if t := Text(msgs[i]["content"]); t != "" {
			return t
		}
	}
	return ""
}

// ToolNames lists the names of the tools offered, in order.
func (r Request) ToolNames() []string {
	arr, _ := r.Body["tools"].([]any)
	var out []string
	for _, t := range arr {
		tm, _ := t.(map[string]any)
		if fn, ok := tm["function"].(map[string]any); ok {
			tm = fn
		}
		if n, ok := tm["name"].(string); ok {
			out = append(out, n)
		}
	}
	return out
}

// ToolResults returns the contents of tool results in the request, in
// order, for both protocols.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Messages() {
		if m["role"] == "tool" {
			out = append(out, Text(m["content"]))
			continue
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			if bm, _ := b.(map[string]any); bm["type"] == "tool_result" {
				out = append(out, Text(bm["content"]))
			}
		}
	}
	return out
}

// Text flattens message content: a string, or the text of content blocks.
func Text(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				s, _ := bm["text"].(string)
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// justSay matches "just say apple" and similar one-word requests.
var justSay = regexp.MustCompile(`just say (\w+)`)

// Keywords is the default responder, the original asky's fake-server table:
// it answers by keyword in the last user message, every answer starting
// with an H1 as the system prompt demands.
func Keywords(req Request) Response {
	q := strings.ToLower(req.LastUser())
	answer := "ok"
	for _, kw := range [...]struct{ key, answer string }{
		{"capital of france", "Paris"},
		{"japan", "Tokyo"},
		{"say exactly 'pong'", "PONG"},
		{"are you claude", "yes"},
		{"2+2", "4"},
		{"favorite color", "blue"},
		{"hello", "Hello from the fake LLM."},
	} {
		if strings.Contains(q, kw.key) {
			answer = kw.answer
			break
		}
	}
	if m := justSay.FindStringSubmatch(q); m != nil {
		answer = m[1]
	}
	return Response{Text: "# Answer\n\n" + answer}
}
