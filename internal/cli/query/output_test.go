package query

import (
	"strings"
	"testing"
)

// The cut-answer hint names the limit key the model's parameters use:
// OpenAI reasoning models take max_completion_tokens, not max_tokens.
func TestTruncatedWarningNamesTheModelsLimitKey(t *testing.T) {
	for _, c := range []struct {
		params map[string]any
		want   string
	}{
		{nil, "set a higher max_tokens in [models.o3] parameters"},
		{map[string]any{"max_tokens": 100}, "set a higher max_tokens in [models.o3] parameters"},
		{map[string]any{"max_completion_tokens": 100}, "set a higher max_completion_tokens in [models.o3] parameters"},
	} {
		got := truncatedWarning("o3", c.params)
		if !strings.HasPrefix(got, "warning: the answer was cut at the model's output limit; ") || !strings.HasSuffix(got, c.want) || strings.Contains(got, "\n") {
			t.Errorf("%v: %q", c.params, got)
		}
	}
}
