package turn

// Tool calls written into the answer text. Some local and open models
// (Qwen coder templates, gpt-oss through a server without its harmony
// parser) do not use the native tool_calls field but print the call:
//
//	<tool_call><function=web_search><parameter=q>go 1.26</parameter></function></tool_call>
//	<tool_call>{"name": "web_search", "arguments": {"q": "go 1.26"}}</tool_call>
//	…commentary to=functions.web_search <|constrain|>json<|message|>{"q": "go 1.26"}
//
// As the original (asky-behavior.md §4.1), such calls are run like native
// ones instead of being shown to the user as the answer. Only tools offered
// this turn are recognised, so an answer that explains the syntax of some
// other tool is left alone.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/tools"
)

// textCallRes are compiled the first time a reply holds a written call,
// not at every start of the program.
var textCallRes = sync.OnceValue(func() *textCallPatterns {
	return &textCallPatterns{
		xmlCall:      regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|\z)`),
		xmlFunc:      regexp.MustCompile(`(?s)^<function=\s*([A-Za-z0-9_.\-]+)\s*>(.*?)(?:</function>|\z)`),
		xmlParam:     regexp.MustCompile(`(?s)<parameter=\s*([A-Za-z0-9_.\-]+)\s*>(.*?)(?:</parameter>|\z)`),
		harmonyCall:  regexp.MustCompile(`to=functions\.([A-Za-z0-9_\-]+)`),
		harmonyToken: regexp.MustCompile(`<\|[a-z_]+\|>`),
		h1:           regexp.MustCompile(`(?m)^# \S`),
	}
})

type textCallPatterns struct {
	// xmlCall matches one <tool_call> block; the closing tag may be
	// missing when the model stopped right after the call.
	xmlCall *regexp.Regexp
	// xmlFunc is the <function=NAME> … </function> form inside a block.
	xmlFunc *regexp.Regexp
	// xmlParam is one <parameter=KEY>value</parameter>.
	xmlParam *regexp.Regexp
	// harmonyCall finds "to=functions.NAME"; the JSON arguments follow.
	harmonyCall *regexp.Regexp
	// harmonyToken are the channel markers around a leaked call.
	harmonyToken *regexp.Regexp
	// h1 finds the title line every final answer starts with.
	h1 *regexp.Regexp
}

// textToolCalls finds the tool calls written in content for the tools of
// reg. It returns them (with ids "text_call_T_N", T the model call of the
// turn: ids must not repeat within a conversation) and the content without
// them; none found returns nil and content unchanged. A call written
// inside a ``` code block is an example, not a call.
func textToolCalls(content string, reg *tools.Registry, turnNo int) ([]llm.ToolCall, string) {
	if reg == nil || reg.Len() == 0 {
		return nil, content
	}
	var calls []llm.ToolCall
	add := func(name, args string) {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("text_call_%d_%d", turnNo, len(calls)+1), Name: name, Arguments: args})
	}
	rest := content
	if strings.Contains(content, "<tool_call>") {
		var kept strings.Builder
		last := 0
		for _, m := range textCallRes().xmlCall.FindAllStringSubmatchIndex(content, -1) {
			if inFence(content, m[0]) {
				continue
			}
			name, args, ok := xmlCall(content[m[2]:m[3]], reg)
			if !ok {
				continue
			}
			add(name, args)
			kept.WriteString(content[last:m[0]])
			last = m[1]
		}
		kept.WriteString(content[last:])
		rest = kept.String()
	}
	if len(calls) == 0 && strings.Contains(content, "to=functions.") {
		rest = content
		var kept strings.Builder
		last := 0
		for _, m := range textCallRes().harmonyCall.FindAllStringSubmatchIndex(content, -1) {
			if m[0] < last || inFence(content, m[0]) {
				continue
			}
			name := content[m[2]:m[3]]
			if _, ok := reg.Get(name); !ok {
				continue
			}
			start := strings.IndexByte(content[m[1]:], '{')
			if start < 0 {
				continue
			}
			start += m[1]
			// Only channel markers and a format word may stand between
			// the name and its arguments.
			between := textCallRes().harmonyToken.ReplaceAllString(content[m[1]:start], " ")
			if f := strings.Fields(between); len(f) > 1 || (len(f) == 1 && f[0] != "json" && f[0] != "code") {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(content[start:]))
			var obj map[string]any
			if dec.Decode(&obj) != nil {
				continue
			}
			end := start + int(dec.InputOffset())
			add(name, content[start:end])
			kept.WriteString(content[last:max(last, lineStart(content, m[0]))])
			last = end
		}
		kept.WriteString(content[last:])
		rest = kept.String()
		if textCallRes().h1.MatchString(rest) {
			// Gemini replays the calls it already made above its final
			// answer: an answer with its title is not a request to call.
			return nil, content
		}
	}
	if len(calls) == 0 {
		return nil, content
	}
	rest = textCallRes().harmonyToken.ReplaceAllString(rest, "")
	return calls, strings.TrimSpace(rest)
}

// lineStart is the start of the line holding i, so the channel header
// before a leaked call ("assistant commentary") goes with it.
func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// xmlCall reads the inside of one <tool_call> block: the <function=…>
// form or a JSON object {"name", "arguments"}.
func xmlCall(body string, reg *tools.Registry) (string, string, bool) {
	if m := textCallRes().xmlFunc.FindStringSubmatch(body); m != nil {
		t, ok := reg.Get(m[1])
		if !ok {
			return "", "", false
		}
		args := map[string]any{}
		for _, p := range textCallRes().xmlParam.FindAllStringSubmatch(m[2], -1) {
			args[p[1]] = paramValue(t, p[1], strings.TrimSpace(p[2]))
		}
		b, _ := json.Marshal(args)
		return t.Name, string(b), true
	}
	var obj struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal([]byte(body), &obj) != nil {
		return "", "", false
	}
	if _, ok := reg.Get(obj.Name); !ok {
		return "", "", false
	}
	args := obj.Arguments
	if len(args) == 0 {
		args = obj.Parameters
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s) // arguments given as a JSON string
	}
	if len(args) == 0 || !json.Valid(args) {
		args = json.RawMessage("{}")
	}
	return obj.Name, string(args), true
}

// paramValue types an XML parameter by the tool's schema: strings stay
// text, anything else (arrays, numbers, booleans) is read as JSON when it
// parses.
func paramValue(t *tools.Tool, key, raw string) any {
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.Parameters, &schema)
	if p, ok := schema.Properties[key]; ok && p.Type == "string" {
		return raw
	}
	var v any
	if json.Unmarshal([]byte(raw), &v) == nil {
		return v
	}
	if p, ok := schema.Properties[key]; ok && p.Type == "array" {
		return []string{raw} // a single URL where a list was asked
	}
	return raw
}

// inFence reports whether position i of s is inside a ``` code block.
func inFence(s string, i int) bool { return strings.Count(s[:i], "```")%2 == 1 }
