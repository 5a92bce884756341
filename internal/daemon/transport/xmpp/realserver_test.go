package xmpp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
	"github.com/askygo/asky/internal/turn"
)

// Messages sent while the bot was away are kept by Prosody's offline
// storage and delivered with a delay stamp at the next login: they are
// answered then, once each.
func TestOfflineMessagesAnsweredAtLogin(t *testing.T) {
	p := xmpptest.Start(t, accounts, xmpptest.WithOffline())
	f := startOn(t, p, runnerFunc(echo), nil, "")
	alice := p.Connect(t, "alice", "alicepw")
	f.stop()
	time.Sleep(200 * time.Millisecond) // the bot's session is gone
	alice.Send(xmpptest.JID("bot"), "asked while you were away")
	alice.Send(xmpptest.JID("bot")+"/asky", "and to your resource")
	startOn(t, p, runnerFunc(echo), nil, "")
	var answers []string
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool {
		if strings.HasPrefix(m.Body, "echo:") {
			answers = append(answers, m.Body)
		}
		return len(answers) == 2
	})
	alice.Quiet(500 * time.Millisecond)
	if answers[0] != "echo: asked while you were away (xmpp:alice@localhost)" || answers[1] != "echo: and to your resource (xmpp:alice@localhost)" {
		t.Fatalf("answers %q", answers)
	}
}

// A refused password is one clear log line, not one per retry, and the
// retries back off to the maximum at once.
func TestWrongPasswordLogsOnceAndBacksOff(t *testing.T) {
	p := xmpptest.Start(t, accounts)
	f := launch(t, p, runnerFunc(echo), func(c *config.XMPP) { c.PasswordEnv = "ASKY_XMPP_PASSWORD" }, "wrong", "")
	time.Sleep(1500 * time.Millisecond)
	log := f.log.String()
	if n := strings.Count(log, "the server refused the password for bot@localhost"); n != 1 {
		t.Fatalf("refusal logged %d times, want once:\n%s", n, log)
	}
	if !strings.Contains(log, "check ASKY_XMPP_PASSWORD (xmpp.password_env)") || !strings.Contains(log, "retrying every 300ms") {
		t.Fatalf("no hint: %s", log)
	}
	// Between retries the board says reconnecting (during one, starting).
	waitFor(t, func() bool {
		s, _ := f.board.Get(Name)
		return s.State == daemon.StateReconnecting && s.LastError != ""
	})
	// 1.5 s at the 300 ms maximum is at most 6 attempts; Prosody logs
	// each failed authentication.
	if n := strings.Count(p.Logs(), "Authentication failed") + strings.Count(p.Logs(), "authentication failure"); n > 7 {
		t.Fatalf("%d login attempts in 1.5 s", n)
	}
}

// A certificate the daemon cannot verify says which key to set.
func TestUnknownCertificateAuthorityHint(t *testing.T) {
	p := xmpptest.Start(t, accounts)
	f := launch(t, p, runnerFunc(echo), func(c *config.XMPP) { c.CAFile = "" }, "botpw", "")
	waitFor(t, func() bool { return strings.Contains(f.log.String(), "set xmpp.ca_file") })
	// tls_insecure_loopback is the other, loopback-only way.
	startOn(t, p, runnerFunc(echo), func(c *config.XMPP) { c.CAFile = ""; c.TLSInsecureLoopback = true; c.Resource = "other" }, "")
}

// Two daemons on the same JID and resource take the session from each
// other; each session ending at once must not become a reconnect loop.
func TestResourceConflictDoesNotHotLoop(t *testing.T) {
	p := xmpptest.Start(t, accounts)
	a := launch(t, p, runnerFunc(echo), nil, "botpw", "")
	b := launch(t, p, runnerFunc(echo), nil, "botpw", "")
	time.Sleep(3 * time.Second)
	n := strings.Count(a.log.String(), "connected as") + strings.Count(b.log.String(), "connected as")
	// With the 300 ms maximum backoff, 3 s allow about 10 sessions each.
	if n > 30 {
		t.Fatalf("%d sessions in 3 s: a reconnect loop", n)
	}
	// The cause is said once, with what to do.
	if c := strings.Count(a.log.String(), "another client logged in as bot@localhost/asky"); c != 1 {
		t.Fatalf("conflict explained %d times:\n%s", c, a.log)
	}
}

// Subscription requests: allowed accounts (bare, or any allowed full
// JID's account) are approved, others refused.
func TestSubscriptionRequests(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	bot := xmpptest.JID("bot")
	for _, c := range []struct{ user, want string }{{"alice", "subscribed"}, {"carol", "subscribed"}, {"bob", "unsubscribed"}} {
		cl := f.p.Connect(t, c.user, c.user+"pw")
		// A client that fetched its roster gets subscription answers.
		cl.SendRaw(`<iq type='get' id='r1'><query xmlns='jabber:iq:roster'/></iq>`)
		cl.SendRaw(fmt.Sprintf(`<presence to='%s' type='subscribe'/>`, bot))
		got := cl.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool {
			return p.From == bot && (p.Type == "subscribed" || p.Type == "unsubscribed")
		})
		if got.Type != c.want {
			t.Fatalf("%s: %s, want %s", c.user, got.Type, c.want)
		}
	}
	if !strings.Contains(f.log.String(), "refused a presence subscription from bob@localhost") {
		t.Fatalf("log:\n%s", f.log)
	}
	// A request made while the bot is away is answered at its next login.
	f.stop()
	u1 := f.p.Connect(t, "u1", "upw")
	u1.SendRaw(`<iq type='get' id='r1'><query xmlns='jabber:iq:roster'/></iq>`)
	u1.SendRaw(fmt.Sprintf(`<presence to='%s' type='subscribe'/>`, bot))
	time.Sleep(200 * time.Millisecond)
	startOn(t, f.p, runnerFunc(echo), nil, "")
	u1.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == bot && p.Type == "subscribed" })
}

// Prosody closes the stream on a stanza over 256 KiB: an answer is
// split below that even when response_chunk_chars is 0 (no limit).
func TestHugeAnswerFitsStanzaLimit(t *testing.T) {
	var lines []string
	for i := 0; len(strings.Join(lines, "\n")) < 400<<10; i++ {
		lines = append(lines, fmt.Sprintf(`%04d "quoted" <tag> & 🎉 שלום %s`, i, strings.Repeat("z", 60)))
	}
	long := strings.Join(lines, "\n")
	r := runnerFunc(func(context.Context, daemon.Ask) (*turn.Result, error) { return &turn.Result{Answer: long}, nil })
	f := start(t, r, func(c *config.XMPP) { c.ResponseChunkChars = 0 })
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "long")
	last := lines[len(lines)-1]
	var parts []string
	alice.Until(15*time.Second, func(m xmpptest.Msg) bool {
		if m.Replace == "" && !isStatus(m.Body) {
			parts = append(parts, m.Body)
		}
		return strings.HasSuffix(m.Body, last)
	})
	if strings.Join(parts, "\n") != long {
		t.Fatalf("%d parts do not reassemble the answer", len(parts))
	}
	if strings.Contains(f.log.String(), "connection lost") {
		t.Fatalf("the server dropped the bot:\n%s", f.log)
	}
}

// XML-special characters, emoji and right-to-left text survive the
// round trip both ways.
func TestSpecialCharactersRoundTrip(t *testing.T) {
	f := start(t, runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		if a.Question == "control" {
			return &turn.Result{Answer: "nul\x00 esc\x1b bell\x07 ok"}, nil
		}
		return echo(ctx, a)
	}), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	q := `<b>&amp; "q" 'a' ]]> 🎉👩‍💻 שלום مرحبا`
	alice.Send(xmpptest.JID("bot"), q)
	if a, _ := answer(t, alice); a.Body != "echo: "+q+" (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
	// Characters XML 1.0 cannot carry (a model may emit them) are
	// replaced, not sent raw: the server would close the stream.
	alice.Send(xmpptest.JID("bot"), "control")
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "nul") })
	if b := got[len(got)-1].Body; b != "nul\uFFFD esc\uFFFD bell\uFFFD ok" {
		t.Fatalf("%q", b)
	}
	if strings.Contains(f.log.String(), "connection lost") {
		t.Fatalf("the server dropped the bot:\n%s", f.log)
	}
}

// joinRoom creates room as alice and binds the bot to it by invitation.
func joinRoom(t *testing.T, f *fixture, alice *xmpptest.Client, room, aliceNick string) {
	t.Helper()
	alice.Join(room, aliceNick)
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/"+aliceNick })
	alice.Invite(xmpptest.JID("bot")+"/asky", room)
	waitFor(t, func() bool { return f.tr.rooms.has(room) })
}

// roomWorld runs prosody and the bot with a rooms file, and connects
// alice.
func roomWorld(t *testing.T) (*xmpptest.Prosody, *fixture, *xmpptest.Client, string) {
	t.Helper()
	roomsFile := filepath.Join(t.TempDir(), "rooms.json")
	p := xmpptest.Start(t, accounts)
	f := startOn(t, p, runnerFunc(echo), nil, roomsFile)
	return p, f, p.Connect(t, "alice", "alicepw"), roomsFile
}

// The configured nick taken in a room: the bot joins as nick_ and
// answers from there.
func TestRoomNickConflict(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	room := xmpptest.Room("nicks")
	joinRoom(t, f, alice, room, "asky")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky_" })
	alice.SendGroup(room, "who answers")
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo:") })
	if a := got[len(got)-1]; a.From != room+"/asky_" {
		t.Fatalf("answer %+v", a)
	}
	if !strings.Contains(f.log.String(), `nick "asky" is taken`) {
		t.Fatalf("log:\n%s", f.log)
	}
}

// A destroyed room is unbound, so a reconnect does not create it again.
func TestRoomDestroyedUnbinds(t *testing.T) {
	_, f, alice, rooms := roomWorld(t)
	room := xmpptest.Room("doomed")
	joinRoom(t, f, alice, room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	alice.SendRaw(fmt.Sprintf(`<iq type='set' id='d1' to='%s'><query xmlns='http://jabber.org/protocol/muc#owner'><destroy><reason>done</reason></destroy></query></iq>`, room))
	// The log line follows the unbinding: wait for both.
	waitFor(t, func() bool {
		return !f.tr.rooms.has(room) && strings.Contains(f.log.String(), "was destroyed; unbound")
	})
	r, err := loadRooms(rooms)
	if err != nil || r.has(room) {
		t.Fatalf("room still saved: %v %v", r.list(), err)
	}
}

// A kick is logged; the room stays bound and is rejoined when the
// server comes back.
func TestRoomKickRejoinAfterRestart(t *testing.T) {
	p, f, alice, _ := roomWorld(t)
	room := xmpptest.Room("kicks")
	joinRoom(t, f, alice, room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	alice.SendRaw(fmt.Sprintf(`<iq type='set' id='k1' to='%s'><query xmlns='http://jabber.org/protocol/muc#admin'><item nick='asky' role='none'/></query></iq>`, room))
	waitFor(t, func() bool { return strings.Contains(f.log.String(), "kicked from "+room) })
	if !f.tr.rooms.has(room) {
		t.Fatal("a kick unbound the room")
	}
	p.Restart()
	time.Sleep(100 * time.Millisecond)
	f.waitConnected(t)
	alice = p.Connect(t, "alice", "alicepw")
	alice.Join(room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/alice" })
	alice.SendGroup(room, "back?")
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return m.Body == "echo: back? (xmpp-room:kicks@conference.localhost)" })
}

// The bot logs in with what Prosody offers: SCRAM-SHA-256 with plain
// storage, SCRAM-SHA-1 with Debian's default hashed storage, PLAIN
// alone, and over TLS 1.2 as well as 1.3.
func TestSASLAndTLSVariants(t *testing.T) {
	hashed := xmpptest.WithHashedPasswords()
	tls12 := xmpptest.WithSSL(`protocol = "tlsv1_2";`)
	for name, opts := range map[string][]xmpptest.Option{
		"hashed":        {hashed},
		"plain":         {xmpptest.WithGlobal(`disable_sasl_mechanisms = { "SCRAM-SHA-1", "SCRAM-SHA-256", "DIGEST-MD5" }`)},
		"scram-sha-1":   {xmpptest.WithGlobal(`disable_sasl_mechanisms = { "PLAIN", "SCRAM-SHA-256", "DIGEST-MD5" }`)},
		"tls1.2":        {tls12},
		"tls1.2+hashed": {tls12, hashed},
	} {
		t.Run(name, func(t *testing.T) {
			p := xmpptest.Start(t, accounts, opts...)
			f := startOn(t, p, runnerFunc(echo), nil, "")
			alice := p.Connect(t, "alice", "alicepw")
			alice.Send(xmpptest.JID("bot"), "hi")
			if a, _ := answer(t, alice); a.Body != "echo: hi (xmpp:alice@localhost)" {
				t.Fatalf("%q", a.Body)
			}
			_ = f
		})
	}
}

// A password-protected room: an invitation without the password fails
// to join with a clear line; one carrying it (XEP-0249) joins, and the
// password is kept for the rejoin after a restart.
func TestRoomWithPassword(t *testing.T) {
	p, f, alice, roomsFile := roomWorld(t)
	room := xmpptest.Room("secret")
	alice.Join(room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/alice" })
	alice.SendRaw(fmt.Sprintf(`<iq type='set' id='c1' to='%s'><query xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' type='submit'>
<field var='FORM_TYPE'><value>http://jabber.org/protocol/muc#roomconfig</value></field>
<field var='muc#roomconfig_passwordprotectedroom'><value>1</value></field>
<field var='muc#roomconfig_roomsecret'><value>sesame</value></field></x></query></iq>`, room))
	time.Sleep(200 * time.Millisecond)
	alice.Invite(xmpptest.JID("bot")+"/asky", room)
	waitFor(t, func() bool {
		return strings.Contains(f.log.String(), "cannot join "+room+` as "asky": not-authorized (wrong or missing room password`)
	})
	alice.SendRaw(fmt.Sprintf(`<message to='%s/asky'><x xmlns='jabber:x:conference' jid='%s' password='sesame'/></message>`, xmpptest.JID("bot"), room))
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	alice.SendGroup(room, "open")
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return m.Body == "echo: open (xmpp-room:secret@conference.localhost)" })
	f.stop()
	r, err := loadRooms(roomsFile)
	if err != nil || r.password(room) != "sesame" {
		t.Fatalf("saved rooms %v %v", r, err)
	}
	startOn(t, p, runnerFunc(echo), nil, roomsFile)
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" && p.Type == "" })
}

// Clients offer ad-hoc commands after seeing the feature in disco#info.
func TestDiscoInfoAdvertisesCommands(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	if got := alice.DiscoInfo(xmpptest.JID("bot") + "/asky"); !slices.Contains(got, "http://jabber.org/protocol/commands") {
		t.Fatalf("features %v", got)
	}
}

// A delivery receipt request (XEP-0184) from an allowed JID is
// acknowledged before the answer; others get none.
func TestDeliveryReceipts(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.SendRaw(fmt.Sprintf(`<message to='%s' id='m42' type='chat'><body>ack me</body><request xmlns='urn:xmpp:receipts'/></message>`, xmpptest.JID("bot")))
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo:") })
	if !slices.ContainsFunc(got, func(m xmpptest.Msg) bool { return m.Receipt == "m42" && m.Body == "" }) {
		t.Fatalf("no receipt for m42: %+v", got)
	}
	bob := f.p.Connect(t, "bob", "bobpw")
	bob.SendRaw(fmt.Sprintf(`<message to='%s' id='b1' type='chat'><body>ack me</body><request xmlns='urn:xmpp:receipts'/></message>`, xmpptest.JID("bot")))
	bob.Quiet(500 * time.Millisecond)
}

// With Prosody's default room locking, a bound room the bot recreates
// at login (it was gone) is unlocked, so people can enter and ask.
func TestRecreatedRoomIsUnlocked(t *testing.T) {
	room := xmpptest.Room("reborn")
	roomsFile := filepath.Join(t.TempDir(), "rooms.json")
	if err := os.WriteFile(roomsFile, []byte(`["`+room+`"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := xmpptest.Start(t, accounts, xmpptest.WithRoomLocking())
	f := startOn(t, p, runnerFunc(echo), nil, roomsFile)
	time.Sleep(300 * time.Millisecond) // the join and the configuration
	alice := p.Connect(t, "alice", "alicepw")
	alice.Join(room, "alice")
	if pr := alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/alice" }); pr.Type == "error" {
		t.Fatalf("alice cannot enter: %+v", pr)
	}
	alice.SendGroup(room, "anyone?")
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return m.Body == "echo: anyone? (xmpp-room:reborn@conference.localhost)" })
	if !strings.Contains(f.log.String(), room+" did not exist; created it again") {
		t.Fatalf("log:\n%s", f.log)
	}
}

// A mediated invitation (XEP-0045 §7.8.2, sent through the room, as
// most clients do) binds the room when the room shows the inviter's
// JID; a semi-anonymous room hides it, and the invitation is refused
// with a line that says why.
func TestMediatedInvitation(t *testing.T) {
	_, f, alice, _ := roomWorld(t)
	room := xmpptest.Room("mediated")
	alice.Join(room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/alice" })
	invite := fmt.Sprintf(`<message to='%s'><x xmlns='http://jabber.org/protocol/muc#user'><invite to='%s'/></x></message>`, room, xmpptest.JID("bot"))
	alice.SendRaw(invite)
	waitFor(t, func() bool {
		return strings.Contains(f.log.String(), `invitation to `+room+` from "alice" ignored: the room hides the inviter's JID`)
	})
	alice.SendRaw(fmt.Sprintf(`<iq type='set' id='c1' to='%s'><query xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' type='submit'>
<field var='FORM_TYPE'><value>http://jabber.org/protocol/muc#roomconfig</value></field>
<field var='muc#roomconfig_whois'><value>anyone</value></field></x></query></iq>`, room))
	time.Sleep(200 * time.Millisecond)
	alice.SendRaw(invite)
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	if !f.tr.rooms.has(room) {
		t.Fatal("room not bound")
	}
	alice.SendGroup(room, "via room")
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return m.Body == "echo: via room (xmpp-room:mediated@conference.localhost)" })
}

// Questions addressed to the bot in a room while it was offline come in
// the room's history at its next join: each is answered once, quoted
// with its time, the chatter around them is not, and a later restart
// answers nothing again.
func TestRoomQuestionsAskedWhileOfflineAnsweredOnce(t *testing.T) {
	p, f, alice, roomsFile := roomWorld(t)
	room := xmpptest.Room("away")
	joinRoom(t, f, alice, room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	alice.SendGroup(room, "asky: live question")
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool {
		return m.Body == "echo: live question (xmpp-room:away@conference.localhost)"
	})
	f.stop()
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" && p.Type == "unavailable" })
	alice.SendGroup(room, "lunch at noon?")
	alice.SendGroup(room, "asky: what did I miss?")
	alice.SendGroup(room, "never mind the bot")
	// Drain the room's echo of alice's own messages.
	alice.Until(5*time.Second, func(m xmpptest.Msg) bool { return m.Body == "never mind the bot" })

	f2 := startOn(t, p, runnerFunc(echo), nil, roomsFile)
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.Contains(m.Body, "echo:") })
	a := got[len(got)-1]
	if !strings.HasPrefix(a.Body, "alice, you asked at ") || !strings.Contains(a.Body, "while I was offline:\n> what did I miss?\n\necho: what did I miss? (xmpp-room:away@conference.localhost)") || a.From != room+"/asky" {
		t.Fatalf("late answer %+v", a)
	}
	alice.Quiet(time.Second) // not the chatter, not the live question again
	if !strings.Contains(f2.log.String(), "xmpp: "+room+": 1 question asked while offline; answering 1, skipping 0 older") {
		t.Fatalf("log:\n%s", f2.log)
	}
	f2.stop()
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" && p.Type == "unavailable" })
	startOn(t, p, runnerFunc(echo), nil, roomsFile)
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" && p.Type == "" })
	alice.Quiet(1500 * time.Millisecond)
}

// More missed questions than are worth answering late: the most recent
// are answered in order, after one line about the skipped ones.
func TestRoomManyMissedQuestionsSkipOlder(t *testing.T) {
	p, f, alice, roomsFile := roomWorld(t)
	room := xmpptest.Room("busy")
	joinRoom(t, f, alice, room, "alice")
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" })
	f.stop()
	alice.WaitPresence(5*time.Second, func(p xmpptest.Pres) bool { return p.From == room+"/asky" && p.Type == "unavailable" })
	for i := range 5 {
		alice.SendGroup(room, fmt.Sprintf("@asky q%d", i))
	}
	alice.Until(5*time.Second, func(m xmpptest.Msg) bool { return m.Body == "@asky q4" })
	startOn(t, p, runnerFunc(echo), nil, roomsFile)
	var bodies []string
	alice.Until(15*time.Second, func(m xmpptest.Msg) bool {
		if m.From == room+"/asky" && m.Replace == "" && !isStatus(m.Body) {
			bodies = append(bodies, m.Body)
		}
		return strings.Contains(m.Body, "echo: q4 (")
	})
	if len(bodies) != 4 || !strings.HasPrefix(bodies[0], "I was offline and skipped 2 older questions addressed to me here") {
		t.Fatalf("answers %q", bodies)
	}
	for i, b := range bodies[1:] {
		if want := fmt.Sprintf("> q%d\n\necho: q%d (", i+2, i+2); !strings.Contains(b, want) {
			t.Fatalf("answer %d %q, want %q", i, b, want)
		}
	}
}
