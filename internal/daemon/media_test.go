package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/turn"
)

// An XMPP OOB attachment that is a voice note or an image goes to the
// media models (documents stay uploads); downloads are held to the media
// content types and size; without models the reply says "not supported
// yet".
func TestChatMediaUploads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/note.m4a":
			w.Header().Set("Content-Type", "audio/mp4")
			w.Write([]byte("m4a bytes"))
		case "/fake.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("<html>not a png</html>"))
		case "/page.ogg":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		case "/huge.mp3":
			w.Header().Set("Content-Length", "104857600")
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	var asked []string
	svc := NewService(runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
		asked = append(asked, a.Question)
		return &turn.Result{Answer: "fine"}, nil
	}), 0)
	var heard string
	c := &Chat{Service: svc, AnswerTranscripts: true, Uploads: &Uploads{AllowHTTPLoopback: true, Client: srv.Client()}, Media: &Media{
		Transcribe: func(_ context.Context, name string, audio []byte) (string, error) {
			heard = name + ":" + string(audio)
			return "  what time is it  ", nil
		},
		Describe: func(context.Context, string, []byte, string) (string, error) { return "a cat", nil },
	}}
	run := func(c *Chat, url string) *recorder {
		r := newRecorder()
		c.Upload(context.Background(), "xmpp:a@b", []string{url}, r)
		<-r.done
		return r
	}
	if r := run(c, srv.URL+"/note.m4a"); r.failed || r.final != "🎙 “what time is it”\n\nfine" || heard != "note.m4a:m4a bytes" || asked[0] != "what time is it" {
		t.Fatalf("voice: %q %v heard %q asked %q", r.final, r.failed, heard, asked)
	}
	for url, want := range map[string]string{
		"/fake.png": "not a JPEG, PNG, GIF or WebP image",
		"/page.ogg": "the server says it is text/html, not audio",
		"/huge.mp3": "too large (100 MB; the limit is 25 MB)",
	} {
		if r := run(c, srv.URL+url); !r.failed || !strings.Contains(r.final, want) {
			t.Errorf("%s: %q, want %q", url, r.final, want)
		}
	}
	bare := &Chat{Service: svc}
	if r := run(bare, srv.URL+"/note.m4a"); !r.failed || r.final != VoiceUnsupported {
		t.Errorf("no model: %q", r.final)
	}
	if r := run(bare, srv.URL+"/fake.png"); !r.failed || r.final != ImageUnsupported {
		t.Errorf("no model: %q", r.final)
	}
}
