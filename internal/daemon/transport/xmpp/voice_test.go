package xmpp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
)

// A voice note sent by OOB is transcribed and shown; the transcript is
// asked only after that chat's yes (another chat's yes is its own
// question), and a no asks nothing.
func TestVoiceTranscriptConfirmation(t *testing.T) {
	files := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/ogg")
		w.Write([]byte("OggS fake audio"))
	}))
	defer files.Close()
	f := start(t, runnerFunc(echo), nil)
	f.tr.o.Chat.Uploads = &daemon.Uploads{
		Client: daemon.NewGuardedClient(files.Client().Transport.(*http.Transport).TLSClientConfig, netip.MustParsePrefix("127.0.0.1/32"))}
	f.tr.o.Chat.Media = &daemon.Media{Transcribe: func(_ context.Context, name string, audio []byte) (string, error) {
		return "remind me what XEP-0308 is", nil
	}}
	alice := f.p.Connect(t, "alice", "alicepw")
	u0 := f.p.Connect(t, "u0", "upw")
	alice.SendOOB(xmpptest.JID("bot"), files.URL+"/note.ogg")
	prompt, _ := answer(t, alice)
	if !strings.Contains(prompt.Body, "I heard: “remind me what XEP-0308 is”") || !strings.Contains(prompt.Body, "Reply yes") {
		t.Fatalf("prompt %q", prompt.Body)
	}
	u0.Send(xmpptest.JID("bot"), "yes")
	if a, _ := answer(t, u0); a.Body != "echo: yes (xmpp:u0@localhost)" {
		t.Fatalf("other chat: %q", a.Body)
	}
	alice.Send(xmpptest.JID("bot"), "Yes.")
	if a, _ := answer(t, alice); a.Body != "echo: remind me what XEP-0308 is (xmpp:alice@localhost)" {
		t.Fatalf("answer %q", a.Body)
	}
	alice.SendOOB(xmpptest.JID("bot"), files.URL+"/again.ogg")
	answer(t, alice)
	alice.Send(xmpptest.JID("bot"), "no")
	if a, _ := answer(t, alice); !strings.Contains(a.Body, "dropped the transcript") {
		t.Fatalf("no: %q", a.Body)
	}
	alice.Quiet(300 * time.Millisecond)
}
