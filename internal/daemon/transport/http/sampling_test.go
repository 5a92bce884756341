package httpapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm"
)

// Sampling fields reach the turn as one llm.Sampling; max_completion_tokens
// is the same limit as max_tokens and stop may be one string.
func TestChatSamplingReachesTheTurn(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "",
		`{"temperature":0.3,"top_p":0.9,"max_completion_tokens":64,"seed":7,"stop":"END","presence_penalty":-1,"frequency_penalty":1.5,`+
			`"logit_bias":{"50256":-100},"reasoning_effort":"low","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get(IgnoredHeader) != "" {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get(IgnoredHeader), b)
	}
	f, i, i64 := func(v float64) *float64 { return &v }, func(v int) *int { return &v }, func(v int64) *int64 { return &v }
	want := llm.Sampling{Temperature: f(0.3), TopP: f(0.9), MaxTokens: i(64), Seed: i64(7), Stop: []string{"END"},
		PresencePenalty: f(-1), FrequencyPenalty: f(1.5), LogitBias: map[string]float64{"50256": -100}, ReasoningEffort: "low"}
	if got := fr.last().Sampling; !reflect.DeepEqual(got, want) {
		t.Fatalf("sampling %+v, want %+v", got, want)
	}
	do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"max_tokens":5,"max_completion_tokens":5,"stop":["a","b"],"temperature":null,"messages":[{"role":"user","content":"x"}]}`)
	if got := fr.last().Sampling; *got.MaxTokens != 5 || !reflect.DeepEqual(got.Stop, []string{"a", "b"}) || got.Temperature != nil {
		t.Fatalf("sampling %+v", got)
	}
	do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"messages":[{"role":"user","content":"x"}]}`)
	if got := fr.last().Sampling; !got.IsZero() {
		t.Fatalf("no sampling fields, got %+v", got)
	}
}

// Out-of-range values are refused as OpenAI refuses them: 400
// invalid_request_error naming the parameter, before any turn runs.
func TestChatSamplingOutOfRange(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{Rate: 1000, Burst: 1000})
	for _, c := range []struct{ fields, param, code string }{
		{`"temperature":2.01`, "temperature", "decimal_above_max_value"},
		{`"temperature":-0.5`, "temperature", "decimal_below_min_value"},
		{`"temperature":"hot"`, "temperature", "invalid_type"},
		{`"top_p":1.1`, "top_p", "decimal_above_max_value"},
		{`"max_tokens":0`, "max_tokens", "integer_below_min_value"},
		{`"max_completion_tokens":-3`, "max_completion_tokens", "integer_below_min_value"},
		{`"max_tokens":10,"max_completion_tokens":20`, "max_tokens", "invalid_value"},
		{`"stop":["a","b","c","d","e"]`, "stop", "array_above_max_length"},
		{`"stop":7`, "stop", "invalid_type"},
		{`"presence_penalty":2.5`, "presence_penalty", "decimal_above_max_value"},
		{`"frequency_penalty":-2.5`, "frequency_penalty", "decimal_below_min_value"},
		{`"logit_bias":{"42":101}`, "logit_bias", "decimal_above_max_value"},
		{`"logit_bias":{"word":1}`, "logit_bias", "invalid_value"},
		{`"seed":1.5`, "seed", "invalid_type"},
	} {
		for _, stream := range []string{"false", "true"} {
			resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"stream":`+stream+`,`+c.fields+`,"messages":[{"role":"user","content":"x"}]}`)
			typ, code, param := apiErr(t, b)
			if resp.StatusCode != 400 || typ != "invalid_request_error" || code != c.code || param != c.param || !strings.Contains(b, c.param) {
				t.Errorf("%s: %d %s", c.fields, resp.StatusCode, b)
			}
		}
	}
	if len(fr.asks) != 0 {
		t.Fatalf("a refused request ran: %+v", fr.asks)
	}
	if _, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"temperature":"hot","messages":[{"role":"user","content":"x"}]}`); !strings.Contains(b, "invalid temperature: expected a number, got a JSON string") {
		t.Errorf("type error message: %s", b)
	}
	// The edges are valid.
	resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "",
		`{"temperature":2,"top_p":0,"max_tokens":1,"stop":["a","b","c","d"],"presence_penalty":-2,"messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// What the model's API could not take (reported by the turn) is named in
// IgnoredHeader, streamed or not, with the fields asky never applies.
func TestChatIgnoredHeader(t *testing.T) {
	fr := &fakeRunner{notSent: "presence_penalty, seed"}
	srv := newServer(t, fr, Options{})
	for _, stream := range []string{"false", "true"} {
		resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "",
			`{"stream":`+stream+`,"seed":1,"presence_penalty":0,"temperature":0.5,"verbosity":"low","messages":[{"role":"user","content":"x"}]}`)
		if resp.StatusCode != 200 || resp.Header.Get(IgnoredHeader) != "presence_penalty, seed, verbosity" {
			t.Errorf("stream %s: %d %q %s", stream, resp.StatusCode, resp.Header.Get(IgnoredHeader), b)
		}
	}
}

// An answer cut at the output limit finishes with "length", streamed or
// not, as OpenAI's do; a whole one with "stop".
func TestChatFinishReasonLength(t *testing.T) {
	for _, truncated := range []bool{true, false} {
		srv := newServer(t, &fakeRunner{truncated: truncated}, Options{})
		want := map[bool]string{true: `"finish_reason":"length"`, false: `"finish_reason":"stop"`}[truncated]
		for _, stream := range []string{"false", "true"} {
			resp, b := do(t, "POST", srv.URL+"/v1/chat/completions", "", `{"stream":`+stream+`,"max_tokens":3,"messages":[{"role":"user","content":"x"}]}`)
			if resp.StatusCode != 200 || !strings.Contains(b, want) || strings.Count(b, `"finish_reason":"`) != 1 {
				t.Errorf("truncated %v stream %s: %d %s", truncated, stream, resp.StatusCode, b)
			}
		}
	}
}
