package llm

import (
	"errors"
	"reflect"
	"testing"
)

func TestSamplingNamesAndOverlay(t *testing.T) {
	temp, mt := 0.4, 12
	s := Sampling{Temperature: &temp, MaxTokens: &mt, Stop: []string{"x"}, ReasoningEffort: "low"}
	if got := s.Names(); !reflect.DeepEqual(got, []string{"max_tokens", "reasoning_effort", "stop", "temperature"}) {
		t.Fatalf("names %q", got)
	}
	if !(Sampling{}).IsZero() || s.IsZero() {
		t.Fatal("IsZero")
	}
	base := map[string]any{"temperature": 1.0, "max_completion_tokens": 900, "reasoning": true}
	got := s.Overlay(base, MaxTokensKey(base))
	want := map[string]any{"temperature": 0.4, "max_completion_tokens": 12, "reasoning": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("overlay %v, want %v", got, want)
	}
	if base["temperature"] != 1.0 || base["max_completion_tokens"] != 900 {
		t.Fatalf("the model's parameters were changed: %v", base)
	}
	if got := s.Overlay(nil, MaxTokensKey(nil)); !reflect.DeepEqual(got, map[string]any{"temperature": 0.4, "max_tokens": 12}) {
		t.Fatalf("overlay on nil %v", got)
	}
}

func TestSamplingValidate(t *testing.T) {
	f, i := func(v float64) *float64 { return &v }, func(v int) *int { return &v }
	for _, c := range []struct {
		s     Sampling
		param string
	}{
		{Sampling{Temperature: f(2.1)}, "temperature"},
		{Sampling{Temperature: f(-0.1)}, "temperature"},
		{Sampling{TopP: f(1.01)}, "top_p"},
		{Sampling{MaxTokens: i(0)}, "max_tokens"},
		{Sampling{Stop: []string{"1", "2", "3", "4", "5"}}, "stop"},
		{Sampling{PresencePenalty: f(-2.1)}, "presence_penalty"},
		{Sampling{FrequencyPenalty: f(2.1)}, "frequency_penalty"},
		{Sampling{LogitBias: map[string]float64{"1": -101}}, "logit_bias"},
		{Sampling{LogitBias: map[string]float64{"-1": 1}}, "logit_bias"},
	} {
		var pe *ParamError
		if err := c.s.Validate(); !errors.As(err, &pe) || pe.Param != c.param || pe.Code == "" {
			t.Errorf("%+v: %v", c.s, err)
		}
	}
	ok := Sampling{Temperature: f(0), TopP: f(1), MaxTokens: i(1), Stop: []string{"1", "2", "3", "4"}, PresencePenalty: f(2),
		FrequencyPenalty: f(-2), LogitBias: map[string]float64{"50256": 100}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}
