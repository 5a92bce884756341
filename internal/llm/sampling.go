package llm

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Sampling is one request's override of a model's configured sampling
// parameters, in OpenAI's vocabulary (the HTTP API's clients speak it).
// Nil and empty fields are not set. Each provider package maps it onto
// its wire format (openai.ApplySampling, anthropic.ApplySampling) and
// names what its API cannot take, so nothing is dropped silently.
//
// It applies only to the calls that produce the answer (the tool loop and
// the final answer after the turn limit): helper calls (page summaries,
// compaction, evidence and memory extraction, session summaries) keep the
// model's configured parameters and their own limits, because a client's
// max_tokens = 50 or stop sequence is about the answer it reads, and
// would cut a summary the answer depends on.
type Sampling struct {
	Temperature *float64
	TopP        *float64
	// MaxTokens bounds the answer's tokens (OpenAI max_tokens or
	// max_completion_tokens: one limit under two names).
	MaxTokens *int
	Seed      *int64
	// Stop sequences, at most four.
	Stop             []string
	PresencePenalty  *float64
	FrequencyPenalty *float64
	// LogitBias maps token ids (as strings) to a bias in [-100, 100].
	LogitBias map[string]float64
	// ReasoningEffort is OpenAI's reasoning_effort ("low", "high", …).
	ReasoningEffort string
}

// ParamError is a Sampling value out of range, in OpenAI's terms: Param
// names the field, Code is OpenAI's error code for it.
type ParamError struct {
	Param   string
	Code    string
	Message string
}

func (e *ParamError) Error() string { return e.Message }

// MaxStop is the most stop sequences OpenAI accepts.
const MaxStop = 4

// IsZero reports whether s overrides nothing.
func (s Sampling) IsZero() bool {
	return len(s.Names()) == 0
}

// Names lists the set fields by their OpenAI names, sorted.
func (s Sampling) Names() []string {
	var n []string
	add := func(set bool, name string) {
		if set {
			n = append(n, name)
		}
	}
	add(s.Temperature != nil, "temperature")
	add(s.TopP != nil, "top_p")
	add(s.MaxTokens != nil, "max_tokens")
	add(s.Seed != nil, "seed")
	add(len(s.Stop) > 0, "stop")
	add(s.PresencePenalty != nil, "presence_penalty")
	add(s.FrequencyPenalty != nil, "frequency_penalty")
	add(len(s.LogitBias) > 0, "logit_bias")
	add(s.ReasoningEffort != "", "reasoning_effort")
	slices.Sort(n)
	return n
}

// Validate checks the ranges OpenAI enforces, so a bad value is refused
// before the turn starts (and costs nothing) whatever the provider.
func (s Sampling) Validate() error {
	if err := between("temperature", s.Temperature, 0, 2); err != nil {
		return err
	}
	if err := between("top_p", s.TopP, 0, 1); err != nil {
		return err
	}
	if s.MaxTokens != nil && *s.MaxTokens < 1 {
		return &ParamError{Param: "max_tokens", Code: "integer_below_min_value",
			Message: fmt.Sprintf("invalid max_tokens %d: it must be at least 1", *s.MaxTokens)}
	}
	if len(s.Stop) > MaxStop {
		return &ParamError{Param: "stop", Code: "array_above_max_length",
			Message: fmt.Sprintf("invalid stop: %d sequences, at most %d are allowed", len(s.Stop), MaxStop)}
	}
	if err := between("presence_penalty", s.PresencePenalty, -2, 2); err != nil {
		return err
	}
	if err := between("frequency_penalty", s.FrequencyPenalty, -2, 2); err != nil {
		return err
	}
	for _, tok := range slices.Sorted(maps.Keys(s.LogitBias)) {
		if _, err := strconv.ParseUint(tok, 10, 32); err != nil {
			return &ParamError{Param: "logit_bias", Code: "invalid_value",
				Message: fmt.Sprintf("invalid logit_bias: key %q is not a token id", tok)}
		}
		v := s.LogitBias[tok]
		if err := between("logit_bias", &v, -100, 100); err != nil {
			return err
		}
	}
	return nil
}

func between(param string, v *float64, lo, hi float64) error {
	switch {
	case v == nil:
		return nil
	case *v < lo:
		return &ParamError{Param: param, Code: "decimal_below_min_value",
			Message: fmt.Sprintf("invalid %s %g: it must be at least %g", param, *v, lo)}
	case *v > hi:
		return &ParamError{Param: param, Code: "decimal_above_max_value",
			Message: fmt.Sprintf("invalid %s %g: it must be at most %g", param, *v, hi)}
	}
	return nil
}

// MaxTokensKey is the parameter a model's configured parameters use for
// the output limit: "max_completion_tokens" when they set it (OpenAI's
// reasoning models refuse max_tokens), else "max_tokens", which every
// OpenAI-compatible server and Anthropic accept.
func MaxTokensKey(params map[string]any) string {
	if _, ok := params["max_completion_tokens"]; ok {
		return "max_completion_tokens"
	}
	return "max_tokens"
}

// Overlay returns a copy of params with the fields every provider API
// shares laid over it: temperature, top_p and the output limit under
// maxKey. The provider packages add the rest in their own names.
func (s Sampling) Overlay(params map[string]any, maxKey string) map[string]any {
	out := maps.Clone(params)
	if out == nil {
		out = map[string]any{}
	}
	if s.Temperature != nil {
		out["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		out["top_p"] = *s.TopP
	}
	if s.MaxTokens != nil {
		delete(out, "max_tokens")
		delete(out, "max_completion_tokens")
		out[maxKey] = *s.MaxTokens
	}
	return out
}
