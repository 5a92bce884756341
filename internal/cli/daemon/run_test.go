package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/store"
)

type world struct {
	home   string
	llm    *llmtest.Server
	f      *cmdutil.Factory
	stdout *bytes.Buffer
	stderr *iostreams.SyncBuffer
	env    map[string]string
	// wake is what chat uploads wake (runTelegram; nil: nothing).
	wake deepWake
}

// newWorld writes a config pointing alias "fake" at the fake LLM, with
// extra appended to it.
func newWorld(t *testing.T, extra string) *world {
	t.Helper()
	w := &world{home: t.TempDir(), llm: llmtest.New(), stderr: &iostreams.SyncBuffer{}}
	t.Cleanup(w.llm.Close)
	cfg := fmt.Sprintf(`[general]
default_model = "fake"

[api.fake]
base_url = %q
api_key_env = "FAKE_KEY"

[models.fake]
api = "fake"
id = "fake-model"
context_size = 32000
%s`, w.llm.URL(), extra)
	if err := os.WriteFile(filepath.Join(w.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	w.env = map[string]string{"ASKY_HOME": w.home, "HOME": w.home, "FAKE_KEY": "k", "ASKY_NO_DETECT": "1"}
	ios, _, out, _ := iostreams.Test()
	ios.ErrOut = w.stderr
	w.stdout = out
	w.f = cmdutil.New(ios)
	w.f.Getenv = func(k string) string { return w.env[k] }
	t.Cleanup(w.f.Close)
	return w
}

// serve runs `daemon run` until stop is called (at the latest when the
// test ends) and returns its URL; stop returns what run returned.
func (w *world) serve(t *testing.T) (url string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	opts := &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f, Ready: func(u string) { ready <- u }}
	go func() { done <- runRun(ctx, opts) }()
	stop = sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { _ = stop() })
	select {
	case url = <-ready:
	case err := <-done:
		done <- err // for stop
		t.Fatalf("daemon run: %v\n%s", err, w.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("daemon never became ready")
	}
	return url, stop
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	resp, b := postResp(t, url, token, body)
	return resp.StatusCode, b
}

// postResp is post that also returns the response (its headers).
func postResp(t *testing.T, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The daemon answers through the CLI's own runner: turns land in history
// under the conversation's session and the next turn sees the previous.
func TestRunAnswersLikeTheCLIAndKeepsConversations(t *testing.T) {
	w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"MY_TOKEN\"\n")
	w.env["MY_TOKEN"] = "tok"
	url, _ := w.serve(t)
	if got := strings.TrimSpace(w.stdout.String()); got != url {
		t.Fatalf("stdout %q, want the URL %q", got, url)
	}
	if !strings.Contains(w.stderr.String(), "serving http (pid") {
		t.Fatalf("stderr: %s", w.stderr)
	}
	if code, _ := post(t, url+"/v1/ask", "", `{"question":"x"}`); code != 401 {
		t.Fatalf("no token: %d", code)
	}

	code, body := post(t, url+"/v1/chat/completions", "tok", `{"user":"trip","messages":[{"role":"user","content":"what is the capital of france"}]}`)
	if code != 200 || !strings.Contains(body, `"content":"# Answer\n\nParis"`) {
		t.Fatalf("%d %s", code, body)
	}
	// Streaming goes through the engine's events.
	code, body = post(t, url+"/v1/chat/completions", "tok", `{"stream":true,"messages":[{"role":"user","content":"just say plum"}]}`)
	if code != 200 || !strings.HasSuffix(body, "data: [DONE]\n\n") || strings.Count(body, `"content":`) < 3 || !strings.Contains(body, `"finish_reason":"stop"`) {
		t.Fatalf("stream: %d %s", code, body)
	}
	var streamed strings.Builder
	for _, line := range strings.Split(body, "\n") {
		var c struct {
			Choices []struct{ Delta struct{ Content string } }
		}
		if rest, ok := strings.CutPrefix(line, "data: {"); ok && json.Unmarshal([]byte("{"+rest), &c) == nil && len(c.Choices) > 0 {
			streamed.WriteString(c.Choices[0].Delta.Content)
		}
	}
	if !strings.Contains(streamed.String(), "plum") {
		t.Fatalf("streamed %q", streamed.String())
	}
	code, body = post(t, url+"/v1/ask", "tok", `{"question":"and japan?","conversation":"trip"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"answer", "model", "session_id", "history_id", "tool_calls", "sources", "usage", "elapsed_ms", "truncated"} {
		if _, ok := res[k]; !ok {
			t.Errorf("/v1/ask lacks %q: %s", k, body)
		}
	}
	if res["model"] != "fake" || !strings.Contains(res["answer"].(string), "Tokyo") || res["history_id"] != float64(3) {
		t.Fatalf("/v1/ask: %s", body)
	}
	// The second call was sent the first turn as history.
	reqs := w.llm.Requests()
	var msgs []string
	for _, m := range reqs[len(reqs)-1].Messages() {
		msgs = append(msgs, fmt.Sprintf("%v: %s", m["role"], llmtest.Text(m["content"])))
	}
	if joined := strings.Join(msgs, "\n"); !strings.Contains(joined, "user: what is the capital of france") || !strings.Contains(joined, "Paris") {
		t.Fatalf("history not sent:\n%s", joined)
	}
	// A one-shot ask has no session.
	if code, body := post(t, url+"/v1/ask", "tok", `{"question":"just say kiwi","lean":true}`); code != 200 || !strings.Contains(body, `"session_id":null`) {
		t.Fatalf("%d %s", code, body)
	}
	// Unknown alias is the client's mistake: 404 model_not_found, as
	// OpenAI answers (the SDKs raise NotFoundError).
	if code, body := post(t, url+"/v1/ask", "tok", `{"question":"x","model":"nope"}`); code != 404 || !strings.Contains(body, "nope") ||
		!strings.Contains(body, `"code":"model_not_found"`) {
		t.Fatalf("%d %s", code, body)
	}

	st, err := w.f.Store()
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.SessionByName(context.Background(), "http:trip")
	if err != nil {
		t.Fatal(err)
	}
	turns, err := st.SessionTurns(context.Background(), s.ID, 0)
	if err != nil || len(turns) != 2 || turns[0].Query != "what is the capital of france" || turns[1].Query != "and japan?" {
		t.Fatalf("session turns %v %v", turns, err)
	}
	if !strings.Contains(w.stderr.String(), "POST /v1/ask 200") {
		t.Fatalf("no request log:\n%s", w.stderr)
	}
}

// Stopping the daemon cancels a turn in flight; the engine saves it as
// interrupted and the lock is released.
func TestRunShutdownInterruptsTurns(t *testing.T) {
	w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n")
	w.llm.Enqueue(llmtest.Response{Text: "slow answer", StallAfter: 1, Stall: llmtest.Duration(time.Minute)})
	url, stop := w.serve(t)
	got := make(chan int, 1)
	go func() {
		code, _ := post(t, url+"/v1/ask", "", `{"question":"take your time","conversation":"c"}`)
		got <- code
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(w.llm.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the turn never reached the LLM")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if code := <-got; code != 503 {
		t.Fatalf("in-flight: %d", code)
	}
	st, _ := w.f.Store()
	turns, err := st.ListTurns(context.Background(), 10)
	if err != nil || len(turns) != 1 || turns[0].Status != store.StatusInterrupted {
		t.Fatalf("turns %+v %v", turns, err)
	}
	cfg, _ := w.f.Config()
	if _, running, _ := daemon.Status(pidPath(cfg)); running {
		t.Fatal("lock still held")
	}
}

func TestRunRefusals(t *testing.T) {
	t.Run("public without token", func(t *testing.T) {
		w := newWorld(t, "\n[daemon.http]\nlisten = \"0.0.0.0:0\"\n")
		err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
		var ce *cmdutil.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "without a token") || !strings.Contains(ce.Hint, "ASKY_DAEMON_TOKEN") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("loopback without token", func(t *testing.T) {
		w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\n")
		err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
		var ce *cmdutil.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "without a token") || !strings.Contains(ce.Hint, "allow_no_token") {
			t.Fatalf("a tokenless daemon must be asked for explicitly: %v", err)
		}
	})
	t.Run("already running", func(t *testing.T) {
		w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n")
		w.serve(t)
		err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("already running (pid %d)", os.Getpid())) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		w := newWorld(t, "\n[daemon.http]\nport = 1\n")
		err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
		if err == nil || !strings.Contains(err.Error(), "daemon.http.port") {
			t.Fatalf("%v", err)
		}
	})
}

// `daemon start` showed why the daemon exited but dropped the hint the
// daemon logged with it (a port in use: change [daemon.http] listen).
func TestLogTailKeepsTheHint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "daemon.log")
	os.WriteFile(p, []byte("old line\nerror: listen tcp 127.0.0.1:8765: bind: address already in use\nhint: is another program using that port?\n"), 0o600)
	msg, hint := logTail(p, 0)
	if msg != "listen tcp 127.0.0.1:8765: bind: address already in use" || hint != "is another program using that port?" {
		t.Fatalf("%q %q", msg, hint)
	}
	os.WriteFile(p, []byte("error: boom\n"), 0o600)
	if msg, hint := logTail(p, 0); msg != "boom" || hint != "" {
		t.Fatalf("%q %q", msg, hint)
	}
}
