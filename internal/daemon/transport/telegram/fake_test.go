package telegram

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// call is one Bot API request the fake received.
type call struct {
	Method string
	Params map[string]string
	At     time.Time
}

// fakeAPI is a Bot API on httptest that records every call.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []call
	updates []map[string]any
	nextID  int
	// fail makes the next calls of a method answer with an error.
	fail map[string][]apiError
	more chan struct{}
}

type apiError struct {
	Code       int
	RetryAfter int
}

func newFake(t testing.TB) *fakeAPI {
	f := &fakeAPI{fail: map[string][]apiError{}, more: make(chan struct{}, 1), nextID: 100}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/file/") {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("# Shared from Telegram\n"))
		return
	}
	parts := strings.Split(r.URL.Path, "/")
	method := parts[len(parts)-1]
	_ = r.ParseMultipartForm(1 << 20)
	params := map[string]string{}
	if r.MultipartForm != nil {
		for k, v := range r.MultipartForm.Value {
			params[k] = v[0]
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: method, Params: params, At: time.Now()})
	if errs := f.fail[method]; len(errs) > 0 {
		e := errs[0]
		f.fail[method] = errs[1:]
		f.mu.Unlock()
		if e.Code == 0 { // a network drop: the connection dies mid-poll
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		body := map[string]any{"ok": false, "error_code": e.Code, "description": http.StatusText(e.Code)}
		if e.RetryAfter > 0 {
			body["parameters"] = map[string]any{"retry_after": e.RetryAfter}
		}
		json.NewEncoder(w).Encode(body)
		return
	}
	f.mu.Unlock()
	var result any = true
	switch method {
	case "getUpdates":
		offset, _ := strconv.ParseInt(params["offset"], 10, 64)
		deadline := time.After(200 * time.Millisecond)
		for {
			f.mu.Lock()
			var out []map[string]any
			for _, u := range f.updates {
				if int64(u["update_id"].(int)) >= offset {
					out = append(out, u)
				}
			}
			f.mu.Unlock()
			if len(out) > 0 {
				result = out
				break
			}
			select {
			case <-f.more:
				continue
			case <-deadline:
			case <-r.Context().Done():
			}
			result = []any{}
			break
		}
	case "getFile":
		result = map[string]any{"file_id": params["file_id"], "file_unique_id": "u", "file_path": "documents/notes.md"}
	case "sendMessage", "editMessageText":
		f.mu.Lock()
		f.nextID++
		id := f.nextID
		f.mu.Unlock()
		chat, _ := strconv.ParseInt(params["chat_id"], 10, 64)
		if method == "editMessageText" {
			id, _ = strconv.Atoi(params["message_id"])
		}
		result = map[string]any{"message_id": id, "date": 0, "chat": map[string]any{"id": chat, "type": "private"}, "text": params["text"]}
	}
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

// push queues a text message update from user in chat.
func (f *fakeAPI) push(id int, user, chat int64, text string, extra map[string]any) {
	msg := map[string]any{"message_id": id, "date": 0, "text": text,
		"from": map[string]any{"id": user, "is_bot": false, "first_name": "u"},
		"chat": map[string]any{"id": chat, "type": "private"}}
	for k, v := range extra {
		msg[k] = v
	}
	f.mu.Lock()
	f.updates = append(f.updates, map[string]any{"update_id": id, "message": msg})
	f.mu.Unlock()
	select {
	case f.more <- struct{}{}:
	default:
	}
}

func (f *fakeAPI) failNext(method string, errs ...apiError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method] = append(f.fail[method], errs...)
}

// sent returns the texts of sendMessage calls to chat.
func (f *fakeAPI) sent(chat int64) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == "sendMessage" && c.Params["chat_id"] == fmt.Sprint(chat) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeAPI) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.Method == method {
			n++
		}
	}
	return n
}
