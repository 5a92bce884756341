package telegram

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/turn"
)

// answer is a runner that answers every question with text.
func answer(text string) runnerFunc {
	return func(context.Context, daemon.Ask) (*turn.Result, error) { return &turn.Result{Answer: text}, nil }
}

// A long answer of emoji and code reaches the chat in parts the Bot API
// accepts, each code part rendered as code.
func TestLongAnswerPartsAreAccepted(t *testing.T) {
	api := newFake(t)
	long := strings.Repeat("🙂 ", 3000) + "\n\n```sh\n" + strings.Repeat("echo 'a < b && c' > out\n", 300) + "```"
	start(t, api, answer(long), "", nil)
	api.push(1, 42, 42, "long", nil)
	got := waitSent(t, api, 42, 4)
	time.Sleep(100 * time.Millisecond)
	for _, c := range api.callsOf("sendMessage") {
		if c.Code != 0 {
			t.Fatalf("a part was refused (%d): %.80q", c.Code, c.Params["text"])
		}
	}
	code := 0
	for _, c := range api.sent(42) {
		code += strings.Count(c.Params["text"], "<pre>")
	}
	if len(got) < 4 || code < 2 {
		t.Fatalf("%d parts, %d code blocks", len(got), code)
	}
}

// HTML Telegram cannot parse (or that shows no text) is sent again as
// plain text; another 400 is not retried as plain text; a part Telegram
// still finds too long is sent in halves.
func TestBadRequestFallbacks(t *testing.T) {
	api := newFake(t)
	text := "**First** paragraph, long enough to halve.\n\nSecond paragraph, a < b."
	start(t, api, answer(text), "", nil)
	api.failNext("sendMessage", apiError{Code: 400, Description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 3"})
	api.push(1, 42, 42, "q", nil)
	got := waitSent(t, api, 42, 1)
	calls := api.callsOf("sendMessage")
	if len(calls) != 2 || calls[0].Code != 400 || got[0].Params["parse_mode"] != "" || got[0].Params["text"] != text {
		t.Fatalf("%+v", calls)
	}
	api.failNext("sendMessage", apiError{Code: 400, Description: "Bad Request: chat not found"})
	api.push(2, 42, 42, "q", nil)
	deadline := time.Now().Add(5 * time.Second)
	for api.count("sendMessage") < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if n := api.count("sendMessage"); n != 3 {
		t.Fatalf("%d sendMessage calls, want 3: %+v", n, api.callsOf("sendMessage"))
	}
	api.failNext("sendMessage", apiError{Code: 400, Description: "Bad Request: message is too long"})
	api.push(3, 42, 42, "q", nil)
	got = waitSent(t, api, 42, 3)[1:]
	time.Sleep(100 * time.Millisecond)
	got = api.sent(42)[1:]
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Params["text"])
	}
	if all := strings.Join(texts, " "); len(got) < 2 || all != "<b>First</b> paragraph, long enough to halve. Second paragraph, a &lt; b." {
		t.Fatalf("%q", texts)
	}
}

// Overlapping markdown spans still make HTML Telegram accepts: one call,
// formatted.
func TestOverlappingSpansAreNested(t *testing.T) {
	api := newFake(t)
	start(t, api, answer("**a *b** c*"), "", nil)
	api.push(1, 42, 42, "q", nil)
	got := waitSent(t, api, 42, 1)
	if n := api.count("sendMessage"); n != 1 || got[0].Params["text"] != "<b>a <i>b</i></b><i> c</i>" {
		t.Fatalf("%d calls: %q", n, got[0].Params["text"])
	}
}

// Whatever the markdown, the HTML parses (random mixes of markup,
// escapes and text).
func TestHTMLAlwaysParses(t *testing.T) {
	toks := []string{"**", "*", "_", "__", "~~", "`", "```", "[x](https://e.org/a_b?c=1&d=2)", "[y]", "(z)", "a", "b c", " ", "\n", "<", ">", "&", "# ", "- ", "é", "😀", "\\", "snake_case", "&amp;", "<b>"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range 14 {
			b.WriteString(toks[r.IntN(len(toks))])
		}
		if _, err := parseHTML(HTML(b.String())); err != "" {
			t.Fatalf("%q -> %q: %s", b.String(), HTML(b.String()), err)
		}
	}
}

// A 429 on getUpdates waits its retry_after before polling again.
func TestPoll429HonoursRetryAfter(t *testing.T) {
	api := newFake(t)
	api.failNext("getUpdates", apiError{Code: 429, RetryAfter: 2})
	start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "hi", nil)
	waitSent(t, api, 42, 1)
	polls := api.callsOf("getUpdates")
	if gap := polls[1].At.Sub(polls[0].At); polls[0].Code != 429 || gap < 1900*time.Millisecond {
		t.Fatalf("polled again %s after a 429 with retry_after 2", gap)
	}
}

// A second poller of the same token (here a bare getUpdates) ends ours
// with 409: one log line, a growing wait, then polling resumes. A
// webhook is named as the cause when it is one.
func TestConflict409LogsOnceAndBacksOff(t *testing.T) {
	api := newFake(t)
	f := start(t, api, runnerFunc(echo), "", nil)
	deadline := time.Now().Add(5 * time.Second)
	for api.count("getUpdates") == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// The other program's poll ends ours in progress, and then ends
	// our next one too.
	resp, err := http.PostForm(api.srv.URL+"/bot123:abc/getUpdates", url.Values{"timeout": {"0"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	api.failNext("getUpdates", apiError{Code: 409})
	api.push(1, 42, 42, "after the conflict", nil)
	waitSent(t, api, 42, 1)
	var conflicts []call
	for _, c := range api.callsOf("getUpdates") {
		if c.Code == 409 {
			conflicts = append(conflicts, c)
		}
	}
	if len(conflicts) != 2 || conflicts[1].At.Sub(conflicts[0].At) < 900*time.Millisecond {
		t.Fatalf("409s: %+v", conflicts)
	}
	if n := strings.Count(f.log.String(), "409 conflict"); n != 1 || !strings.Contains(f.log.String(), "another program is polling this bot token") {
		t.Fatalf("log:\n%s", f.log)
	}
	if s, _ := f.board.Get(Name); s.State != daemon.StateConnected {
		t.Fatalf("%+v", s)
	}

	api = newFake(t)
	api.failNext("getUpdates", apiError{Code: 409, Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"})
	f = start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "hi", nil)
	waitSent(t, api, 42, 1)
	if !strings.Contains(f.log.String(), "a webhook is set for this bot token") {
		t.Fatalf("log:\n%s", f.log)
	}
}

// In a forum topic the answer and the typing action go to the topic; in
// a group the answer replies to the question; in a private chat it does
// not.
func TestForumTopicAndGroupReplies(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 9, -500, "in a topic", map[string]any{"message_thread_id": 77, "is_topic_message": true,
		"chat": map[string]any{"id": -500, "type": "supergroup", "is_forum": true}})
	got := waitSent(t, api, -500, 1)[0]
	var reply struct {
		MessageID int  `json:"message_id"`
		Allow     bool `json:"allow_sending_without_reply"`
	}
	_ = json.Unmarshal([]byte(got.Params["reply_parameters"]), &reply)
	if got.Params["message_thread_id"] != "77" || reply.MessageID != 1 || !reply.Allow {
		t.Fatalf("%+v", got.Params)
	}
	typing := api.callsOf("sendChatAction")
	if len(typing) == 0 || typing[0].Params["message_thread_id"] != "77" {
		t.Fatalf("typing %+v", typing)
	}
	// The topic is deleted before the answer: it goes to the chat.
	api.failNext("sendMessage", apiError{Code: 400, Description: "Bad Request: message thread not found"})
	api.push(2, 9, -500, "topic gone", map[string]any{"message_thread_id": 78, "is_topic_message": true,
		"chat": map[string]any{"id": -500, "type": "supergroup", "is_forum": true}})
	if got := waitSent(t, api, -500, 2)[1]; got.Params["message_thread_id"] != "" || got.Params["text"] != "echo: topic gone (telegram:-500:78)" {
		t.Fatalf("%+v", got.Params)
	}
	api.push(3, 42, 42, "private", nil)
	if p := waitSent(t, api, 42, 1)[0].Params; p["reply_parameters"] != "" || p["message_thread_id"] != "" {
		t.Fatalf("%+v", p)
	}
}

// Commands carry the bot's name in groups (/session@asky_test_bot);
// one for another bot is not ours; /start asks for help; a leading
// mention is not part of the question.
func TestCommandsAddressedToTheBot(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 9, -500, "/help@other_bot", nil)
	api.push(2, 9, -500, "/session@Asky_Test_Bot new", nil)
	api.push(3, 9, -500, "@asky_test_bot what is 2+2?", nil)
	api.push(4, 42, 42, "/start", nil)
	got := waitSent(t, api, -500, 2)
	if got[0].Params["text"] != "echo: /session new (telegram:-500)" || got[1].Params["text"] != "echo: what is 2+2? (telegram:-500)" {
		t.Fatalf("%+v", got)
	}
	if p := waitSent(t, api, 42, 1)[0].Params["text"]; p != "echo: /help (telegram:42)" {
		t.Fatalf("%q", p)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(api.sent(-500)); n != 2 {
		t.Fatalf("%d answers", n)
	}
}

// A group upgraded to a supergroup: the answer is sent again to the new
// id (Telegram's 400 with migrate_to_chat_id), which is admitted as the
// group was, once and with one log line saying how to update the config.
func TestGroupMigratedToSupergroup(t *testing.T) {
	api := newFake(t)
	api.migrated[-500] = -1000500
	f := start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 9, -500, "before", nil)
	if got := waitSent(t, api, -1000500, 1); got[0].Params["text"] != "echo: before (telegram:-500)" {
		t.Fatalf("%+v", got)
	}
	api.push(2, 9, -1000500, "", map[string]any{"migrate_from_chat_id": -500,
		"chat": map[string]any{"id": -1000500, "type": "supergroup"}})
	api.push(3, 9, -1000500, "after", map[string]any{"chat": map[string]any{"id": -1000500, "type": "supergroup"}})
	if got := waitSent(t, api, -1000500, 2); got[1].Params["text"] != "echo: after (telegram:-1000500)" {
		t.Fatalf("%+v", got)
	}
	if n := strings.Count(f.log.String(), "replace -500 with -1000500 in [daemon.telegram] allowed_chats"); n != 1 {
		t.Fatalf("log:\n%s", f.log)
	}
}

// Bots download at most 20 MB: a larger document is refused by its
// declared size without getFile, and a file getFile finds too big is
// refused in words.
func TestDownloadLimit(t *testing.T) {
	api := newFake(t)
	api.fileSizes["big"] = 21 << 20
	start(t, api, runnerFunc(echo), "", func(o *Options) { o.Chat.Uploads = &daemon.Uploads{Dir: t.TempDir()} })
	api.push(1, 42, 42, "", map[string]any{"document": map[string]any{"file_id": "big", "file_unique_id": "u", "file_name": "big.pdf", "file_size": 21 << 20}})
	if got := waitSent(t, api, 42, 1)[0].Params["text"]; got != "✗ big.pdf: too large (21 MB; the limit is 20 MB)" || api.count("getFile") != 0 {
		t.Fatalf("%q after %d getFile", got, api.count("getFile"))
	}
	api.push(2, 42, 42, "", map[string]any{"document": map[string]any{"file_id": "big", "file_unique_id": "u", "file_name": "big.pdf"}})
	if got := waitSent(t, api, 42, 2)[1].Params["text"]; !strings.Contains(got, "bots can download at most 20 MB") {
		t.Fatalf("%q", got)
	}
}

// Only messages are asked for; an edit, a channel post or a sticker is
// not a question.
func TestUpdatesThatAreNotQuestions(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", nil)
	msg := map[string]any{"message_id": 1, "date": 0, "text": "edited", "from": map[string]any{"id": 42, "is_bot": false, "first_name": "u"},
		"chat": map[string]any{"id": 42, "type": "private"}}
	api.pushUpdate(map[string]any{"update_id": 1, "edited_message": msg})
	api.pushUpdate(map[string]any{"update_id": 2, "channel_post": map[string]any{"message_id": 2, "date": 0, "text": "post", "chat": map[string]any{"id": -500, "type": "channel"}}})
	api.push(3, 42, 42, "", map[string]any{"sticker": map[string]any{"file_id": "s", "file_unique_id": "s", "type": "regular", "width": 1, "height": 1, "is_animated": false, "is_video": false}})
	api.push(4, 42, 42, "real", nil)
	got := waitSent(t, api, 42, 1)
	time.Sleep(100 * time.Millisecond)
	if len(api.sent(42)) != 1 || len(api.sent(-500)) != 0 || got[0].Params["text"] != "echo: real (telegram:42)" {
		t.Fatalf("%+v", got)
	}
	if p := api.callsOf("getUpdates")[0].Params["allowed_updates"]; p != `["message"]` {
		t.Fatalf("allowed_updates %q", p)
	}
}

// A proxy's 502 page is logged in one short line, and polling resumes.
func TestBadGatewayPageLogsOneShortLine(t *testing.T) {
	api := newFake(t)
	api.failNext("getUpdates", apiError{Code: 502}, apiError{Code: 502})
	f := start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "hi", nil)
	waitSent(t, api, 42, 1)
	lines := strings.Split(strings.TrimSpace(f.log.String()), "\n")
	if len(lines) != 1 || len(lines[0]) > 400 || !strings.Contains(lines[0], "502 Bad Gateway") {
		t.Fatalf("log:\n%s", f.log)
	}
}
