package telegram

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
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
	// Code is the error code answered (-1: the connection dropped), 0
	// on success.
	Code int
}

// fakeAPI is a Bot API on httptest that records every call. It behaves
// as the Bot API documents: errors are {"ok":false,"error_code",
// "description","parameters"} with the HTTP status of error_code; a bad
// token is 401 on every method; getUpdates forgets updates below the
// offset, filters by allowed_updates, holds for timeout seconds, and a
// second concurrent getUpdates ends the first with 409; sendMessage
// parses the HTML parse mode (400 "can't parse entities") and counts the
// text after parsing in UTF-16 units (400 "message is too long" above
// 4096, "message text is empty" at 0); a group upgraded to a supergroup
// answers 400 with migrate_to_chat_id; getFile refuses files over 20 MB;
// an edit to the same text is 400 "message is not modified". Bodies are
// multipart, urlencoded or JSON, and must say their Content-Length: a
// chunked body is refused with 411, as by the many small Bot API fakes
// and proxies that read Content-Length bytes.
type fakeAPI struct {
	srv   *httptest.Server
	token string

	mu      sync.Mutex
	calls   []call
	updates []map[string]any
	nextID  int
	// fail makes the next calls of a method answer with an error.
	fail map[string][]apiError
	more chan struct{}
	// poll ends the getUpdates in progress (a newer one arrived).
	poll chan struct{}
	// migrated chats answer 400 with migrate_to_chat_id.
	migrated map[int64]int64
	// fileSizes are file sizes by file id (others are small).
	fileSizes map[string]int
	// revoked answers 401 to every call.
	revoked bool
	// texts are the messages' texts by id (an edit to the same text is
	// refused as "not modified").
	texts map[int]string
}

type apiError struct {
	Code        int // 0: the connection drops
	RetryAfter  int
	Description string
}

func newFake(t testing.TB) *fakeAPI {
	f := &fakeAPI{token: "123:abc", fail: map[string][]apiError{}, more: make(chan struct{}, 1), nextID: 100,
		migrated: map[int64]int64{}, fileSizes: map[string]int{}, texts: map[int]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// descriptions are the Bot API's words for its error codes.
var descriptions = map[int]string{
	400: "Bad Request",
	401: "Unauthorized",
	403: "Forbidden: bot was blocked by the user",
	409: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
	429: "Too Many Requests: retry after %d",
}

func (f *fakeAPI) reply(w http.ResponseWriter, e apiError, params map[string]any) {
	desc := e.Description
	if desc == "" {
		desc = descriptions[e.Code]
		if e.Code == 429 {
			desc = fmt.Sprintf(desc, e.RetryAfter)
		}
	}
	body := map[string]any{"ok": false, "error_code": e.Code, "description": desc}
	if e.RetryAfter > 0 {
		params = map[string]any{"retry_after": e.RetryAfter}
	}
	if params != nil {
		body["parameters"] = params
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Code)
	json.NewEncoder(w).Encode(body)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.ContentLength < 0 {
		http.Error(w, "length required", http.StatusLengthRequired)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/file/") {
		if !strings.HasPrefix(r.URL.Path, "/file/bot"+f.token+"/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("# Shared from Telegram\n"))
		return
	}
	tok, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
	params := map[string]string{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// Values as the form would carry them: objects and arrays as JSON.
		var body map[string]json.RawMessage
		_ = json.NewDecoder(r.Body).Decode(&body)
		for k, v := range body {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			params[k] = s
		}
	} else {
		_ = r.ParseMultipartForm(1 << 20) // also parses a urlencoded body
		for k, v := range r.Form {
			params[k] = v[0]
		}
		if r.MultipartForm != nil {
			for k, v := range r.MultipartForm.Value {
				params[k] = v[0]
			}
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: method, Params: params, At: time.Now()})
	idx := len(f.calls) - 1
	revoked := f.revoked
	f.mu.Unlock()
	refuse := func(e apiError, params map[string]any) {
		f.mu.Lock()
		f.calls[idx].Code = e.Code
		f.mu.Unlock()
		f.reply(w, e, params)
	}
	switch {
	case !ok || !strings.Contains(tok, ":"):
		// Not shaped like a token: the API does not route it.
		refuse(apiError{Code: 404, Description: "Not Found"}, nil)
		return
	case tok != f.token || revoked:
		refuse(apiError{Code: 401}, nil)
		return
	}
	f.mu.Lock()
	if errs := f.fail[method]; len(errs) > 0 {
		e := errs[0]
		f.fail[method] = errs[1:]
		f.mu.Unlock()
		if e.Code >= 500 { // a proxy's error page
			f.mu.Lock()
			f.calls[idx].Code = e.Code
			f.mu.Unlock()
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(e.Code)
			fmt.Fprintf(w, "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%[1]d %[2]s</h1></center>\r\n%s</body>\r\n</html>\r\n", e.Code, http.StatusText(e.Code), strings.Repeat("<!-- padding -->\r\n", 40))
			return
		}
		if e.Code == 0 { // a network drop: the connection dies mid-call
			f.mu.Lock()
			f.calls[idx].Code = -1
			f.mu.Unlock()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		refuse(e, nil)
		return
	}
	f.mu.Unlock()
	var result any = true
	switch method {
	case "getMe":
		result = map[string]any{"id": 123, "is_bot": true, "first_name": "asky", "username": "asky_test_bot"}
	case "getUpdates":
		out, conflict := f.getUpdates(r, params)
		if conflict {
			refuse(apiError{Code: 409}, nil)
			return
		}
		result = out
	case "getFile":
		size := f.fileSize(params["file_id"])
		if size > 20<<20 {
			refuse(apiError{Code: 400, Description: "Bad Request: file is too big"}, nil)
			return
		}
		result = map[string]any{"file_id": params["file_id"], "file_unique_id": "u", "file_size": size, "file_path": "documents/notes.md"}
	case "sendMessage", "editMessageText", "sendChatAction", "deleteMessage":
		chat, _ := strconv.ParseInt(params["chat_id"], 10, 64)
		f.mu.Lock()
		to, moved := f.migrated[chat]
		f.mu.Unlock()
		if moved {
			refuse(apiError{Code: 400, Description: "Bad Request: group chat was upgraded to a supergroup chat"}, map[string]any{"migrate_to_chat_id": to})
			return
		}
		if method == "sendChatAction" || method == "deleteMessage" {
			break
		}
		text, err := parseText(params["text"], params["parse_mode"])
		if err != "" {
			refuse(apiError{Code: 400, Description: "Bad Request: " + err}, nil)
			return
		}
		f.mu.Lock()
		f.nextID++
		id := f.nextID
		if method == "editMessageText" {
			id, _ = strconv.Atoi(params["message_id"])
			if f.texts[id] == text {
				f.mu.Unlock()
				refuse(apiError{Code: 400, Description: "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}, nil)
				return
			}
		}
		f.texts[id] = text
		f.mu.Unlock()
		result = map[string]any{"message_id": id, "date": 0, "chat": map[string]any{"id": chat, "type": "private"}, "text": text}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

// getUpdates answers the updates at or above offset (forgetting those
// below: the offset confirms them) of the allowed types, waiting up to
// timeout seconds for one; conflict is set when a newer getUpdates
// ended this one.
func (f *fakeAPI) getUpdates(r *http.Request, params map[string]string) (out []map[string]any, conflict bool) {
	offset, _ := strconv.ParseInt(params["offset"], 10, 64)
	timeout, _ := strconv.Atoi(params["timeout"])
	var allowed []string
	if a := params["allowed_updates"]; a != "" {
		_ = json.Unmarshal([]byte(a), &allowed)
	}
	mine := make(chan struct{})
	f.mu.Lock()
	if f.poll != nil {
		close(f.poll) // the poll in progress answers 409
	}
	f.poll = mine
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if f.poll == mine {
			f.poll = nil
		}
		f.mu.Unlock()
	}()
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		f.mu.Lock()
		f.updates = slices.DeleteFunc(f.updates, func(u map[string]any) bool { return int64(u["update_id"].(int)) < offset })
		out = nil
		for _, u := range f.updates {
			if len(allowed) == 0 || slices.ContainsFunc(allowed, func(k string) bool { return u[k] != nil }) {
				out = append(out, u)
			}
		}
		f.mu.Unlock()
		if len(out) > 0 || timeout == 0 {
			return out, false
		}
		select {
		case <-f.more:
		case <-mine:
			return nil, true
		case <-deadline:
			return []map[string]any{}, false
		case <-r.Context().Done():
			return nil, false
		}
	}
}

func (f *fakeAPI) fileSize(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.fileSizes[id]; ok {
		return n
	}
	return 23
}

// parseText is the text a message shows, or the Bot API's reason to
// refuse it.
func parseText(text, mode string) (string, string) {
	switch mode {
	case "":
	case "HTML":
		var err string
		if text, err = parseHTML(text); err != "" {
			return "", "can't parse entities: " + err
		}
	default:
		return "", "unsupported parse_mode"
	}
	text = strings.TrimSpace(text)
	switch n := utf16Len(text); {
	case n == 0:
		return "", "message text is empty"
	case n > 4096:
		return "", "message is too long"
	}
	return text, ""
}

// parseHTML strips Telegram's HTML: the supported tags, properly nested,
// and the entities &lt; &gt; &amp; &quot; and numeric ones; any other
// "<" or "&" is an error, as documented.
func parseHTML(s string) (string, string) {
	tags := []string{"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "span", "tg-spoiler", "blockquote", "tg-emoji"}
	var out strings.Builder
	var open []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "", fmt.Sprintf("Unclosed start tag at byte offset %d", i)
			}
			tag := s[i+1 : i+end]
			if name, closing := strings.CutPrefix(tag, "/"); closing {
				if len(open) == 0 || open[len(open)-1] != name {
					return "", fmt.Sprintf("Can't find end tag corresponding to start tag at byte offset %d", i)
				}
				open = open[:len(open)-1]
			} else {
				name, _, _ := strings.Cut(tag, " ")
				if !slices.Contains(tags, name) {
					return "", fmt.Sprintf("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				open = append(open, name)
			}
			i += end
		case '&':
			end := strings.IndexByte(s[i:], ';')
			ent := ""
			if end > 0 {
				ent = s[i+1 : i+end]
			}
			var r string
			switch {
			case ent == "lt":
				r = "<"
			case ent == "gt":
				r = ">"
			case ent == "amp":
				r = "&"
			case ent == "quot":
				r = `"`
			case strings.HasPrefix(ent, "#x"):
				if n, err := strconv.ParseInt(ent[2:], 16, 32); err == nil {
					r = string(rune(n))
				}
			case strings.HasPrefix(ent, "#"):
				if n, err := strconv.Atoi(ent[1:]); err == nil {
					r = string(rune(n))
				}
			}
			if r == "" {
				return "", fmt.Sprintf("Character '&' is reserved and must be escaped at byte offset %d", i)
			}
			out.WriteString(r)
			i += end
		case '>':
			return "", fmt.Sprintf("Character '>' is reserved and must be escaped at byte offset %d", i)
		default:
			out.WriteByte(s[i])
		}
	}
	if len(open) > 0 {
		return "", fmt.Sprintf("Can't find end tag corresponding to start tag \"%s\"", open[len(open)-1])
	}
	return out.String(), ""
}

// push queues a text message update from user in chat (a group when
// chat is negative).
func (f *fakeAPI) push(id int, user, chat int64, text string, extra map[string]any) {
	kind := "private"
	if chat < 0 {
		kind = "group"
	}
	msg := map[string]any{"message_id": id, "date": 0, "text": text,
		"from": map[string]any{"id": user, "is_bot": false, "first_name": "u"},
		"chat": map[string]any{"id": chat, "type": kind}}
	if text == "" {
		delete(msg, "text")
	}
	for k, v := range extra {
		msg[k] = v
	}
	f.pushUpdate(map[string]any{"update_id": id, "message": msg})
}

// pushUpdate queues any update.
func (f *fakeAPI) pushUpdate(u map[string]any) {
	f.mu.Lock()
	f.updates = append(f.updates, u)
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

// sent returns the messages chat received (the sendMessage calls
// accepted).
func (f *fakeAPI) sent(chat int64) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == "sendMessage" && c.Code == 0 && c.Params["chat_id"] == fmt.Sprint(chat) {
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

// callsOf returns the calls of method.
func (f *fakeAPI) callsOf(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}
