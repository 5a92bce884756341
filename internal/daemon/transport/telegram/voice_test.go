package telegram

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/turn"
)

// A voice message is transcribed and shown; it is asked only after a yes,
// even a yes sent as a reply to the bot's question (which would otherwise
// carry "[Replying to: …]"); a no asks nothing.
func TestVoiceTranscriptConfirmation(t *testing.T) {
	api := newFake(t)
	var mu sync.Mutex
	var asked []string
	start(t, api, runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		mu.Lock()
		asked = append(asked, a.Question)
		mu.Unlock()
		return echo(ctx, a)
	}), "", func(o *Options) {
		o.Chat.Uploads = &daemon.Uploads{AllowHTTPLoopback: true, Client: daemon.NewGuardedClient(nil, netip.MustParsePrefix("127.0.0.1/32"))}
		o.Chat.Media = &daemon.Media{Transcribe: func(_ context.Context, name string, audio []byte) (string, error) {
			return "what is the capital of Norway", nil
		}}
	})
	voice := map[string]any{"voice": map[string]any{"file_id": "v", "file_unique_id": "v", "duration": 2}}
	api.push(1, 42, 42, "", voice)
	prompt := waitSent(t, api, 42, 1)[0].Params["text"]
	if !strings.Contains(prompt, "I heard: “what is the capital of Norway”") || !strings.Contains(prompt, "Reply yes") {
		t.Fatalf("prompt %q", prompt)
	}
	api.push(2, 42, 42, "Yes", map[string]any{"reply_to_message": map[string]any{"message_id": 101, "date": 0,
		"chat": map[string]any{"id": 42, "type": "private"}, "text": prompt}})
	if got := waitSent(t, api, 42, 2)[1].Params["text"]; got != "echo: what is the capital of Norway (telegram:42)" {
		t.Fatalf("answer %q", got)
	}
	api.push(3, 42, 42, "", voice)
	waitSent(t, api, 42, 3)
	api.push(4, 42, 42, "no", nil)
	if got := waitSent(t, api, 42, 4)[3].Params["text"]; !strings.Contains(got, "dropped the transcript") {
		t.Fatalf("no: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "what is the capital of Norway" {
		t.Fatalf("asked %q", asked)
	}
}
