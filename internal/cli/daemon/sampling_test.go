package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
)

// longPage serves a page too long for a 150-token context, so reading it
// as a seed URL takes a summary call (a helper call) before the answer.
func longPage(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Tides</title></head><body><article><h1>Tides</h1>`+
			strings.Repeat("<p>The moon pulls the sea twice a day, and the tide follows it around the planet.</p>", 12)+`</article></body></html>`)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/tides"
}

// appendConfig adds TOML tables to the world's config.toml.
func (w *world) appendConfig(t *testing.T, extra string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(w.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(extra)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// claudeModel is an Anthropic model "claude" at the fake server.
func claudeModel(url string, contextSize int) string {
	return fmt.Sprintf(`
[api.claude]
type = "anthropic"
base_url = %q
api_key_env = "FAKE_KEY"

[models.claude]
api = "claude"
id = "claude-model"
context_size = %d
`, url, contextSize)
}

// isSummary tells the summarizer's call from the answer's.
func isSummary(r llmtest.Request) bool { return strings.Contains(r.System(), "ummariz") }

// A chat request's sampling parameters reach every call that produces the
// answer (tool loop included) in the provider's own names, and no helper
// call; what the model's API cannot take is named in the header.
func TestChatSamplingReachesTheAnswerCallsOnly(t *testing.T) {
	w := newWorld(t, "parameters = { temperature = 0.1, max_tokens = 700 }\n")
	page := longPage(t)
	cfg := fmt.Sprintf(`
[models.small]
api = "fake"
id = "small-model"
context_size = 150
parameters = { temperature = 0.1, max_tokens = 700 }

%s
parameters = { temperature = 0.1, max_tokens = 700 }

[fetch]
allow_hosts = ["127.0.0.2"]
timeout = 2

[daemon.http]
listen = "127.0.0.1:0"
token_env = "MY_TOKEN"
`, claudeModel(w.llm.URL(), 150))
	w.appendConfig(t, cfg)
	w.env["MY_TOKEN"] = "tok"
	// Summaries get a summary; an answer call first asks for a tool (an
	// unknown one, fed back as an error), then answers.
	w.llm.SetDefault(func(r llmtest.Request) llmtest.Response {
		switch {
		case isSummary(r):
			return llmtest.Response{Text: "The moon drives the tides."}
		case len(r.ToolResults()) == 0 && len(r.ToolNames()) > 0:
			return llmtest.Response{ToolCalls: []llmtest.ToolCall{{Name: "no_such_tool", Arguments: `{}`}}}
		}
		return llmtest.Response{Text: "# Tides\n\nThe moon."}
	})
	url, _ := w.serve(t)

	for _, c := range []struct {
		model, fields string
		answer        map[string]any
		absent        []string
		ignored       string
	}{
		{"small", `"temperature":0.6,"top_p":0.9,"max_completion_tokens":64,"seed":5,"stop":"END","presence_penalty":0.5`,
			map[string]any{"temperature": 0.6, "top_p": 0.9, "max_tokens": 64.0, "seed": 5.0, "stop": []any{"END"}, "presence_penalty": 0.5},
			[]string{"max_completion_tokens"}, ""},
		{"claude", `"temperature":0.6,"max_tokens":64,"seed":5,"stop":["END","###"],"presence_penalty":0.5`,
			map[string]any{"temperature": 0.6, "max_tokens": 64.0, "stop_sequences": []any{"END", "###"}},
			[]string{"seed", "presence_penalty", "stop"}, "presence_penalty, seed"},
	} {
		for _, stream := range []string{"false", "true"} {
			before := len(w.llm.Requests())
			resp, body := postResp(t, url+"/v1/chat/completions", "tok",
				`{"model":"`+c.model+`","stream":`+stream+`,`+c.fields+`,"messages":[{"role":"user","content":"what does `+page+` say?"}]}`)
			if resp.StatusCode != 200 || !strings.Contains(body, "moon") || resp.Header.Get("X-Asky-Ignored-Parameters") != c.ignored {
				t.Fatalf("%s stream %s: %d ignored %q %s", c.model, stream, resp.StatusCode, resp.Header.Get("X-Asky-Ignored-Parameters"), body)
			}
			var answers, helpers int
			for _, r := range w.llm.Requests()[before:] {
				if isSummary(r) {
					helpers++
					if r.Body["temperature"] != 0.1 || r.Body["max_tokens"] == 64.0 || r.Body["stop"] != nil || r.Body["stop_sequences"] != nil || r.Body["seed"] != nil {
						t.Errorf("%s: the summary call got the answer's overrides: %s", c.model, r.Raw)
					}
					continue
				}
				answers++
				for k, v := range c.answer {
					if !reflect.DeepEqual(r.Body[k], v) {
						t.Errorf("%s answer call %d: %s = %#v, want %#v", c.model, answers, k, r.Body[k], v)
					}
				}
				for _, k := range c.absent {
					if _, ok := r.Body[k]; ok {
						t.Errorf("%s answer call %d sent %s: %s", c.model, answers, k, r.Raw)
					}
				}
			}
			if helpers != 1 || answers != 2 {
				t.Fatalf("%s: %d summary calls, %d answer calls", c.model, helpers, answers)
			}
		}
	}

	// A value the model's API refuses is the client's mistake, refused
	// before any call.
	before := len(w.llm.Requests())
	resp, body := postResp(t, url+"/v1/chat/completions", "tok", `{"model":"claude","temperature":1.5,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 400 || !strings.Contains(body, `"param":"temperature"`) || !strings.Contains(body, "Anthropic models accept at most 1") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := len(w.llm.Requests()) - before; n != 0 {
		t.Fatalf("%d calls for a refused request", n)
	}
}

// POST /v1/ask takes the same sampling fields as the chat endpoint: the
// answer call carries them in the provider's names, what the API cannot
// take is named in the header, a bad value is a 400 before any call, and
// an answer cut at the limit says "truncated": true (OpenAI's
// finish_reason length, Anthropic's stop_reason max_tokens).
func TestAskSamplingAndTruncation(t *testing.T) {
	w := newWorld(t, "parameters = { temperature = 0.1, max_tokens = 700 }\n")
	w.appendConfig(t, claudeModel(w.llm.URL(), 32000)+`
[daemon.http]
listen = "127.0.0.1:0"
token_env = "MY_TOKEN"
`)
	w.env["MY_TOKEN"] = "tok"
	url, _ := w.serve(t)

	for _, c := range []struct {
		model, fields string
		answer        map[string]any
		ignored       string
	}{
		{"fake", `"temperature":0.6,"max_completion_tokens":8,"seed":5,"stop":"END"`,
			map[string]any{"temperature": 0.6, "max_tokens": 8.0, "seed": 5.0, "stop": []any{"END"}}, ""},
		{"claude", `"temperature":0.6,"max_tokens":8,"seed":5,"stop":["END"]`,
			map[string]any{"temperature": 0.6, "max_tokens": 8.0, "stop_sequences": []any{"END"}}, "seed"},
	} {
		for _, cut := range []bool{true, false} {
			finish := map[bool]string{true: "length", false: "stop"}[cut]
			w.llm.Enqueue(llmtest.Response{Text: "# Tides\n\nThe moon pulls", FinishReason: finish})
			resp, body := postResp(t, url+"/v1/ask", "tok", `{"question":"tides?","lean":true,"model":"`+c.model+`",`+c.fields+`}`)
			if resp.StatusCode != 200 || resp.Header.Get("X-Asky-Ignored-Parameters") != c.ignored {
				t.Fatalf("%s: %d ignored %q %s", c.model, resp.StatusCode, resp.Header.Get("X-Asky-Ignored-Parameters"), body)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(body), &res); err != nil {
				t.Fatal(err)
			}
			if res["truncated"] != cut || !strings.Contains(res["answer"].(string), "moon") {
				t.Errorf("%s finish %s: %s", c.model, finish, body)
			}
			reqs := w.llm.Requests()
			last := reqs[len(reqs)-1]
			for k, v := range c.answer {
				if !reflect.DeepEqual(last.Body[k], v) {
					t.Errorf("%s: %s = %#v, want %#v (%s)", c.model, k, last.Body[k], v, last.Raw)
				}
			}
		}
	}

	before := len(w.llm.Requests())
	for _, c := range []struct{ body, want string }{
		{`{"question":"x","temperature":3}`, `"param":"temperature"`},
		{`{"question":"x","model":"claude","temperature":1.5}`, "Anthropic models accept at most 1"},
		{`{"question":"x","max_tokens":0}`, `"code":"integer_below_min_value"`},
	} {
		if code, body := post(t, url+"/v1/ask", "tok", c.body); code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s", c.body, code, body)
		}
	}
	if n := len(w.llm.Requests()) - before; n != 0 {
		t.Fatalf("%d calls for refused requests", n)
	}
}
