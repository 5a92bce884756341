package anthropic

import (
	"fmt"

	"github.com/askygo/asky/internal/llm"
)

// MaxTemperature is the highest temperature the Messages API accepts
// (OpenAI's range goes to 2).
const MaxTemperature = 1

// ApplySampling returns a copy of a model's configured params with s laid
// over it in the Messages API's names: temperature, top_p, max_tokens
// (the field the API requires, whichever OpenAI name the client used) and
// stop as stop_sequences. The API has no seed, presence_penalty,
// frequency_penalty, logit_bias or reasoning_effort (thinking is
// configured per model) and refuses unknown fields, so those are left
// out and returned as ignored. A temperature above 1 is an error rather
// than a silent clamp: the client asked for a sampling the model cannot
// do.
func ApplySampling(params map[string]any, s llm.Sampling) (map[string]any, []string, error) {
	if s.Temperature != nil && *s.Temperature > MaxTemperature {
		return nil, nil, &llm.ParamError{Param: "temperature", Code: "decimal_above_max_value",
			Message: fmt.Sprintf("invalid temperature %g: Anthropic models accept at most %d", *s.Temperature, MaxTemperature)}
	}
	out := s.Overlay(params, "max_tokens")
	if len(s.Stop) > 0 {
		delete(out, "stop")
		out["stop_sequences"] = s.Stop
	}
	var ignored []string
	for _, n := range s.Names() {
		switch n {
		case "seed", "presence_penalty", "frequency_penalty", "logit_bias", "reasoning_effort":
			ignored = append(ignored, n)
		}
	}
	return out, ignored, nil
}
