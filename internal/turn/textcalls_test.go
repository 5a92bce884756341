package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/askygo/asky/internal/tools"
)

func textCallRegistry() *tools.Registry {
	run := func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{}, nil }
	return tools.NewRegistry(
		&tools.Tool{Name: "web_search", Run: run, Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"count":{"type":"integer"}}}`)},
		&tools.Tool{Name: "get_url_content", Run: run, Parameters: json.RawMessage(`{"type":"object","properties":{"urls":{"type":"array","items":{"type":"string"}}}}`)},
	)
}

func TestTextToolCalls(t *testing.T) {
	cases := []struct {
		name, in   string
		want       []string // name + " " + arguments
		wantRest   string
		noneExpect bool
	}{
		{name: "xml function form", in: "I'll search.\n<tool_call>\n<function=web_search>\n<parameter=q>\n2024 election\n</parameter>\n<parameter=count>\n3\n</parameter>\n</function>\n</tool_call>",
			want: []string{`web_search {"count":3,"q":"2024 election"}`}, wantRest: "I'll search."},
		{name: "xml two calls, list param", in: "<tool_call><function=get_url_content><parameter=urls>[\"https://a.example\"]</parameter></function></tool_call>\n<tool_call><function=get_url_content><parameter=urls>https://b.example</parameter></function></tool_call>",
			want: []string{`get_url_content {"urls":["https://a.example"]}`, `get_url_content {"urls":["https://b.example"]}`}},
		{name: "xml unclosed at the end", in: "<tool_call>\n<function=web_search>\n<parameter=q>go</parameter>\n</function>",
			want: []string{`web_search {"q":"go"}`}},
		{name: "hermes json", in: `<tool_call>{"name": "web_search", "arguments": {"q": "go"}}</tool_call>`,
			want: []string{`web_search {"q": "go"}`}},
		{name: "harmony leakage", in: "<|start|>assistant<|channel|>commentary to=functions.web_search <|constrain|>json<|message|>{\"q\":\"go 1.26\"}<|call|>",
			want: []string{`web_search {"q":"go 1.26"}`}},
		{name: "plain to=functions", in: "assistantcommentary to=functions.web_search json{\"q\": \"weather\"}",
			want: []string{`web_search {"q": "weather"}`}},
		{name: "unknown tool is text", in: "<tool_call><function=rm_rf><parameter=path>/</parameter></function></tool_call>", noneExpect: true},
		{name: "prose mentioning the syntax", in: "Write to=functions.web_search and then explain it in words {not json}", noneExpect: true},
		{name: "answer after replayed calls", in: "assistantcommentary to=functions.web_search json{\"q\": \"weather\"}\n# Weather\n\nSunny.", noneExpect: true},
		{name: "plain answer", in: "# Title\n\nNo calls here.", noneExpect: true},
		{name: "example in a code block", in: "# Qwen tool calls\n\nThey look like this:\n\n```xml\n<tool_call>\n<function=web_search>\n<parameter=q>go</parameter>\n</function>\n</tool_call>\n```", noneExpect: true},
		{name: "harmony example in a code block", in: "Written as:\n```\ncommentary to=functions.web_search json{\"q\": \"x\"}\n```", noneExpect: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls, rest := textToolCalls(c.in, textCallRegistry(), 3)
			if c.noneExpect {
				if len(calls) != 0 || rest != c.in {
					t.Fatalf("got calls %+v rest %q", calls, rest)
				}
				return
			}
			var got []string
			for i, tc := range calls {
				got = append(got, tc.Name+" "+tc.Arguments)
				if want := fmt.Sprintf("text_call_3_%d", i+1); tc.ID != want {
					t.Errorf("id %q, want %q (unique in the conversation)", tc.ID, want)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("calls %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("call %d = %s, want %s", i, got[i], c.want[i])
				}
				if calls[i].ID == "" {
					t.Errorf("call %d has no id", i)
				}
			}
			if rest != c.wantRest {
				t.Errorf("rest %q, want %q", rest, c.wantRest)
			}
		})
	}
}
