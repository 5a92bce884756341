package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/store"
)

// botAPI is a minimal Bot API that records sendMessage calls, hands
// out pushed updates and serves files by id.
type botAPI struct {
	srv     *httptest.Server
	mu      sync.Mutex
	sent    []map[string]string
	updates []map[string]any
	// files are the downloadable files by file id (= file path).
	files map[string]string
}

// push queues an update from user 42 in chat 42 (unless msg names
// another chat) with the given message fields.
func (b *botAPI) push(id int, msg map[string]any) {
	msg["message_id"], msg["date"] = id, 0
	if msg["chat"] == nil {
		msg["chat"] = map[string]any{"id": 42, "type": "private"}
	}
	msg["from"] = map[string]any{"id": 42, "is_bot": false, "first_name": "Q"}
	b.mu.Lock()
	b.updates = append(b.updates, map[string]any{"update_id": id, "message": msg})
	b.mu.Unlock()
}

func newBotAPI(t *testing.T) *botAPI {
	b := &botAPI{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, id, ok := strings.Cut(r.URL.Path, "/file/bot123:abc/"); ok {
			b.mu.Lock()
			body, found := b.files[id]
			b.mu.Unlock()
			if !found {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte(body))
			return
		}
		_ = r.ParseMultipartForm(1 << 20)
		params := map[string]string{}
		if r.MultipartForm != nil {
			for k, v := range r.MultipartForm.Value {
				params[k] = v[0]
			}
		}
		var result any = true
		switch {
		case strings.HasSuffix(r.URL.Path, "/getMe"):
			result = map[string]any{"id": 123, "is_bot": true, "first_name": "asky", "username": "asky_test_bot"}
		case strings.HasSuffix(r.URL.Path, "/getUpdates"):
			offset, _ := strconv.Atoi(params["offset"])
			b.mu.Lock()
			var pending []map[string]any
			for _, u := range b.updates {
				if u["update_id"].(int) >= offset {
					pending = append(pending, u)
				}
			}
			b.mu.Unlock()
			if len(pending) > 0 {
				result = pending
				break
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-r.Context().Done():
			}
			result = []any{}
		case strings.HasSuffix(r.URL.Path, "/getFile"):
			result = map[string]any{"file_id": params["file_id"], "file_unique_id": "u", "file_path": params["file_id"]}
		case strings.HasSuffix(r.URL.Path, "/sendMessage"):
			b.mu.Lock()
			b.sent = append(b.sent, params)
			b.mu.Unlock()
			result = map[string]any{"message_id": 1, "date": 0, "chat": map[string]any{"id": 1, "type": "private"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *botAPI) messages() []map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]map[string]string(nil), b.sent...)
}

// A due job with --notify telegram:CHAT is answered in that chat by the
// daemon; a chat outside the allowlist and a transport that is not
// enabled are recorded as the run's delivery failure.
func TestJobAnswersDeliveredOverTelegram(t *testing.T) {
	api := newBotAPI(t)
	w := newWorld(t, "\n[daemon.http]\nenabled = false\n\n[daemon.telegram]\nenabled = true\napi_url = \""+api.srv.URL+"\"\nallowed_users = [42]\n")
	w.env["ASKY_TELEGRAM_TOKEN"] = "123:abc"
	w.llm.SetDefault(func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Text: "Quokkas are **happy** <always>."}
	})
	st, err := w.f.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	due := time.Now().Add(-time.Second)
	var jobs []*store.Job
	for _, to := range []string{"telegram:42", "telegram:7", "xmpp:bob@example.org"} {
		j := &store.Job{Question: "how are quokkas?", ScheduleKind: "at", Schedule: due.Format(time.RFC3339), Notify: to, NextRun: due}
		if err := st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	w.serve(t)

	finished := func(id int64) *store.JobRun {
		deadline := time.Now().Add(15 * time.Second)
		for {
			runs, _ := st.JobRuns(ctx, id, 1)
			if len(runs) == 1 && runs[0].Status != store.RunRunning {
				return runs[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %d never finished: %+v\n%s", id, runs, w.stderr)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if r := finished(jobs[0].ID); r.Status != store.RunOK || r.NotifyError != "" {
		t.Fatalf("run %+v\n%s", r, w.stderr)
	}
	msgs := api.messages()
	if len(msgs) != 1 || msgs[0]["chat_id"] != "42" || msgs[0]["parse_mode"] != "HTML" ||
		!strings.Contains(msgs[0]["text"], "<b>Job ") || !strings.Contains(msgs[0]["text"], "Quokkas are <b>happy</b> &lt;always&gt;.") {
		t.Fatalf("sent %+v", msgs)
	}
	if r := finished(jobs[1].ID); !strings.Contains(r.NotifyError, "refused to deliver to telegram:7: not in [daemon.telegram] allowed_chats or allowed_users") {
		t.Fatalf("run %+v", r)
	}
	if r := finished(jobs[2].ID); !strings.Contains(r.NotifyError, "not available") {
		t.Fatalf("run %+v", r)
	}
	if got := api.messages(); len(got) != 1 {
		t.Fatalf("sent %+v", got)
	}
}

// A chat that set a [user_prompts] override gets /name expanded from the
// config's prompts with its own on top; a file:// prompt is not read for
// a chat.
func TestChatPromptsOverrideExpands(t *testing.T) {
	w := newWorld(t, "\n[user_prompts]\nr = \"Review loosely:\"\nf = \"file://~/secret.txt\"\nd = \"Define:\"\n")
	os.WriteFile(filepath.Join(w.home, "secret.txt"), []byte("the secret"), 0o600)
	r := newRunner(w.f)
	ctx := context.Background()
	a := daemon.Ask{Conversation: "xmpp:a@b", Question: "/r the quokka /d /f", Prompts: map[string]string{"r": "Review carefully:"}}
	if _, err := r.Run(ctx, a); err != nil {
		t.Fatal(err)
	}
	reqs := w.llm.Requests()
	if got := reqs[len(reqs)-1].LastUser(); !strings.Contains(got, "Review carefully: the quokka Define: /f") {
		t.Fatalf("question sent %q", got)
	}
	a = daemon.Ask{Conversation: "xmpp:c@d", Question: "/r as typed"}
	if _, err := r.Run(ctx, a); err != nil {
		t.Fatal(err)
	}
	reqs = w.llm.Requests()
	if got := reqs[len(reqs)-1].LastUser(); !strings.Contains(got, "/r as typed") {
		t.Fatalf("question sent %q", got)
	}
}
