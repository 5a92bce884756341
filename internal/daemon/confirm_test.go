package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/turn"
)

func TestYesNo(t *testing.T) {
	for text, want := range map[string]int{ // 1 yes, 0 no, -1 not an answer
		"yes": 1, "Yes!": 1, " Y ": 1, "yeah.": 1, "Go ahead": 1, "ok": 1, "👍": 1, "oui": 1, "sí": 1,
		"no": 0, "No.": 0, "nope": 0, "Cancel": 0, "never  mind": 0, "nein": 0, "👎": 0,
		"yes, but shorter": -1, "no idea what you mean": -1, "what time is it": -1, "": -1, "yess": -1,
	} {
		yes, ok := YesNo(text)
		got := -1
		if ok && yes {
			got = 1
		} else if ok {
			got = 0
		}
		if got != want {
			t.Errorf("YesNo(%q) = %d, want %d", text, got, want)
		}
	}
}

// voiceChat is a Chat whose transcriber hears what its audio file says,
// with a fake clock; asked records the questions that reached the model.
type voiceChat struct {
	*Chat
	srv   *httptest.Server
	mu    sync.Mutex
	asked []string
	last  Ask
	now   time.Time
}

func newVoiceChat(t *testing.T) *voiceChat {
	v := &voiceChat{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/ogg")
		w.Write([]byte(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".ogg")))
	}))
	t.Cleanup(v.srv.Close)
	svc := NewService(runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.asked = append(v.asked, a.Conversation+": "+a.Question)
		v.last = a
		return &turn.Result{Answer: "answer to " + a.Question}, nil
	}), 0)
	v.Chat = &Chat{Service: svc, Uploads: &Uploads{AllowHTTPLoopback: true, Client: v.srv.Client()},
		Media: &Media{Transcribe: func(_ context.Context, name string, audio []byte) (string, error) {
			return strings.ReplaceAll(string(audio), "_", " "), nil
		}},
		Now: func() time.Time { v.mu.Lock(); defer v.mu.Unlock(); return v.now }}
	return v
}

func (v *voiceChat) voice(conv, words string) *recorder {
	r := newRecorder()
	v.Voice(context.Background(), conv, v.srv.URL+"/"+strings.ReplaceAll(words, " ", "_")+".ogg", r)
	<-r.done
	return r
}

func (v *voiceChat) say(conv, text string) *recorder {
	r := newRecorder()
	v.Handle(context.Background(), ChatMessage{Conversation: conv, Text: text}, r)
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		r.final = "(no reply)"
	}
	return r
}

func (v *voiceChat) questions() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Join(v.asked, " | ")
}

// A voice message's transcript is shown and asked only after a yes: no
// drops it, another message drops it, a newer voice message replaces it,
// an answer after the time limit does nothing, and each chat has its own.
func TestVoiceTranscriptNeedsAYes(t *testing.T) {
	v := newVoiceChat(t)
	r := v.voice("telegram:1", "what time is it")
	if r.failed || !strings.Contains(r.final, "I heard: “what time is it”") || !strings.Contains(r.final, "Reply yes to ask this, or no") || v.questions() != "" {
		t.Fatalf("prompt: %q %v, asked %q", r.final, r.failed, v.questions())
	}
	if r := v.say("telegram:1", "Yes!"); r.final != "answer to what time is it" || v.questions() != "telegram:1: what time is it" {
		t.Fatalf("yes: %q, asked %q", r.final, v.questions())
	}
	// The question is used up: another yes is a new message for the model.
	if v.say("telegram:1", "yes"); v.questions() != "telegram:1: what time is it | telegram:1: yes" {
		t.Fatalf("second yes: asked %q", v.questions())
	}

	v.voice("telegram:1", "delete everything")
	if r := v.say("telegram:1", "no"); r.failed || !strings.Contains(r.final, "dropped the transcript") || strings.Contains(v.questions(), "delete") {
		t.Fatalf("no: %q, asked %q", r.final, v.questions())
	}

	// A newer voice message replaces the open one; only the newer is asked.
	v.voice("telegram:1", "first try")
	if r := v.voice("telegram:1", "second try"); !strings.Contains(r.final, "replaces the earlier transcript") {
		t.Fatalf("replace: %q", r.final)
	}
	// Chats do not answer each other's questions.
	if v.say("telegram:2", "yes"); !strings.Contains(v.questions(), "telegram:2: yes") {
		t.Fatalf("other chat: asked %q", v.questions())
	}
	v.say("telegram:1", "ok")
	if q := v.questions(); strings.Contains(q, "first try") || !strings.HasSuffix(q, "telegram:1: second try") {
		t.Fatalf("replaced: asked %q", q)
	}

	// Any other message drops the open question and is answered itself.
	v.voice("telegram:1", "weather in Oslo")
	if r := v.say("telegram:1", "never mind, what is 2+2"); r.final != "answer to never mind, what is 2+2" {
		t.Fatalf("moved on: %q", r.final)
	}
	if v.say("telegram:1", "yes"); strings.Contains(v.questions(), "Oslo") {
		t.Fatalf("dropped transcript asked: %q", v.questions())
	}

	// Too late: nothing is asked, and the reply says why.
	v.voice("telegram:1", "late question")
	v.mu.Lock()
	v.now = v.now.Add(DefaultConfirmTTL + time.Second)
	v.mu.Unlock()
	if r := v.say("telegram:1", "yes"); !r.failed || !strings.Contains(r.final, "expired (after 10 minutes") || strings.Contains(v.questions(), "late") {
		t.Fatalf("expired: %q, asked %q", r.final, v.questions())
	}
}

// With confirm_transcripts = false the transcript is asked at once.
func TestVoiceTranscriptAnsweredAtOnceWhenConfigured(t *testing.T) {
	v := newVoiceChat(t)
	v.AnswerTranscripts = true
	if r := v.voice("xmpp:a@b", "hello there"); r.final != "🎙 “hello there”\n\nanswer to hello there" {
		t.Fatalf("%q", r.final)
	}
}

// A command's yes/no question (`/session clear`) runs its action on yes.
func TestCommandConfirmation(t *testing.T) {
	v := newVoiceChat(t)
	cleared := 0
	v.Commands = cmdFunc(func(_ context.Context, conv, text string) (CommandResult, error) {
		return CommandResult{Handled: true, Reply: "Clear? Reply yes or no.", Confirm: &Confirmation{What: "the clear", No: "Kept.",
			Yes: func(ctx context.Context, out ChatOutput) { cleared++; out.Final(ctx, "Cleared.", false) }}}, nil
	})
	if r := v.say("xmpp:a@b", "/session clear"); r.final != "Clear? Reply yes or no." {
		t.Fatalf("%q", r.final)
	}
	if r := v.say("xmpp:a@b", "nope"); r.final != "Kept." || cleared != 0 {
		t.Fatalf("no: %q %d", r.final, cleared)
	}
	v.say("xmpp:a@b", "/session clear")
	if r := v.say("xmpp:a@b", "y"); r.final != "Cleared." || cleared != 1 {
		t.Fatalf("yes: %q %d", r.final, cleared)
	}
}
