package xmpp

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
)

const (
	testPingInterval = 200 * time.Millisecond
	testPingTimeout  = 300 * time.Millisecond
)

func fastPings(o *Options) { o.PingInterval, o.PingTimeout = testPingInterval, testPingTimeout }

// onFake runs the transport against a scripted server with short ping
// intervals.
func onFake(t *testing.T) (*xmpptest.Fake, *fixture) {
	t.Helper()
	srv := xmpptest.StartFake(t)
	f := launchOpts(t, nil, runnerFunc(echo), func(c *config.XMPP) { c.Port, c.CAFile = srv.Port, srv.CAFile }, fastPings)
	f.waitConnected(t)
	return srv, f
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantAnswer(t *testing.T, srv *xmpptest.Fake, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case body := <-srv.Got:
			if body == want {
				return
			}
		case <-deadline:
			t.Fatalf("no answer %q", want)
		}
	}
}

// A server that stops answering without closing the socket is noticed
// within the ping interval plus the ping timeout; the bot reconnects and
// answers on the new session.
func TestKeepaliveNoticesSilentServer(t *testing.T) {
	srv, f := onFake(t)
	// Answered pings keep the session: several intervals pass quietly.
	waitUntil(t, 5*time.Second, "three answered pings", func() bool { return srv.Pings.Load() >= 3 })
	if srv.Sessions() != 1 || strings.Contains(f.log.String(), "connection lost") {
		t.Fatalf("an answered ping dropped the session (%d sessions):\n%s", srv.Sessions(), f.log)
	}
	srv.Silence()
	silenced := time.Now()
	want := fmt.Sprintf("xmpp: connection lost: no reply to a ping within %s (nothing received for ", testPingTimeout)
	waitUntil(t, 5*time.Second, "the dead connection noticed", func() bool { return strings.Contains(f.log.String(), want) })
	// Quiet for at most the interval, then the timeout (the slack is
	// for a loaded machine; TCP alone takes minutes).
	if took, most := time.Since(silenced), testPingInterval+testPingTimeout+time.Second; took > most {
		t.Fatalf("noticed %s after the server went silent, want under %s", took, most)
	}
	waitUntil(t, 5*time.Second, "a second session", func() bool { return srv.Sessions() == 2 })
	f.waitConnected(t)
	srv.Deliver(xmpptest.JID("alice")+"/phone", "still there?")
	wantAnswer(t, srv, "echo: still there? (xmpp:alice@localhost)")
}

// A server without XEP-0199 answers pings with an error: that proves it
// is there as much as a result does.
func TestKeepalivePingErrorCountsAsAlive(t *testing.T) {
	srv := xmpptest.StartFake(t)
	srv.PingErrors()
	f := launchOpts(t, nil, runnerFunc(echo), func(c *config.XMPP) { c.Port, c.CAFile = srv.Port, srv.CAFile }, fastPings)
	f.waitConnected(t)
	waitUntil(t, 5*time.Second, "three pings", func() bool { return srv.Pings.Load() >= 3 })
	if srv.Sessions() != 1 || strings.Contains(f.log.String(), "connection lost") {
		t.Fatalf("an error reply dropped the session (%d sessions):\n%s", srv.Sessions(), f.log)
	}
}

// The server's own pings get a result, not the service-unavailable
// error an unhandled IQ gets.
func TestAnswersServerPing(t *testing.T) {
	srv, _ := onFake(t)
	srv.Send(`<iq type='get' id='sp1' from='localhost'><ping xmlns='urn:xmpp:ping'/></iq>`)
	srv.Send(`<iq type='get' id='sp2'><ping xmlns='urn:xmpp:ping'/></iq>`)
	nextIs(t, srv.Replies, "result sp1", "reply to the server's ping")
	nextIs(t, srv.Replies, "result sp2", "reply to the server's ping")
}

// nextIs fails unless the next value on ch, within 5 s, is want.
func nextIs(t *testing.T, ch <-chan string, want, what string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("%s: %q, want %q", what, got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s (want %q)", what, want)
	}
}

// Against Prosody: its replies keep the session up; a paused (SIGSTOP)
// server is noticed within the interval plus the timeout, and once it
// continues the bot logs in again and answers.
func TestKeepaliveProsodyPaused(t *testing.T) {
	p := xmpptest.Start(t, accounts)
	f := launchOpts(t, p, runnerFunc(echo), nil, fastPings)
	f.waitConnected(t)
	alice := p.Connect(t, "alice", "alicepw")
	time.Sleep(4 * testPingInterval)
	if strings.Contains(f.log.String(), "connection lost") {
		t.Fatalf("the session dropped while Prosody answered pings:\n%s", f.log)
	}
	p.Pause()
	paused := time.Now()
	waitUntil(t, 5*time.Second, "the dead connection noticed", func() bool {
		return strings.Contains(f.log.String(), "connection lost: no reply to a ping within")
	})
	if took, most := time.Since(paused), testPingInterval+testPingTimeout+time.Second; took > most {
		t.Fatalf("noticed %s after the pause, want under %s", took, most)
	}
	if s, _ := f.board.Get(Name); s.State == "connected" {
		t.Fatalf("board still says connected: %+v", s)
	}
	p.Resume()
	f.waitConnected(t)
	alice.Send(xmpptest.JID("bot"), "back?")
	if a, _ := answer(t, alice); a.Body != "echo: back? (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
}

// The bot answers pings from allowed JIDs and advertises them in
// disco#info; others get the error any IQ from them gets.
func TestAnswersPingsFromAllowedJIDs(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	bot := xmpptest.JID("bot") + "/asky"
	alice := f.p.Connect(t, "alice", "alicepw")
	if got := alice.Ping(bot); got != "result" {
		t.Fatalf("alice's ping: %s", got)
	}
	if got := f.p.Connect(t, "bob", "bobpw").Ping(bot); got != "service-unavailable" {
		t.Fatalf("bob's ping: %s", got)
	}
	if got := alice.DiscoInfo(bot); !slices.Contains(got, "urn:xmpp:ping") {
		t.Fatalf("features %v", got)
	}
}

// A server that accepts the connection and then says nothing (a stopped
// process: the kernel still completes the TCP handshake) fails the login
// after LoginTimeout with a line that says so, and stopping the daemon
// does not wait for it.
func TestLoginTimesOutOnSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // never accepts: the backlog answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	silent := func(c *config.XMPP) { c.Port, c.TLSInsecureLoopback = port, true }
	f := launchOpts(t, nil, runnerFunc(echo), silent, func(o *Options) { o.LoginTimeout = 300 * time.Millisecond })
	want := fmt.Sprintf("xmpp: log in to 127.0.0.1:%d: no answer within 300ms: the server is stuck or the network drops packets; retrying", port)
	waitUntil(t, 5*time.Second, "the login timeout", func() bool { return strings.Contains(f.log.String(), want) })
	f.stop()

	long := launchOpts(t, nil, runnerFunc(echo), silent, func(o *Options) { o.LoginTimeout = time.Minute })
	waitUntil(t, 5*time.Second, "a login attempt", func() bool {
		s, _ := long.board.Get(Name)
		return s.State == daemon.StateStarting
	})
	time.Sleep(100 * time.Millisecond) // into the negotiation
	began := time.Now()
	long.stop()
	if took := time.Since(began); took > time.Second {
		t.Fatalf("stopping during a login took %s", took)
	}
}

// With stream management the bot acknowledges what it receives: a
// message the server handed to a connection that had silently died
// (a NAT timeout: the bytes vanish) is not lost. Once the keepalive
// closes the dead connection the server stores the unacknowledged
// message offline, and the bot answers it after logging in again, once.
func TestStreamManagementKeepsMessagesSentIntoADeadConnection(t *testing.T) {
	p := xmpptest.Start(t, accounts, xmpptest.WithOffline())
	relay := xmpptest.StartRelay(t, p.Addr())
	f := launchOpts(t, p, runnerFunc(echo), func(c *config.XMPP) { c.Port = relay.Port }, fastPings)
	f.waitConnected(t)
	alice := p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "before")
	if a, _ := answer(t, alice); a.Body != "echo: before (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
	relay.Freeze()
	alice.Send(xmpptest.JID("bot"), "into the void")
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo:") })
	if a := got[len(got)-1]; a.Body != "echo: into the void (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
	if !strings.Contains(f.log.String(), "connection lost: no reply to a ping") {
		t.Fatalf("log:\n%s", f.log)
	}
	alice.Quiet(4 * testPingInterval)
}

// The bot counts what it received once stream management is on,
// answers the server's ack requests with the count, and acknowledges
// everything before closing the stream, so a clean stop does not make
// the server store handled messages again.
func TestStreamManagementAcks(t *testing.T) {
	srv := xmpptest.StartFake(t)
	srv.SM = true
	f := launchOpts(t, nil, runnerFunc(echo), func(c *config.XMPP) { c.Port, c.CAFile = srv.Port, srv.CAFile }, nil)
	f.waitConnected(t)
	srv.Deliver(xmpptest.JID("alice")+"/phone", "one")
	wantAnswer(t, srv, "echo: one (xmpp:alice@localhost)")
	srv.Deliver(xmpptest.JID("alice")+"/phone", "two")
	wantAnswer(t, srv, "echo: two (xmpp:alice@localhost)")
	srv.Send(`<r xmlns='urn:xmpp:sm:3'/>`)
	nextIs(t, srv.Acks, "2", "ack count")
	srv.Deliver(xmpptest.JID("alice")+"/phone", "three")
	wantAnswer(t, srv, "echo: three (xmpp:alice@localhost)")
	f.stop()
	nextIs(t, srv.Acks, "3", "ack count at the stop")
}
