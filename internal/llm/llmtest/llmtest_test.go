package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseScript(t *testing.T) {
	rs, err := ParseScript([]byte(`[
	  {"text": "# Hi", "pieces": 2, "stall_after": 1, "stall": "1.5s", "frame_delay": 0.25},
	  {"tool_calls": [{"name": "web_search", "arguments": "{\"query\":\"x\"}"}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
	  {"status": 429, "retry_after": "2"},
	  {}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || time.Duration(rs[0].Stall) != 1500*time.Millisecond || time.Duration(rs[0].FrameDelay) != 250*time.Millisecond ||
		rs[1].ToolCalls[0].Name != "web_search" || rs[1].Usage.PromptTokens != 7 || rs[2].RetryAfter != "2" || !reflect.DeepEqual(rs[3], Response{}) {
		t.Errorf("parsed %+v", rs)
	}
	if _, err := ParseScript([]byte(`[{"txt": "typo"}]`)); err == nil || !strings.Contains(err.Error(), "txt") {
		t.Errorf("unknown field: err = %v", err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`[{"text":"a"},{"text":"b"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New()
	defer s.Close()
	if err := s.EnqueueFile(path); err != nil || s.Pending() != 2 {
		t.Errorf("EnqueueFile: %v, pending %d", err, s.Pending())
	}
	if err := s.EnqueueFile(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abcdefg", 3, []string{"abc", "de", "fg"}},
		{"hé😀", 5, []string{"h", "é", "😀"}},
		{"abc", 1, []string{"abc"}},
	}
	for _, tc := range cases {
		if got := Split(tc.s, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestKeywords(t *testing.T) {
	for q, want := range map[string]string{
		"What is the capital of France?": "# Answer\n\nParis",
		"please just say kiwi":           "# Answer\n\nkiwi",
		"anything else":                  "# Answer\n\nok",
	} {
		req := Request{Body: map[string]any{"messages": []any{map[string]any{"role": "user", "content": q}}}}
		if got := Keywords(req).Text; got != want {
			t.Errorf("Keywords(%q) = %q, want %q", q, got, want)
		}
	}
}

func get(t *testing.T, method, url, body string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestRoutes(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetModels("m1", "m2")
	if _, body := get(t, "GET", s.URL()+"/models", "", nil); !strings.Contains(body, `"id":"m1"`) || !strings.Contains(body, `"id":"m2"`) {
		t.Errorf("/models: %s", body)
	}
	s.Enqueue(Response{Text: "# Whole", ToolCalls: []ToolCall{{Name: "t", Arguments: "{}"}}})
	resp, body := get(t, "POST", s.URL()+"/chat/completions", `{"model":"m1","stream":false,"messages":[{"role":"user","content":"hi"}]}`, nil)
	var v struct {
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Model string
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("non-stream body %q: %v", body, err)
	}
	if v.Choices[0].Message.Content != "# Whole" || v.Choices[0].Message.ToolCalls[0].ID != "call_1" || v.Choices[0].FinishReason != "tool_calls" || v.Model != "m1" {
		t.Errorf("non-stream completion %+v", v)
	}
	s.RequireKey("k")
	if resp, _ := get(t, "POST", s.URL()+"/messages", `{}`, map[string]string{"x-api-key": "wrong"}); resp.StatusCode != 401 {
		t.Errorf("wrong key: %d", resp.StatusCode)
	}
	if resp, body := get(t, "POST", s.URL()+"/messages", `{"stream":true}`, map[string]string{"x-api-key": "k"}); resp.StatusCode != 200 || !strings.Contains(body, "event: message_stop") {
		t.Errorf("anthropic stream %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, "POST", s.URL()+"/nope", `{}`, nil); resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Protocol != OpenAI || reqs[0].LastUser() != "hi" || reqs[2].Protocol != Anthropic || reqs[2].Header.Get("x-api-key") != "k" {
		t.Errorf("recorded %+v", reqs)
	}
}
