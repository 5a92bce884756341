package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// sizeRecorder asks for a page per call until its script ends, then
// answers; it records the estimated size of every request it receives.
type sizeRecorder struct {
	calls int
	pages int
	sizes []int
	reqs  []llm.Request
}

func (c *sizeRecorder) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	n := llm.EstimateMessages(req.Messages)
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		n += llm.EstimateTokens(string(b))
	}
	c.sizes = append(c.sizes, n)
	c.reqs = append(c.reqs, req)
	c.calls++
	if c.calls <= c.pages {
		args := fmt.Sprintf(`{"urls":["https://example.org/page%d"]}`, c.calls)
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", c.calls), Name: "get_url_content", Arguments: args}}}}, nil
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "# Answer\n\ndone"}}, nil
}

// pageTool returns a long page for every URL.
func pageTool(chars int) *tools.Tool {
	return &tools.Tool{Name: "get_url_content", Description: "read",
		Parameters: json.RawMessage(`{"type":"object","properties":{"urls":{"type":"array","items":{"type":"string"}}}}`),
		Run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			var a struct{ URLs []string }
			_ = json.Unmarshal(args, &a)
			return tools.Result{Content: "## " + a.URLs[0] + "\n" + strings.Repeat("lorem ipsum dolor sit amet ", chars/27)}, nil
		}}
}

func TestToolResultsNeverOverflowTheContext(t *testing.T) {
	const ctxSize = 3000 // tokens; each page is ~1500 tokens
	for _, tc := range []struct {
		name    string
		compact bool
	}{{"summaries", true}, {"drop and truncate only", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := &sizeRecorder{pages: 5}
			req := turn.Request{Query: "read five long pages", Client: c,
				Model: &config.ResolvedModel{Alias: "small", ID: "small", ContextSize: ctxSize},
				Tools: tools.NewRegistry(pageTool(6000)), MaxTurns: 8}
			summaries := 0
			if tc.compact {
				req.CompactTool = func(_ context.Context, tool, content string) (string, bool) {
					summaries++
					return strings.SplitN(content, "\n", 2)[0] + "\n[COMPACTED] a page about lorem ipsum", true
				}
			}
			var debug []string
			res, err := (&turn.Engine{}).Run(context.Background(), req, func(ev turn.Event) {
				if ev.Kind == turn.EventDebug {
					debug = append(debug, ev.Text)
				}
			})
			if err != nil || res.Answer == "" {
				t.Fatalf("%v %+v", err, res)
			}
			if len(c.sizes) != 6 {
				t.Fatalf("%d calls", len(c.sizes))
			}
			for i, n := range c.sizes {
				if n > ctxSize {
					t.Errorf("request %d is %d tokens, over the %d-token context", i+1, n, ctxSize)
				}
			}
			last := c.reqs[len(c.reqs)-1].Messages
			if last[1].Role != llm.RoleUser || last[1].Content != "read five long pages" {
				t.Errorf("the question was dropped: %+v", last[1])
			}
			joined := ""
			for _, m := range last {
				joined += m.Content
			}
			if tc.compact && (summaries == 0 || !strings.Contains(joined, "[COMPACTED]")) {
				t.Errorf("no tool result summarized (%d summaries)", summaries)
			}
			if !strings.Contains(strings.Join(debug, "\n"), "tool result(s) summarized") {
				t.Errorf("no -v trace of compaction: %q", debug)
			}
			// Tool results keep their calls.
			for i, m := range last {
				if m.Role == llm.RoleTool && (i == 0 || (last[i-1].Role != llm.RoleAssistant && last[i-1].Role != llm.RoleTool)) {
					t.Errorf("orphan tool result at %d", i)
				}
			}
		})
	}
}
