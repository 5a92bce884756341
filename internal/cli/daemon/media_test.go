package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
)

// whisperAPI is a fake OpenAI /audio/transcriptions endpoint that records
// what it was sent.
type whisperAPI struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []map[string]string // model, file name, file content
}

func newWhisperAPI(t *testing.T, text string) *whisperAPI {
	wa := &whisperAPI{}
	wa.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer wk" {
			http.Error(w, `{"error":{"message":"wrong path or key"}}`, http.StatusNotFound)
			return
		}
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, `{"error":{"message":"no file"}}`, http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		wa.mu.Lock()
		wa.got = append(wa.got, map[string]string{"model": r.FormValue("model"), "name": h.Filename, "content": string(b)})
		wa.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"text": text})
	}))
	t.Cleanup(wa.srv.Close)
	return wa
}

// mediaConfig configures a transcription model on wa and a vision model
// on the world's fake LLM.
func mediaConfig(wa *whisperAPI, image bool) string {
	return `
[daemon]
transcription_model = "whisper"
vision_model = "eyes"

[api.whisper]
base_url = "` + wa.srv.URL + `/v1"
api_key_env = "WHISPER_KEY"

[models.whisper]
api = "whisper"
id = "whisper-1"

[models.eyes]
api = "fake"
id = "eyes-model"
image_support = ` + map[bool]string{true: "true", false: "false"}[image] + "\n"
}

// A Telegram voice message is transcribed by the configured model, shown,
// and asked as the question after the user's yes.
// A photo is described by the vision model (an image content part) for
// its caption, and the description and caption are asked.
func TestTelegramVoiceAndPhotoWithModels(t *testing.T) {
	api := newBotAPI(t)
	api.files = map[string]string{
		"voice/file_1.oga":  "OggS fake opus",
		"photos/small.jpg":  "\xff\xd8\xff\xe0 small",
		"photos/large.jpg":  "\xff\xd8\xff\xe0 large jpeg",
		"documents/x.pdf":   "%PDF-1.4",
		"videos/file_2.mp4": "video",
	}
	wa := newWhisperAPI(t, "how long do quokkas live")
	w := newWorld(t, mediaConfig(wa, true))
	w.env["WHISPER_KEY"] = "wk"
	w.llm.SetDefault(func(r llmtest.Request) llmtest.Response {
		if r.Model() == "eyes-model" {
			return llmtest.Response{Text: "A small brown marsupial smiling at the camera."}
		}
		return llmtest.Response{Text: "Answered: " + r.LastUser()}
	})
	startTelegram(t, w, api)

	api.push(1, map[string]any{"voice": map[string]any{"file_id": "voice/file_1.oga", "file_unique_id": "v", "duration": 2}})
	if got := api.waitSent(t, w, "I heard"); !strings.Contains(got, "“how long do quokkas live”") || !strings.Contains(got, "Reply yes") {
		t.Fatalf("voice prompt %q", got)
	}
	if n := len(w.llm.Requests()); n != 0 {
		t.Fatalf("the transcript was asked before the yes (%d model calls)", n)
	}
	api.push(3, map[string]any{"text": "yes"})
	got := api.waitSent(t, w, "Answered:")
	if got != "Answered: how long do quokkas live" {
		t.Fatalf("voice answer %q", got)
	}
	wa.mu.Lock()
	if len(wa.got) != 1 || wa.got[0]["model"] != "whisper-1" || wa.got[0]["name"] != "file_1.ogg" || wa.got[0]["content"] != "OggS fake opus" {
		t.Fatalf("transcription request %+v", wa.got)
	}
	wa.mu.Unlock()

	api.push(4, map[string]any{"caption": "what animal is this?", "photo": []any{
		map[string]any{"file_id": "photos/small.jpg", "file_unique_id": "s", "width": 90, "height": 90},
		map[string]any{"file_id": "photos/large.jpg", "file_unique_id": "l", "width": 800, "height": 600},
	}})
	got = api.waitSent(t, w, "what animal is this?")
	if !strings.Contains(got, "A small brown marsupial") {
		t.Fatalf("photo answer %q", got)
	}
	var vision llmtest.Request
	for _, r := range w.llm.Requests() {
		if r.Model() == "eyes-model" {
			vision = r
		}
	}
	raw := string(vision.Raw)
	if !strings.Contains(raw, `"type":"image_url"`) || !strings.Contains(raw, "data:image/jpeg;base64,/9j/4CBsYXJnZSBqcGVn") || !strings.Contains(raw, "what animal is this?") {
		t.Fatalf("vision request %s", raw)
	}
	// The conversation keeps both turns for follow-ups.
	st, _ := w.f.Store()
	s, err := st.SessionByName(context.Background(), "telegram:42")
	if err != nil {
		t.Fatal(err)
	}
	if turns, _ := st.SessionTurns(context.Background(), s.ID, 0); len(turns) != 2 {
		t.Fatalf("%d turns", len(turns))
	}
}

// Without models, voice and photos keep the clear "not supported yet"
// reply (and nothing is downloaded); a vision model without
// image_support, or an unknown alias, stops the daemon at start.
func TestTelegramMediaWithoutModels(t *testing.T) {
	api := newBotAPI(t)
	w := newWorld(t, "")
	startTelegram(t, w, api)
	api.push(1, map[string]any{"voice": map[string]any{"file_id": "voice/file_1.oga", "file_unique_id": "v", "duration": 2}})
	api.waitSent(t, w, "Voice messages are not supported yet")
	api.push(2, map[string]any{"photo": []any{map[string]any{"file_id": "photos/a.jpg", "file_unique_id": "s", "width": 9, "height": 9}}})
	api.waitSent(t, w, "Images are not supported yet")

	wa := newWhisperAPI(t, "x")
	for cfg, want := range map[string]string{
		mediaConfig(wa, false):                         `daemon.vision_model "eyes" does not say image_support = true`,
		"\n[daemon]\ntranscription_model = \"nope\"\n": `daemon.transcription_model "nope" is not a configured model alias`,
		"\n[daemon]\nvision_model = 3\n":               `daemon.vision_model must be a model alias`,
	} {
		w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n"+cfg)
		w.env["WHISPER_KEY"] = "wk"
		err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want %q", err, want)
		}
	}
}
