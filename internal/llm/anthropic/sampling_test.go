package anthropic

import (
	"errors"
	"reflect"
	"testing"

	"github.com/askygo/asky/internal/llm"
)

// The Messages API gets its own names (max_tokens, stop_sequences); what
// it has no field for is left out and reported, a temperature above its
// range refused.
func TestApplySampling(t *testing.T) {
	temp, mt, seed, fp := 0.7, 256, int64(3), 1.0
	s := llm.Sampling{Temperature: &temp, MaxTokens: &mt, Seed: &seed, Stop: []string{"###", "END"}, FrequencyPenalty: &fp}
	params, ignored, err := ApplySampling(map[string]any{"temperature": 0.1, "max_tokens": 8000, "top_k": 5, "stop_sequences": []string{"x"}}, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ignored, []string{"frequency_penalty", "seed"}) {
		t.Fatalf("ignored %q", ignored)
	}
	body := requestBody(llm.Request{Model: "claude", Parameters: params})
	want := map[string]any{"temperature": 0.7, "max_tokens": 256, "top_k": 5, "stop_sequences": []string{"###", "END"}}
	for k, v := range want {
		if !reflect.DeepEqual(body[k], v) {
			t.Errorf("%s = %#v, want %#v", k, body[k], v)
		}
	}
	for _, k := range []string{"seed", "frequency_penalty", "stop", "max_completion_tokens"} {
		if _, ok := body[k]; ok {
			t.Errorf("%s sent to the Messages API", k)
		}
	}
	hot := 1.5
	var pe *llm.ParamError
	if _, _, err := ApplySampling(nil, llm.Sampling{Temperature: &hot}); !errors.As(err, &pe) || pe.Param != "temperature" {
		t.Fatalf("temperature 1.5: %v", err)
	}
}
