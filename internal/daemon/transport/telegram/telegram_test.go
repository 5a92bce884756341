package telegram

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/turn"
)

type runnerFunc func(ctx context.Context, a daemon.Ask) (*turn.Result, error)

func (f runnerFunc) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) { return f(ctx, a) }

func echo(_ context.Context, a daemon.Ask) (*turn.Result, error) {
	return &turn.Result{Answer: fmt.Sprintf("echo: %s (%s)", a.Question, a.Conversation)}, nil
}

type fixture struct {
	api   *fakeAPI
	board *daemon.Board
	log   *iostreams.SyncBuffer
	stop  func()
	// done is closed when Run returned, with its error in runErr.
	done   chan struct{}
	runErr error
}

func start(t testing.TB, api *fakeAPI, r daemon.Runner, offsetFile string, edit func(*Options)) *fixture {
	t.Helper()
	f := &fixture{api: api, board: daemon.NewBoard(nil), log: &iostreams.SyncBuffer{}}
	o := Options{Token: "123:abc", APIURL: api.srv.URL, AllowedUsers: []int64{42}, AllowedChats: []int64{-500},
		Chat:  &daemon.Chat{Service: daemon.NewService(r, 0), Interval: 10 * time.Millisecond},
		Board: f.board, OffsetFile: offsetFile, Log: f.log, PollTimeout: 2 * time.Second, StatusDelay: time.Hour}
	if edit != nil {
		edit(&o)
	}
	tr, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.done = make(chan struct{})
	go func() { f.runErr = tr.Run(ctx); close(f.done) }()
	f.stop = sync.OnceFunc(func() { cancel(); <-f.done })
	t.Cleanup(func() {
		f.stop()
		if t.Failed() {
			t.Logf("log:\n%s\ncalls: %+v", f.log, api.calls)
		}
	})
	return f
}

// waitSent waits until chat got n messages.
func waitSent(t *testing.T, api *fakeAPI, chat int64, n int) []call {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := api.sent(chat)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("chat %d got %d messages, want %d: %+v", chat, len(got), n, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAllowlistAndSession(t *testing.T) {
	api := newFake(t)
	f := start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 7, 7, "let me in", nil)
	api.push(2, 7, 7, "please", nil)
	api.push(3, 42, 42, "hello", nil)
	api.push(4, 9, -500, "from the group", nil)
	got := waitSent(t, api, 42, 1)
	if got[0].Params["text"] != "echo: hello (telegram:42)" || got[0].Params["parse_mode"] != "HTML" {
		t.Fatalf("%+v", got[0])
	}
	if g := waitSent(t, api, -500, 1); g[0].Params["text"] != "echo: from the group (telegram:-500)" {
		t.Fatalf("%+v", g[0])
	}
	time.Sleep(100 * time.Millisecond)
	if len(api.sent(7)) != 0 {
		t.Fatal("answered an unauthorized user")
	}
	if n := strings.Count(f.log.String(), "dropped a message from user 7"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, f.log)
	}
	if s, _ := f.board.Get(Name); s.State != daemon.StateConnected {
		t.Fatalf("%+v", s)
	}
}

func TestOffsetJournalNeverAnswersTwiceOrSkips(t *testing.T) {
	api := newFake(t)
	journal := filepath.Join(t.TempDir(), "telegram.json")
	f := start(t, api, runnerFunc(echo), journal, nil)
	api.push(1, 42, 42, "one", nil)
	waitSent(t, api, 42, 1)
	f.stop()
	// Telegram still has update 1 (the poll confirming it was lost); a
	// restart must not answer it again.
	api.push(1, 42, 42, "one", nil)
	start(t, api, runnerFunc(echo), journal, nil)
	api.push(2, 42, 42, "two", nil)
	waitSent(t, api, 42, 2)
	time.Sleep(200 * time.Millisecond) // a wrong third answer would come now
	got := api.sent(42)
	if len(got) != 2 || got[1].Params["text"] != "echo: two (telegram:42)" {
		t.Fatalf("%+v", got)
	}
}

func TestPendingUpdateAnsweredAfterCrash(t *testing.T) {
	api := newFake(t)
	journal := filepath.Join(t.TempDir(), "telegram.json")
	// A journal left by a killed daemon: update 5 taken, never answered.
	crash := `{"offset":5,"pending":{"5":{"update_id":5,"message":{"message_id":5,"date":0,"text":"lost?","from":{"id":42,"is_bot":false,"first_name":"u"},"chat":{"id":42,"type":"private"}}}}}`
	if err := os.WriteFile(journal, []byte(crash), 0o600); err != nil {
		t.Fatal(err)
	}
	start(t, api, runnerFunc(echo), journal, nil)
	if got := waitSent(t, api, 42, 1); got[0].Params["text"] != "echo: lost? (telegram:42)" {
		t.Fatalf("%+v", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(journal)
		if !strings.Contains(string(b), "pending") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still pending: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSplitAndHTMLEscaping(t *testing.T) {
	api := newFake(t)
	para := strings.TrimSpace(strings.Repeat("word ", 150)) // 749 bytes
	long := strings.TrimSpace(strings.Repeat(para+"\n", 12))
	r := runnerFunc(func(_ context.Context, a daemon.Ask) (*turn.Result, error) {
		if a.Question == "long" {
			return &turn.Result{Answer: long}, nil
		}
		return &turn.Result{Answer: "a < b & **c** <script>x</script>"}, nil
	})
	start(t, api, r, "", nil)
	api.push(1, 42, 42, "escape", nil)
	got := waitSent(t, api, 42, 1)
	if got[0].Params["text"] != "a &lt; b &amp; <b>c</b> &lt;script&gt;x&lt;/script&gt;" {
		t.Fatalf("%q", got[0].Params["text"])
	}
	api.push(2, 42, 42, "long", nil)
	got = waitSent(t, api, 42, 4)[1:]
	var texts []string
	for _, c := range got {
		if n := len([]rune(c.Params["text"])); n > MaxMessage {
			t.Fatalf("a part has %d chars", n)
		}
		texts = append(texts, c.Params["text"])
	}
	if len(texts) != 3 || strings.Join(texts, "\n") != long {
		t.Fatalf("%d parts; split not on newlines", len(texts))
	}
}

func TestTypingAndStatusEdits(t *testing.T) {
	api := newFake(t)
	r := runnerFunc(func(_ context.Context, a daemon.Ask) (*turn.Result, error) {
		for i := range 12 {
			a.Events(turn.Event{Kind: turn.EventText, Text: "x"})
			time.Sleep(25 * time.Millisecond)
			_ = i
		}
		return &turn.Result{Answer: "done"}, nil
	})
	start(t, api, r, "", func(o *Options) { o.StatusDelay = 100 * time.Millisecond })
	api.push(1, 42, 42, "slow", nil)
	got := waitSent(t, api, 42, 2)
	if !strings.HasPrefix(got[0].Params["text"], "✍") && !strings.HasPrefix(got[0].Params["text"], "⏳") {
		t.Fatalf("first message is not a status: %+v", got[0])
	}
	if got[1].Params["text"] != "done" {
		t.Fatalf("%+v", got)
	}
	if api.count("editMessageText") < 1 || api.count("deleteMessage") != 1 || api.count("sendChatAction") < 1 {
		t.Fatalf("edits %d deletes %d typing %d", api.count("editMessageText"), api.count("deleteMessage"), api.count("sendChatAction"))
	}
	// A quick answer shows no status message at all.
	api.push(2, 42, 42, "quick", nil)
	start(t, newFake(t), runnerFunc(echo), "", nil)
}

func TestQuickAnswerHasNoStatus(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", func(o *Options) { o.StatusDelay = time.Second })
	api.push(1, 42, 42, "quick", nil)
	got := waitSent(t, api, 42, 1)
	time.Sleep(50 * time.Millisecond)
	if len(api.sent(42)) != 1 || !strings.HasPrefix(got[0].Params["text"], "echo:") || api.count("editMessageText") != 0 {
		t.Fatalf("%+v", api.sent(42))
	}
}

func TestRetryAfter429(t *testing.T) {
	api := newFake(t)
	api.failNext("sendMessage", apiError{Code: 429, RetryAfter: 1})
	start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "hi", nil)
	began := time.Now()
	got := waitSent(t, api, 42, 1)
	if time.Since(began) < 900*time.Millisecond || got[0].Params["text"] != "echo: hi (telegram:42)" {
		t.Fatalf("%+v after %s", got, time.Since(began))
	}
}

func TestConflict409IsReportedAndRecovers(t *testing.T) {
	api := newFake(t)
	api.failNext("getUpdates", apiError{Code: 409})
	f := start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "after the conflict", nil)
	waitSent(t, api, 42, 1)
	s, _ := f.board.Get(Name)
	if !strings.Contains(s.LastError, "409") || s.State != daemon.StateConnected {
		t.Fatalf("%+v", s)
	}
}

// A refused token stops the transport with one clear error instead of
// polling forever: at start (getMe) and when revoked while running.
func TestUnauthorized401StopsTheTransport(t *testing.T) {
	api := newFake(t)
	api.revoked = true
	f := start(t, api, runnerFunc(echo), "", nil)
	waitDone(t, f)
	if f.runErr == nil || !strings.Contains(f.runErr.Error(), "Bot API refused the bot token (401 unauthorized); check") {
		t.Fatalf("Run: %v", f.runErr)
	}
	if n := api.count("getUpdates"); n != 0 {
		t.Fatalf("polled %d times with a refused token", n)
	}
	if s, _ := f.board.Get(Name); s.State != daemon.StateFailed {
		t.Fatalf("%+v", s)
	}

	// A token not shaped like one is 404.
	api = newFake(t)
	f = start(t, api, runnerFunc(echo), "", func(o *Options) { o.Token = "not-a-token" })
	waitDone(t, f)
	if f.runErr == nil || !strings.Contains(f.runErr.Error(), "does not know this bot token (404 not found)") || api.count("getUpdates") != 0 {
		t.Fatalf("Run: %v", f.runErr)
	}

	api = newFake(t)
	api.failNext("getUpdates", apiError{Code: 401})
	f = start(t, api, runnerFunc(echo), "", nil)
	waitDone(t, f)
	if f.runErr == nil || !strings.Contains(f.runErr.Error(), "401 unauthorized") || api.count("getUpdates") != 1 {
		t.Fatalf("Run: %v after %d polls", f.runErr, api.count("getUpdates"))
	}
}

func waitDone(t *testing.T, f *fixture) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

func TestReplyContextAndVoice(t *testing.T) {
	api := newFake(t)
	var mu sync.Mutex
	var asked string
	start(t, api, runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		mu.Lock()
		asked = a.Question
		mu.Unlock()
		return echo(ctx, a)
	}), "", nil)
	api.push(1, 42, 42, "why?", map[string]any{"reply_to_message": map[string]any{"message_id": 9, "date": 0,
		"chat": map[string]any{"id": 42, "type": "private"}, "text": strings.Repeat("é", 400)}})
	waitSent(t, api, 42, 1)
	mu.Lock()
	want := "[Replying to: " + strings.Repeat("é", 300) + "…]\n\nwhy?"
	if asked != want {
		t.Fatalf("asked %q", asked)
	}
	mu.Unlock()
	api.push(2, 42, 42, "", map[string]any{"voice": map[string]any{"file_id": "v", "file_unique_id": "v", "duration": 1}})
	if got := waitSent(t, api, 42, 2); !strings.Contains(got[1].Params["text"], "not supported yet") {
		t.Fatalf("%+v", got[1])
	}
}

func TestHTML(t *testing.T) {
	for in, want := range map[string]string{
		"# T\n- a\n`x<y`":               "<b>T</b>\n• a\n<code>x&lt;y</code>",
		"```\nif a<b {}\n```":           "<pre>if a&lt;b {}</pre>",
		"[x](https://e.org/?a=1&b=\"2)": `<a href="https://e.org/?a=1&amp;b=&quot;2">x</a>`,
		`it's "quoted"`:                 `it's "quoted"`,
		"```go\nif a<b {}\n```":         `<pre><code class="language-go">if a&lt;b {}</code></pre>`,
		"```\"><x\nno\n```":             "<pre>no</pre>",
		"*it* and ~~s~~":                "<i>it</i> and <s>s</s>",
		"odd ` tick":                    "odd ` tick",
	} {
		if got := HTML(in); got != want {
			t.Errorf("HTML(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestDocumentUpload(t *testing.T) {
	api := newFake(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var got []string
	start(t, api, runnerFunc(echo), "", func(o *Options) {
		o.Chat.Uploads = &daemon.Uploads{Dir: dir, AllowHTTPLoopback: true,
			Client: daemon.NewGuardedClient(nil, netip.MustParsePrefix("127.0.0.1/32")),
			Ingest: func(_ context.Context, conv string, paths []string) daemon.Ingested {
				mu.Lock()
				defer mu.Unlock()
				got = append(append(got, conv), paths...)
				return daemon.Ingested{Note: "1 file ingested"}
			}}
	})
	api.push(1, 42, 42, "", map[string]any{"document": map[string]any{"file_id": "doc1", "file_unique_id": "u", "file_name": "notes.md"}})
	ack := waitSent(t, api, 42, 1)[0].Params["text"]
	if !strings.Contains(ack, "✓ notes.md: stored as") || !strings.Contains(ack, "1 file ingested") || strings.Contains(ack, "123:abc") {
		t.Fatalf("ack %q", ack)
	}
	mu.Lock()
	ingested := slices.Clone(got)
	mu.Unlock()
	if got := ingested; len(got) != 2 || got[0] != "telegram:42" || !strings.HasPrefix(got[1], dir) {
		t.Fatalf("%v", got)
	}
	// A caption is a question about the document, answered after the
	// acknowledgement.
	api.push(2, 42, 42, "", map[string]any{"caption": "what does it conclude?",
		"document": map[string]any{"file_id": "doc2", "file_unique_id": "u2", "file_name": "paper.md"}})
	sent := waitSent(t, api, 42, 3)
	if !strings.Contains(sent[1].Params["text"], "paper.md") || sent[2].Params["text"] != "echo: what does it conclude? (telegram:42)" {
		t.Fatalf("%+v", sent[1:])
	}
	// A refused document's caption is not asked: there is nothing to ask
	// about.
	api.push(3, 42, 42, "", map[string]any{"caption": "what is in it?",
		"document": map[string]any{"file_id": "doc3", "file_unique_id": "u3", "file_name": "huge.pdf", "file_size": 1 << 40}})
	api.push(4, 42, 42, "ping", nil)
	sent = waitSent(t, api, 42, 5)
	if !strings.HasPrefix(sent[3].Params["text"], "✗ huge.pdf: too large") || sent[4].Params["text"] != "echo: ping (telegram:42)" {
		t.Fatalf("%+v", sent[3:])
	}
}

func TestNetworkDropDuringPoll(t *testing.T) {
	api := newFake(t)
	api.failNext("getUpdates", apiError{}, apiError{})
	f := start(t, api, runnerFunc(echo), "", nil)
	api.push(1, 42, 42, "after the drop", nil)
	if got := waitSent(t, api, 42, 1); got[0].Params["text"] != "echo: after the drop (telegram:42)" {
		t.Fatalf("%+v", got)
	}
	if s, _ := f.board.Get(Name); s.LastError == "" || s.State != daemon.StateConnected {
		t.Fatalf("%+v", s)
	}
}

// An answer cut at the output limit says so in the chat, as the CLI does
// on stderr: otherwise the cut reads as the end of the answer.
func TestTruncatedAnswerSaysSo(t *testing.T) {
	api := newFake(t)
	r := runnerFunc(func(_ context.Context, a daemon.Ask) (*turn.Result, error) {
		if a.Question == "cut" {
			return &turn.Result{Answer: "The first half", Model: "gpt", Truncated: true}, nil
		}
		return &turn.Result{Answer: "whole", Model: "gpt"}, nil
	})
	start(t, api, r, "", nil)
	api.push(1, 42, 42, "cut", nil)
	got := waitSent(t, api, 42, 1)
	want := "The first half\n\n⚠️ The answer was cut at the model's output limit; set a higher max_tokens in [models.gpt] parameters."
	if got[0].Params["text"] != want {
		t.Fatalf("%q", got[0].Params["text"])
	}
	api.push(2, 42, 42, "whole", nil)
	if got = waitSent(t, api, 42, 2); got[1].Params["text"] != "whole" {
		t.Fatalf("%q", got[1].Params["text"])
	}
}
