package openai

import "github.com/askygo/asky/internal/llm"

// ApplySampling returns a copy of a model's configured params with s laid
// over it. Every Sampling field is a chat-completions parameter, so none
// is left out; a server that lacks one (Ollama has no logit_bias) ignores
// or refuses it as it would for any OpenAI client. The output limit keeps
// the key the configured params use (max_completion_tokens for a
// reasoning model configured so), else max_tokens, which every
// OpenAI-compatible server accepts.
func ApplySampling(params map[string]any, s llm.Sampling) map[string]any {
	out := s.Overlay(params, llm.MaxTokensKey(params))
	if s.Seed != nil {
		out["seed"] = *s.Seed
	}
	if len(s.Stop) > 0 {
		out["stop"] = s.Stop
	}
	if s.PresencePenalty != nil {
		out["presence_penalty"] = *s.PresencePenalty
	}
	if s.FrequencyPenalty != nil {
		out["frequency_penalty"] = *s.FrequencyPenalty
	}
	if len(s.LogitBias) > 0 {
		out["logit_bias"] = s.LogitBias
	}
	if s.ReasoningEffort != "" {
		out["reasoning_effort"] = s.ReasoningEffort
	}
	return out
}
