package xmpp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
)

// A job's answer goes out unprompted to an allowed JID, styled and
// chunked as an answer; other JIDs are refused, and a delivery while the
// server is down fails instead of vanishing.
func TestDeliverToAllowedJID(t *testing.T) {
	f := start(t, runnerFunc(echo), func(c *config.XMPP) { c.ResponseChunkChars = 200 })
	alice := f.p.Connect(t, "alice", "alicepw")
	bob := f.p.Connect(t, "bob", "bobpw")
	ctx := context.Background()

	lines := []string{"**Job 3:** what changed?", ""}
	for i := range 6 {
		lines = append(lines, fmt.Sprintf("line %02d %s", i, strings.Repeat("z", 60)))
	}
	if err := f.tr.Deliver(ctx, xmpptest.JID("alice"), strings.Join(lines, "\n")); err != nil {
		t.Fatal(err)
	}
	var parts []string
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool {
		parts = append(parts, m.Body)
		if m.Type != "chat" || m.From != xmpptest.JID("bot")+"/asky" {
			t.Errorf("message %+v", m)
		}
		return strings.Contains(m.Body, "line 05")
	})
	if len(parts) < 2 || !strings.HasPrefix(parts[0], "*Job 3:* what changed?") {
		t.Fatalf("parts %q", parts)
	}
	for _, p := range parts {
		if len(p) > 200 {
			t.Fatalf("chunk of %d bytes", len(p))
		}
	}

	for _, to := range []string{xmpptest.JID("bob"), xmpptest.JID("carol"), "nobody"} {
		err := f.tr.Deliver(ctx, to, "secret answer")
		if err == nil || !strings.Contains(err.Error(), "allowed_jids") && !strings.Contains(err.Error(), "not a user@domain") {
			t.Fatalf("deliver to %s: %v", to, err)
		}
	}
	bob.Quiet(300 * time.Millisecond)

	f.p.Stop()
	waitFor(t, func() bool { s, _ := f.board.Get(Name); return s.State != daemon.StateConnected })
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := f.tr.Deliver(dctx, xmpptest.JID("alice"), "while down")
	if err == nil || !strings.Contains(err.Error(), "not delivered") {
		t.Fatalf("deliver while down: %v", err)
	}
}
