package daemon

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/llm/llmtest"
)

// restart closes the world's factory (and its store) and makes a fresh
// one over the same home, as a new daemon process would.
func (w *world) restart(t *testing.T) {
	w.f.Close()
	f := cmdutil.New(w.f.IO)
	f.Getenv = func(k string) string { return w.env[k] }
	t.Cleanup(f.Close)
	w.f = f
}

// A Telegram voice transcript waiting for its yes outlives a daemon
// restart: the yes sent to the new daemon asks it, without transcribing
// again.
func TestTelegramVoiceYesAfterARestart(t *testing.T) {
	api := newBotAPI(t)
	api.files = map[string]string{"voice/file_1.oga": "OggS fake opus"}
	wa := newWhisperAPI(t, "how long do quokkas live")
	w := newWorld(t, mediaConfig(wa, true))
	w.env["WHISPER_KEY"] = "wk"
	w.llm.SetDefault(func(r llmtest.Request) llmtest.Response {
		return llmtest.Response{Text: "Answered: " + r.LastUser()}
	})
	offset := filepath.Join(t.TempDir(), "offset.json")
	_, stop := runTelegram(t, w, api, offset)
	api.push(1, map[string]any{"voice": map[string]any{"file_id": "voice/file_1.oga", "file_unique_id": "v", "duration": 2}})
	api.waitSent(t, w, "I heard")
	stop()

	w.restart(t)
	runTelegram(t, w, api, offset)
	api.push(2, map[string]any{"text": "yes"})
	if got := api.waitSent(t, w, "Answered:"); got != "Answered: how long do quokkas live" {
		t.Fatalf("yes after the restart: %q", got)
	}
	heard := 0
	for _, m := range api.messages() {
		if strings.Contains(m["text"], "I heard") {
			heard++
		}
	}
	wa.mu.Lock()
	defer wa.mu.Unlock()
	if heard != 1 || len(wa.got) != 1 {
		t.Fatalf("the voice message was handled again after the restart: %d prompts, %d transcriptions", heard, len(wa.got))
	}
}
