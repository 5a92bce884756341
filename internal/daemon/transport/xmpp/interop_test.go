//go:build interop

package xmpp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
	"github.com/askygo/asky/internal/turn"
)

// TestInteropSlixmpp runs interop/slix_check.py, a user written with
// slixmpp (another XMPP implementation), against the bot through a real
// Prosody with offline storage on. `make xmpp-interop` sets up the
// Python environment; the build tag keeps it out of `make test`.
func TestInteropSlixmpp(t *testing.T) {
	py := os.Getenv("ASKY_INTEROP_PYTHON")
	if py == "" {
		t.Fatal("ASKY_INTEROP_PYTHON must name a python with slixmpp (make xmpp-interop sets it up)")
	}
	var long []string
	for i := 0; len(long) < 3000; i++ {
		long = append(long, fmt.Sprintf("line %04d %s", i, strings.Repeat("w", 60)))
	}
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		if a.Question == "long" {
			return &turn.Result{Answer: strings.Join(long, "\n") + "\nEND"}, nil
		}
		return echo(ctx, a)
	})
	p := xmpptest.Start(t, accounts, xmpptest.WithOffline())
	startOn(t, p, r, nil, filepath.Join(t.TempDir(), "rooms.json"))
	cmd := exec.Command(py, "interop/slix_check.py", "--host", "127.0.0.1", "--port", strconv.Itoa(p.Port), "--ca", p.CAFile,
		"--bot", xmpptest.JID("bot"), "--alice", xmpptest.JID("alice"), "--alice-pw", "alicepw",
		"--bob", xmpptest.JID("bob"), "--bob-pw", "bobpw", "--room", xmpptest.Room("interop"))
	out, err := cmd.CombinedOutput()
	t.Logf("slixmpp:\n%s", out)
	if err != nil {
		t.Fatalf("slix_check.py: %v", err)
	}
}
