package daemon

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/telegram"
	"github.com/askygo/asky/internal/llm/llmtest"
)

// startTelegram runs the daemon's chat router behind a Telegram bot on
// api until the test ends; uploads may come from the fake's loopback
// http:// file URLs.
func startTelegram(t *testing.T, w *world, api *botAPI) *daemon.Chat {
	t.Helper()
	chat, _ := runTelegram(t, w, api, filepath.Join(t.TempDir(), "offset.json"))
	return chat
}

// runTelegram is startTelegram keeping its update offset in offsetFile;
// stop ends it (at the latest when the test ends).
func runTelegram(t *testing.T, w *world, api *botAPI, offsetFile string) (chat *daemon.Chat, stop func()) {
	t.Helper()
	cfg, err := w.f.Config()
	if err != nil {
		t.Fatal(err)
	}
	dc, err := daemonConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	chat, err = newChat(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f}, cfg, dc, w.wake)
	if err != nil {
		t.Fatal(err)
	}
	chat.Uploads.AllowHTTPLoopback, chat.Uploads.Client = true, &http.Client{}
	tr, err := telegram.New(telegram.Options{Token: "123:abc", APIURL: api.srv.URL, AllowedUsers: []int64{42}, Chat: chat,
		Board: daemon.NewBoard(nil), Log: w.stderr, OffsetFile: offsetFile,
		PollTimeout: time.Second, StatusDelay: time.Hour, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = tr.Run(ctx) }()
	stop = sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stop)
	return chat, stop
}

// waitSent waits for a sent message containing want and returns it.
func (b *botAPI) waitSent(t *testing.T, w *world, want string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range b.messages() {
			if strings.Contains(m["text"], want) {
				return m["text"]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no message with %q; sent %+v\n%s", want, b.messages(), w.stderr)
	return ""
}

// A document sent in a chat is linked to that chat's session: the ack
// says what to ask, and the chat's next question reaches the model with
// the document's passage (bootstrap retrieval) while web search stays
// offered. With no document root configured the uploads live in the data
// dir, outside the roots, and still work for that chat.
func TestTelegramUploadIsLinkedToTheChat(t *testing.T) {
	api := newBotAPI(t)
	api.files = map[string]string{"documents/quokka-notes.md": "# Quokka field notes\n\nOn Rottnest Island the quokkas sleep through the day in the shade of Acacia rostellifera thickets.\n"}
	w := newWorld(t, "")
	w.llm.SetDefault(func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Text: "Under acacias, says your note."}
	})
	startTelegram(t, w, api)

	api.push(1, map[string]any{"document": map[string]any{"file_id": "documents/quokka-notes.md", "file_unique_id": "u1", "file_name": "quokka-notes.md"}})
	ack := api.waitSent(t, w, "Linked to this chat")
	if !strings.Contains(ack, "quokka-notes.md") || !strings.Contains(ack, "web search stays available") {
		t.Fatalf("ack %q", ack)
	}
	before := len(w.llm.Requests())
	api.push(2, map[string]any{"text": "where do quokkas sleep during the day?"})
	api.waitSent(t, w, "Under acacias")
	reqs := w.llm.Requests()[before:]
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	first := string(reqs[0].Raw)
	if !strings.Contains(first, "Acacia rostellifera") {
		t.Fatalf("first model request lacks the uploaded passage:\n%s", first)
	}
	if !strings.Contains(first, `"web_search"`) {
		t.Fatalf("web search not offered:\n%s", first)
	}
	st, _ := w.f.Store()
	s, err := st.SessionByName(context.Background(), "telegram:42")
	if err != nil || s.Defaults.Research == nil || !strings.HasSuffix(*s.Defaults.Research, ",web") {
		t.Fatalf("session %+v %v", s, err)
	}
	// An upload deleted from disk is unlinked rather than failing every
	// later question of the chat.
	os.Remove(strings.TrimSuffix(*s.Defaults.Research, ",web"))
	w.llm.SetDefault(func(llmtest.Request) llmtest.Response { return llmtest.Response{Text: "Still here."} })
	api.push(3, map[string]any{"text": "and now?"})
	api.waitSent(t, w, "Still here.")
	if s, _ = st.SessionByName(context.Background(), "telegram:42"); s.Defaults.Research != nil {
		t.Fatalf("pointer %q", *s.Defaults.Research)
	}
}
