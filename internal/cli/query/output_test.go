package query

import (
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
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

// A TERM=dumb terminal gets no spinner and no live redraw (cursor
// movement it cannot do); a capable terminal gets both.
func TestOutputDumbTerminalHasNoTerminalControl(t *testing.T) {
	for _, term := range []string{"dumb", "xterm-256color"} {
		ios, _, _, _ := iostreams.Test()
		ios.SetTTY(true, true, true)
		f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}}
		o := newOutput(&Options{IO: ios, Factory: f})
		capable := term != "dumb"
		if o.tty != capable || (o.status != nil) != capable || (o.stream != nil) != capable {
			t.Errorf("TERM=%s: tty %v, spinner %v, stream %v; want all %v", term, o.tty, o.status != nil, o.stream != nil, capable)
		}
		o.close()
	}
}
