package httpapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm"
)

// Sampling fields reach the turn as one llm.Sampling, from the chat
// endpoint (streamed or not) and from /v1/ask; max_completion_tokens is
// the same limit as max_tokens and stop may be one string.
func TestSamplingReachesTheTurn(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	f, i, i64 := func(v float64) *float64 { return &v }, func(v int) *int { return &v }, func(v int64) *int64 { return &v }
	want := llm.Sampling{Temperature: f(0.3), TopP: f(0.9), MaxTokens: i(64), Seed: i64(7), Stop: []string{"END"},
		PresencePenalty: f(-1), FrequencyPenalty: f(1.5), LogitBias: map[string]float64{"50256": -100}, ReasoningEffort: "low"}
	for _, req := range samplingRequests(`"temperature":0.3,"top_p":0.9,"max_completion_tokens":64,"seed":7,"stop":"END","presence_penalty":-1,` +
		`"frequency_penalty":1.5,"logit_bias":{"50256":-100},"reasoning_effort":"low"`) {
		resp, b := do(t, "POST", srv.URL+req.path, "", req.body)
		if resp.StatusCode != 200 || resp.Header.Get(IgnoredHeader) != "" {
			t.Fatalf("%s: %d %q %s", req.body, resp.StatusCode, resp.Header.Get(IgnoredHeader), b)
		}
		if got := fr.last().Sampling; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: sampling %+v, want %+v", req.body, got, want)
		}
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

// Out-of-range values are refused as OpenAI refuses them, on the chat
// endpoint and on /v1/ask alike: 400 invalid_request_error naming the
// parameter, before any turn runs.
func TestSamplingOutOfRange(t *testing.T) {
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
		for _, req := range samplingRequests(c.fields) {
			resp, b := do(t, "POST", srv.URL+req.path, "", req.body)
			typ, code, param := apiErr(t, b)
			if resp.StatusCode != 400 || typ != "invalid_request_error" || code != c.code || param != c.param || !strings.Contains(b, c.param) {
				t.Errorf("%s %s: %d %s", req.path, req.body, resp.StatusCode, b)
			}
		}
	}
	if len(fr.asks) != 0 {
		t.Fatalf("a refused request ran: %+v", fr.asks)
	}
	for _, req := range samplingRequests(`"temperature":"hot"`) {
		if _, b := do(t, "POST", srv.URL+req.path, "", req.body); !strings.Contains(b, "invalid temperature: expected a number, got a JSON string") {
			t.Errorf("%s type error message: %s", req.path, b)
		}
	}
	// The edges are valid.
	for _, req := range samplingRequests(`"temperature":2,"top_p":0,"max_tokens":1,"stop":["a","b","c","d"],"presence_penalty":-2`) {
		if resp, b := do(t, "POST", srv.URL+req.path, "", req.body); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", req.path, resp.StatusCode, b)
		}
	}
}

type samplingRequest struct{ path, body string }

// samplingRequests are requests carrying fields on every endpoint that
// takes sampling parameters: the chat one, streamed or not, and /v1/ask.
func samplingRequests(fields string) []samplingRequest {
	return []samplingRequest{
		{"/v1/chat/completions", `{"stream":false,` + fields + `,"messages":[{"role":"user","content":"x"}]}`},
		{"/v1/chat/completions", `{"stream":true,` + fields + `,"messages":[{"role":"user","content":"x"}]}`},
		{"/v1/ask", `{"question":"x",` + fields + `}`},
	}
}

// asky's own API refuses fields it does not know, OpenAI's unapplied
// ones included, and asks without sampling fields override nothing.
func TestAskUnknownFields(t *testing.T) {
	fr := &fakeRunner{}
	srv := newServer(t, fr, Options{})
	for body, want := range map[string]string{
		// A typo names the field and what the endpoint takes.
		`{"question":"x","max_token":5}`:     `"code":"unknown_parameter","message":"unknown parameter \"max_token\": /v1/ask takes question, model, conversation, lean, temperature, top_p, max_tokens,`,
		`{"question":"x","verbosity":"low"}`: `"param":"verbosity"`,
		// A chat field says where it belongs.
		`{"question":"x","stream":true}`: `to stream, use POST /v1/chat/completions with \"stream\": true`,
		`{"question":"x","user":"trip"}`: `names the conversation (session http:NAME) with \"conversation\"`,
		`{"messages":[{"role":"user"}]}`: `/v1/ask takes the question as \"question\"`,
	} {
		if resp, b := do(t, "POST", srv.URL+"/v1/ask", "", body); resp.StatusCode != 400 || !strings.Contains(b, want) {
			t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
	do(t, "POST", srv.URL+"/v1/ask", "", `{"question":"x"}`)
	if got := fr.last().Sampling; !got.IsZero() {
		t.Fatalf("no sampling fields, got %+v", got)
	}
}

// On /v1/ask, what the model's API could not take is named in the same
// header as on the chat endpoint.
func TestAskIgnoredHeader(t *testing.T) {
	srv := newServer(t, &fakeRunner{notSent: "presence_penalty, seed"}, Options{})
	resp, b := do(t, "POST", srv.URL+"/v1/ask", "", `{"question":"x","seed":1,"presence_penalty":0,"temperature":0.5}`)
	if resp.StatusCode != 200 || resp.Header.Get(IgnoredHeader) != "presence_penalty, seed" {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get(IgnoredHeader), b)
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
