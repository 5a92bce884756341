package xmpp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/xmpp/xmpptest"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/turn"
)

// runnerFunc adapts a function to daemon.Runner.
type runnerFunc func(ctx context.Context, a daemon.Ask) (*turn.Result, error)

func (f runnerFunc) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) { return f(ctx, a) }

// echo answers "echo: <question> (<conversation>)".
func echo(_ context.Context, a daemon.Ask) (*turn.Result, error) {
	return &turn.Result{Answer: fmt.Sprintf("echo: %s (%s)", a.Question, a.Conversation)}, nil
}

var accounts = func() map[string]string {
	a := map[string]string{"bot": "botpw", "alice": "alicepw", "bob": "bobpw", "carol": "carolpw"}
	for i := range 10 {
		a[fmt.Sprintf("u%d", i)] = "upw"
	}
	return a
}()

func users() []string {
	var out []string
	for i := range 10 {
		out = append(out, xmpptest.JID(fmt.Sprintf("u%d", i)))
	}
	return out
}

type fixture struct {
	p     *xmpptest.Prosody
	tr    *Transport
	board *daemon.Board
	log   *iostreams.SyncBuffer
	stop  func()
}

// start runs prosody and the transport with runner r.
func start(t *testing.T, r daemon.Runner, edit func(*config.XMPP)) *fixture {
	t.Helper()
	p := xmpptest.Start(t, accounts)
	return startOn(t, p, r, edit, filepath.Join(t.TempDir(), "rooms.json"))
}

func startBench(b *testing.B) *fixture {
	p := xmpptest.Start(b, accounts)
	return startOn(b, p, runnerFunc(echo), nil, "")
}

func startOn(t testing.TB, p *xmpptest.Prosody, r daemon.Runner, edit func(*config.XMPP), roomsFile string) *fixture {
	t.Helper()
	f := launch(t, p, r, edit, "botpw", roomsFile)
	f.waitConnected(t)
	return f
}

// launch runs the transport logging in with password, without waiting
// for it to connect.
func launch(t testing.TB, p *xmpptest.Prosody, r daemon.Runner, edit func(*config.XMPP), password, roomsFile string) *fixture {
	t.Helper()
	return launchOpts(t, p, r, edit, func(o *Options) { o.Password, o.RoomsFile = password, roomsFile })
}

// launchOpts runs the transport against p with the test defaults changed
// by edit and opts; with p nil, edit names the server.
func launchOpts(t testing.TB, p *xmpptest.Prosody, r daemon.Runner, edit func(*config.XMPP), opts func(*Options)) *fixture {
	t.Helper()
	cfg := config.XMPP{Enabled: true, JID: xmpptest.JID("bot"), Host: "127.0.0.1", Resource: "asky",
		AllowedJIDs: append(users(), xmpptest.JID("alice"), xmpptest.JID("carol")+"/test"), ResponseChunkChars: 3000}
	if p != nil {
		cfg.Port, cfg.CAFile = p.Port, p.CAFile
	}
	if edit != nil {
		edit(&cfg)
	}
	board := daemon.NewBoard(nil)
	log := &iostreams.SyncBuffer{}
	o := Options{Config: cfg, Password: "botpw", Board: board, Log: log,
		Chat:       &daemon.Chat{Service: daemon.NewService(r, 0), Interval: 50 * time.Millisecond},
		MinBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond}
	if opts != nil {
		opts(&o)
	}
	tr, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = tr.Run(ctx); close(done) }()
	f := &fixture{p: p, tr: tr, board: board, log: log}
	f.stop = sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(func() {
		f.stop()
		if t.Failed() && p != nil {
			t.Logf("bot log:\n%s\nprosody log:\n%s", log, p.Logs())
		} else if t.Failed() {
			t.Logf("bot log:\n%s", log)
		}
	})
	return f
}

func (f *fixture) waitConnected(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if s, _ := f.board.Get(Name); s.State == daemon.StateConnected {
			return
		}
		if time.Now().After(deadline) {
			s, _ := f.board.Get(Name)
			t.Fatalf("bot not connected: %+v\nlog:\n%s", s, f.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answer waits for the message that is not a status line or correction.
func answer(t *testing.T, c *xmpptest.Client) (xmpptest.Msg, []xmpptest.Msg) {
	t.Helper()
	got := c.Until(10*time.Second, func(m xmpptest.Msg) bool { return m.Replace == "" && !isStatus(m.Body) })
	return got[len(got)-1], got
}

func isStatus(s string) bool {
	return strings.HasPrefix(s, "⏳") || strings.HasPrefix(s, "🎙 Transcribing") || strings.HasPrefix(s, "✍") || s == "✓ Done" || s == "✗ Failed" || strings.HasPrefix(s, "🔧")
}

func TestAllowlist(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	bob := f.p.Connect(t, "bob", "bobpw")
	bob.Send(xmpptest.JID("bot"), "let me in")
	bob.Send(xmpptest.JID("bot"), "please")
	alice.Send(xmpptest.JID("bot"), "hello")
	a, _ := answer(t, alice)
	if a.Body != "echo: hello (xmpp:alice@localhost)" {
		t.Fatalf("answer %q", a.Body)
	}
	bob.Quiet(300 * time.Millisecond)
	if n := strings.Count(f.log.String(), "dropped a message from bob@localhost/test"); n != 1 {
		t.Fatalf("drop logged %d times, want once:\n%s", n, f.log)
	}
	// carol is allowed only as carol@localhost/test: another resource is not.
	carol2 := f.p.Connect(t, "carol", "carolpw")
	carol2.Send(xmpptest.JID("bot"), "hi from test resource")
	if a, _ := answer(t, carol2); !strings.Contains(a.Body, "xmpp:carol@localhost") {
		t.Fatalf("carol: %q", a.Body)
	}
}

func TestStatusCorrectionsThenAnswer(t *testing.T) {
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		for i := range 4 {
			a.Events(turn.Event{Kind: turn.EventText, Text: strings.Repeat("x", 10*(i+1))})
			time.Sleep(80 * time.Millisecond)
		}
		return &turn.Result{Answer: "**final** answer"}, nil
	})
	f := start(t, r, nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "stream please")
	a, all := answer(t, alice)
	if a.Body != "*final* answer" {
		t.Fatalf("answer %q (XEP-0393 bold expected)", a.Body)
	}
	first := all[0]
	if first.Replace != "" || !strings.HasPrefix(first.Body, "⏳") {
		t.Fatalf("first message %+v, want a status line", first)
	}
	corrections := 0
	for _, m := range all[1 : len(all)-1] {
		if m.Replace != first.ID {
			t.Fatalf("%+v does not correct the status message %s", m, first.ID)
		}
		corrections++
	}
	if corrections < 2 {
		t.Fatalf("only %d corrections: %+v", corrections, all)
	}
	if last := all[len(all)-2]; last.Body != "✓ Done" {
		t.Fatalf("status not closed: %+v", last)
	}
}

func TestChunkingOnNewlines(t *testing.T) {
	var text []string
	for i := range 12 {
		text = append(text, fmt.Sprintf("line %02d %s", i, strings.Repeat("y", 60)))
	}
	long := strings.Join(text, "\n")
	r := runnerFunc(func(context.Context, daemon.Ask) (*turn.Result, error) { return &turn.Result{Answer: long}, nil })
	f := start(t, r, func(c *config.XMPP) { c.ResponseChunkChars = 200 })
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "long")
	var parts []string
	alice.Until(10*time.Second, func(m xmpptest.Msg) bool {
		if m.Replace == "" && !isStatus(m.Body) {
			parts = append(parts, m.Body)
		}
		return strings.Contains(m.Body, "line 11")
	})
	if len(parts) < 4 {
		t.Fatalf("%d parts", len(parts))
	}
	for _, p := range parts {
		if len(p) > 200 || !strings.HasPrefix(p, "line ") || strings.HasSuffix(p, "\n") {
			t.Fatalf("bad chunk (%d bytes): %q", len(p), p)
		}
	}
	if strings.Join(parts, "\n") != long {
		t.Fatal("chunks do not reassemble the answer")
	}
}

// An answer with headings that fits one message also carries XHTML-IM
// (XEP-0071) through the server, as the original sends it; one split
// into parts does not.
func TestHeadingsGoAsXHTMLIM(t *testing.T) {
	r := runnerFunc(func(_ context.Context, a daemon.Ask) (*turn.Result, error) {
		return &turn.Result{Answer: "# Answer\n\nParis is the **capital**." + strings.Repeat("\nmore text", len(a.Question))}, nil
	})
	f := start(t, r, func(c *config.XMPP) { c.ResponseChunkChars = 100 })
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "q")
	a, _ := answer(t, alice)
	if a.Body != "*Answer*\n\nParis is the *capital*.\nmore text" || !strings.Contains(a.HTML, "<p><strong>Answer</strong></p><p>Paris is the <strong>capital</strong>.</p>") {
		t.Fatalf("body %q, html %q", a.Body, a.HTML)
	}
	alice.Send(xmpptest.JID("bot"), strings.Repeat("q", 20))
	if a, _ := answer(t, alice); a.HTML != "" {
		t.Fatalf("a part with XHTML-IM: %+v", a)
	}
}

// Ten conversations run at once: each turn waits until all ten started,
// which would time out if the daemon serialized them.
func TestTenConversationsRunInParallel(t *testing.T) {
	var mu sync.Mutex
	started := map[string]bool{}
	all := make(chan struct{})
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		mu.Lock()
		started[a.Conversation] = true
		if len(started) == 10 {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			return nil, fmt.Errorf("conversations were serialized")
		}
		return echo(ctx, a)
	})
	f := start(t, r, nil)
	var clients []*xmpptest.Client
	for i := range 10 {
		clients = append(clients, f.p.Connect(t, fmt.Sprintf("u%d", i), "upw"))
	}
	for i, c := range clients {
		c.Send(xmpptest.JID("bot"), fmt.Sprintf("q%d", i))
	}
	for i, c := range clients {
		want := fmt.Sprintf("echo: q%d (xmpp:u%d@localhost)", i, i)
		if a, _ := answer(t, c); a.Body != want {
			t.Fatalf("%q, want %q", a.Body, want)
		}
	}
}

// Stopping the daemon interrupts a running turn; the chat is told so
// before the connection closes.
func TestStopInterruptsAndTells(t *testing.T) {
	entered := make(chan struct{}, 1)
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		entered <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	f := start(t, r, nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "long question")
	<-entered
	f.stop()
	a, _ := answer(t, alice)
	if !strings.HasPrefix(a.Body, "Interrupted:") {
		t.Fatalf("%q", a.Body)
	}
}

func TestRoomInviteAndGroupAnswer(t *testing.T) {
	rooms := filepath.Join(t.TempDir(), "rooms.json")
	p := xmpptest.Start(t, accounts)
	f := startOn(t, p, runnerFunc(echo), nil, rooms)
	alice := p.Connect(t, "alice", "alicepw")
	bob := p.Connect(t, "bob", "bobpw")
	room := xmpptest.Room("lab")
	alice.Join(room, "alice")
	time.Sleep(200 * time.Millisecond)
	// An invitation from an unauthorized JID binds nothing.
	bob.Invite(xmpptest.JID("bot")+"/asky", xmpptest.Room("other"))
	alice.Invite(xmpptest.JID("bot")+"/asky", room)
	waitFor(t, func() bool { return f.tr.rooms.has(room) })
	time.Sleep(300 * time.Millisecond) // the bot's join presence
	alice.SendGroup(room, "what is up")
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo:") })
	a := got[len(got)-1]
	if a.Body != "echo: what is up (xmpp-room:lab@conference.localhost)" || a.Type != "groupchat" || a.From != room+"/asky" {
		t.Fatalf("group answer %+v", a)
	}
	if f.tr.rooms.has(xmpptest.Room("other")) {
		t.Fatal("bob's invitation bound a room")
	}
	// The binding survives a restart: a new transport rejoins the room.
	f.stop()
	f2 := startOn(t, p, runnerFunc(echo), nil, rooms)
	time.Sleep(300 * time.Millisecond)
	alice.SendGroup(room, "again")
	got = alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo: again") })
	_ = f2
	_ = got
}

func TestServerRestartMidAnswer(t *testing.T) {
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	r := runnerFunc(func(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
		entered <- struct{}{}
		<-release
		return echo(ctx, a)
	})
	f := start(t, r, nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.Send(xmpptest.JID("bot"), "survive")
	<-entered
	f.p.Restart()
	// The bot notices, reconnects with backoff, and delivers the answer
	// once the turn ends.
	time.Sleep(100 * time.Millisecond)
	f.waitConnected(t)
	alice = f.p.Connect(t, "alice", "alicepw")
	close(release)
	got := alice.Until(10*time.Second, func(m xmpptest.Msg) bool { return strings.HasPrefix(m.Body, "echo:") })
	if got[len(got)-1].Body != "echo: survive (xmpp:alice@localhost)" {
		t.Fatalf("%+v", got)
	}
	for {
		select {
		case m := <-alice.Msgs:
			if strings.HasPrefix(m.Body, "echo:") {
				t.Fatalf("answer duplicated: %+v", m)
			}
			continue
		case <-time.After(500 * time.Millisecond):
		}
		break
	}
	if s, _ := f.board.Get(Name); s.LastError == "" {
		t.Fatalf("the lost connection is not on the board: %+v", s)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAdHocCommands(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	alice := f.p.Connect(t, "alice", "alicepw")
	bot := xmpptest.JID("bot") + "/asky"
	// The original's node names.
	nodes := alice.CommandNodes(bot)
	for _, n := range []string{"asky#status", "asky#list-sessions", "asky#list-history", "asky#list-tools", "asky#list-memories",
		"asky#list-prompts", "asky#list-presets", "asky#query", "asky#new-session", "asky#switch-session", "asky#clear-session"} {
		if !slices.Contains(nodes, n) {
			t.Errorf("%s not listed: %v", n, nodes)
		}
	}
	st := alice.Command(bot, "asky#status", "", nil)
	if st.Status != "completed" || !strings.Contains(st.Note, "xmpp: connected, queue 0") {
		t.Fatalf("status %+v", st)
	}
	q := alice.Command(bot, "asky#query", "", nil)
	if q.Status != "executing" || len(q.Fields) == 0 || q.Fields[0] != "query" {
		t.Fatalf("query form %+v", q)
	}
	// The form's text is a question even when it reads like a command.
	done := alice.Command(bot, "asky#query", q.SID, map[string]string{"query": "history of rome"})
	if done.Status != "completed" || !strings.Contains(done.Note, "arrives as a chat message") {
		t.Fatalf("query submit %+v", done)
	}
	if a, _ := answer(t, alice); a.Body != "echo: history of rome (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
	if ls := alice.Command(bot, "asky#list-sessions", "", nil); ls.Status != "completed" || !strings.Contains(ls.Note, "runs no commands") {
		t.Fatalf("list-sessions without a command handler: %+v", ls)
	}
	if u := alice.Command(bot, "asky#nope", "", nil); u.Error != "item-not-found" {
		t.Fatalf("unknown node: %+v", u)
	}
}

type cmdFunc func(ctx context.Context, conv, text string) (daemon.CommandResult, error)

func (f cmdFunc) Command(ctx context.Context, conv, text string) (daemon.CommandResult, error) {
	return f(ctx, conv, text)
}

// The ad-hoc commands run the chat's commands: reading ones answer in
// the note, a session switch and a confirmed clear take effect at once.
func TestAdHocCommandsRunChatCommands(t *testing.T) {
	f := start(t, runnerFunc(echo), nil)
	var mu sync.Mutex
	var ran []string
	f.tr.o.Chat.Commands = cmdFunc(func(_ context.Context, conv, text string) (daemon.CommandResult, error) {
		mu.Lock()
		ran = append(ran, text)
		mu.Unlock()
		if text == "/session clear" {
			return daemon.CommandResult{Handled: true, Reply: "Clear it?", Confirm: &daemon.Confirmation{What: "the clear",
				Yes: func(ctx context.Context, out daemon.ChatOutput) { out.Final(ctx, "Cleared "+conv, false) }}}, nil
		}
		return daemon.CommandResult{Handled: true, Reply: "ran " + text}, nil
	})
	alice := f.p.Connect(t, "alice", "alicepw")
	bot := xmpptest.JID("bot") + "/asky"
	for node, want := range map[string]string{"asky#list-history": "ran history list", "asky#list-tools": "ran --list-tools",
		"asky#list-memories": "ran memory list", "asky#list-prompts": "ran prompts list", "asky#list-presets": `ran \presets`,
		"asky#new-session": "ran /session new", "asky#list-sessions": "ran session list"} {
		if r := alice.Command(bot, node, "", nil); r.Status != "completed" || r.Note != want {
			t.Errorf("%s: %+v", node, r)
		}
	}
	sw := alice.Command(bot, "asky#switch-session", "", nil)
	if sw.Status != "executing" || len(sw.Fields) != 1 || sw.Fields[0] != "selector" {
		t.Fatalf("switch form %+v", sw)
	}
	if r := alice.Command(bot, "asky#switch-session", sw.SID, map[string]string{"selector": "trip"}); r.Note != "ran /session trip" {
		t.Fatalf("switch %+v", r)
	}
	// "clear" typed as a selector is not /session clear.
	sw = alice.Command(bot, "asky#switch-session", "", nil)
	if r := alice.Command(bot, "asky#switch-session", sw.SID, map[string]string{"selector": "Clear"}); r.Note == "ran /session Clear" || !strings.Contains(r.Note, "is a /session command") {
		t.Fatalf("switch to clear %+v", r)
	}
	cl := alice.Command(bot, "asky#clear-session", "", nil)
	if cl.Status != "executing" || len(cl.Fields) != 1 || cl.Fields[0] != "confirm" {
		t.Fatalf("clear form %+v", cl)
	}
	if r := alice.Command(bot, "asky#clear-session", cl.SID, map[string]string{"confirm": "false"}); r.Note != "Nothing was cleared." {
		t.Fatalf("clear declined %+v", r)
	}
	if r := alice.Command(bot, "asky#clear-session", cl.SID, map[string]string{"confirm": "true"}); r.Note != "Cleared xmpp:alice@localhost" {
		t.Fatalf("clear confirmed %+v", r)
	}
	// A query form's text is a question even when it reads like a
	// command ("history …").
	alice.Command(bot, "asky#query", "", map[string]string{"query": "history of rome", "lean": "true"})
	if a, _ := answer(t, alice); a.Body != "echo: history of rome (xmpp:alice@localhost)" {
		t.Fatalf("%q", a.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(ran); n != 9 || ran[n-1] != "/session clear" {
		t.Fatalf("ran %q", ran)
	}
}

// An OOB document (XEP-0066) from an allowed JID is downloaded from a
// local HTTPS server, stored and ingested, and acknowledged.
func TestUploadByOOB(t *testing.T) {
	files := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Shared notes\n"))
	}))
	defer files.Close()
	dir := t.TempDir()
	var mu sync.Mutex
	var got []string
	uploads := &daemon.Uploads{Dir: dir,
		Client: daemon.NewGuardedClient(files.Client().Transport.(*http.Transport).TLSClientConfig, netip.MustParsePrefix("127.0.0.1/32")),
		Ingest: func(_ context.Context, conv string, paths []string) daemon.Ingested {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, conv)
			got = append(got, paths...)
			return daemon.Ingested{Note: "1 file ingested"}
		}}
	f := start(t, runnerFunc(echo), nil)
	f.tr.o.Chat.Uploads = uploads
	alice := f.p.Connect(t, "alice", "alicepw")
	alice.SendOOB(xmpptest.JID("bot"), files.URL+"/notes.md")
	a, _ := answer(t, alice)
	if !strings.Contains(a.Body, "✓ notes.md: stored as") || !strings.Contains(a.Body, "1 file ingested") {
		t.Fatalf("ack %q", a.Body)
	}
	mu.Lock()
	ingested := slices.Clone(got)
	mu.Unlock()
	if got := ingested; len(got) != 2 || got[0] != "xmpp:alice@localhost" || !strings.HasPrefix(got[1], dir) {
		t.Fatalf("ingested %v", got)
	}
	// Text beside the link is a question about the file, asked once it
	// is in.
	alice.SendRaw(fmt.Sprintf(`<message to='%s' type='chat'><body>%s what does it say?</body><x xmlns='jabber:x:oob'><url>%s</url></x></message>`,
		xmpptest.JID("bot"), files.URL+"/more.md", files.URL+"/more.md"))
	if a, _ := answer(t, alice); !strings.Contains(a.Body, "more.md") {
		t.Fatalf("ack %q", a.Body)
	}
	if a, _ := answer(t, alice); a.Body != "echo: what does it say? (xmpp:alice@localhost)" {
		t.Fatalf("question %q", a.Body)
	}
}
