package turn_test

import (
	"context"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
)

// AnswerParameters replace the model's parameters in every answer call:
// the tool loop and the final call after the turn limit.
func TestAnswerParametersInEveryAnswerCall(t *testing.T) {
	f := newFixture(t, "openai")
	f.model.Parameters = map[string]any{"temperature": 1.0, "top_p": 0.5}
	f.srv.Enqueue(llmtest.Response{ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: `{"query":"q"}`}}},
		llmtest.Response{Text: "# Final"})
	req := f.request("research")
	req.MaxTurns = 1
	req.AnswerParameters = map[string]any{"temperature": 0.2, "max_tokens": 40}
	if _, err := f.run(t, context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls", len(reqs))
	}
	for i, r := range reqs {
		if r.Body["temperature"] != 0.2 || r.Body["max_tokens"] != float64(40) || r.Body["top_p"] != nil {
			t.Errorf("call %d: temperature %v max_tokens %v top_p %v", i, r.Body["temperature"], r.Body["max_tokens"], r.Body["top_p"])
		}
	}
	if f.model.Parameters["temperature"] != 1.0 {
		t.Fatalf("the model's parameters changed: %v", f.model.Parameters)
	}
}

// An answer cut at the output limit is marked, so the HTTP API can say
// finish_reason "length" as OpenAI does.
func TestTruncatedAnswer(t *testing.T) {
	for _, protocol := range []string{"openai", "anthropic"} {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t, protocol)
			f.srv.Enqueue(llmtest.Response{Text: "# Tides\n\nThe moon pulls", FinishReason: "length"}, llmtest.Response{Text: "# Whole"})
			res, err := f.run(t, context.Background(), f.request("tides"))
			if err != nil || !res.Truncated || res.Answer != "# Tides\n\nThe moon pulls" {
				t.Fatalf("%+v %v", res, err)
			}
			if res, err = f.run(t, context.Background(), f.request("again")); err != nil || res.Truncated {
				t.Fatalf("a whole answer marked truncated: %+v %v", res, err)
			}
		})
	}
}
