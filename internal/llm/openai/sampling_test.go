package openai

import (
	"reflect"
	"testing"

	"github.com/askygo/asky/internal/llm"
)

// Every override reaches the body in OpenAI's names; the output limit
// keeps the key the model is configured with.
func TestApplySampling(t *testing.T) {
	temp, mt, seed, pp := 0.2, 30, int64(9), 0.5
	s := llm.Sampling{Temperature: &temp, MaxTokens: &mt, Seed: &seed, Stop: []string{"END"}, PresencePenalty: &pp,
		LogitBias: map[string]float64{"7": 5}, ReasoningEffort: "high"}
	got := ApplySampling(map[string]any{"temperature": 1, "top_p": 0.8}, s)
	body := requestBody(llm.Request{Model: "m", Parameters: got})
	for k, v := range map[string]any{"temperature": 0.2, "top_p": 0.8, "max_tokens": 30, "seed": int64(9), "stop": []string{"END"},
		"presence_penalty": 0.5, "logit_bias": map[string]float64{"7": 5}, "reasoning_effort": "high"} {
		if !reflect.DeepEqual(body[k], v) {
			t.Errorf("%s = %#v, want %#v", k, body[k], v)
		}
	}
	if _, ok := body["frequency_penalty"]; ok {
		t.Error("an unset override was sent")
	}
	got = ApplySampling(map[string]any{"max_completion_tokens": 4000}, s)
	if got["max_completion_tokens"] != 30 || got["max_tokens"] != nil {
		t.Fatalf("reasoning model limit: %v", got)
	}
}
