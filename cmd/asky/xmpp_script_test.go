package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
)

// scriptT adapts a script to the xmpptest helpers.
type scriptT struct{ ts *testscript.TestScript }

func (s scriptT) Helper()                           {}
func (s scriptT) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s scriptT) Skip(args ...any)                  { s.ts.Fatalf("prosody: %s", fmt.Sprint(args...)) }
func (s scriptT) Cleanup(f func())                  { s.ts.Defer(f) }
func (s scriptT) TempDir() string {
	d, err := os.MkdirTemp(s.ts.Getenv("WORK"), "prosody")
	s.ts.Check(err)
	return d
}

// prosodyCondition is [prosody]: prosody is installed, or CI=true, where
// a missing prosody must fail the script rather than skip it.
func prosodyCondition(cond string) (bool, error) {
	if cond != "prosody" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath("prosody"); err == nil {
		return true, nil
	}
	return os.Getenv("CI") == "true", nil
}

// cmdProsody starts a Prosody with accounts bot and alice and appends an
// [xmpp] table for bot (allowing alice) to config.toml: `prosody-start`.
func cmdProsody(ts *testscript.TestScript, neg bool, args []string) {
	p := xmpptest.Start(scriptT{ts}, map[string]string{"bot": "botpw", "alice": "alicepw"})
	ts.Setenv("PROSODY_ADDR", p.Addr())
	ts.Setenv("PROSODY_CA", p.CAFile)
	ts.Setenv("ASKY_XMPP_PASSWORD", "botpw")
	cfg := fmt.Sprintf("\n[xmpp]\nenabled = true\njid = %q\nhost = \"127.0.0.1\"\nport = %d\nca_file = %q\nallowed_jids = [%q]\n",
		xmpptest.JID("bot"), p.Port, p.CAFile, xmpptest.JID("alice"))
	f, err := os.OpenFile(filepath.Join(ts.Getenv("ASKY_HOME"), "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	ts.Check(err)
	_, err = f.WriteString(cfg)
	ts.Check(err)
	ts.Check(f.Close())
	prosodies.Store(ts, p)
	ts.Defer(func() { prosodies.Delete(ts) })
}

// cmdXMPPCommand runs an ad-hoc command (XEP-0050) as alice on the bot
// and prints its note, the fields of the form it asks for, or its error:
// `xmpp-command NODE [var=value…]`.
func cmdXMPPCommand(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: xmpp-command NODE [var=value…]")
	}
	c := connectAlice(ts)
	var fields map[string]string
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		if fields == nil {
			fields = map[string]string{}
		}
		fields[k] = v
	}
	r := c.Command(xmpptest.JID("bot")+"/asky", args[0], "", fields)
	switch {
	case r.Error != "":
		fmt.Fprintln(ts.Stdout(), "error:", r.Error)
	case len(r.Fields) > 0:
		fmt.Fprintln(ts.Stdout(), r.Status, "form:", strings.Join(r.Fields, " "))
	default:
		fmt.Fprintln(ts.Stdout(), r.Status+":", r.Note)
	}
}

// cmdXMPPAsk sends a chat message as alice to the bot and prints the
// answer (status lines and corrections skipped): `xmpp-ask words…`.
func cmdXMPPAsk(ts *testscript.TestScript, neg bool, args []string) {
	c := connectAlice(ts)
	c.Send(xmpptest.JID("bot"), strings.Join(args, " "))
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-c.Msgs:
			if m.Replace != "" || strings.HasPrefix(m.Body, "⏳") {
				continue
			}
			fmt.Fprintln(ts.Stdout(), m.Body)
			return
		case <-deadline:
			ts.Fatalf("xmpp-ask: no answer within 30s")
		}
	}
}

// connectAlice logs alice in once the daemon's XMPP transport is up.
func connectAlice(ts *testscript.TestScript) *xmpptest.Client {
	v, ok := prosodies.Load(ts)
	if !ok {
		ts.Fatalf("run prosody-start first")
	}
	p := v.(*xmpptest.Prosody)
	// The daemon logs in after `daemon start` returns; a message sent
	// before would reach no one (the test server keeps no offline store).
	statesFile := daemon.StatesPath(filepath.Join(ts.Getenv("ASKY_HOME"), "daemon.pid"))
	for wait := time.Now().Add(15 * time.Second); ; {
		states, _ := daemon.LoadStates(statesFile)
		if slices.ContainsFunc(states, func(s daemon.TransportState) bool { return s.Name == "xmpp" && s.State == daemon.StateConnected }) {
			break
		}
		if time.Now().After(wait) {
			ts.Fatalf("the daemon's XMPP transport is not connected: %+v", states)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p.Connect(scriptT{ts}, "alice", "alicepw")
}

// prosodies maps a running script to its server (Setup cannot know
// whether a script needs one, and Values are fixed after Setup).
var prosodies sync.Map
