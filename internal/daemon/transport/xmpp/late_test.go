package xmpp

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mellium.im/xmpp/jid"

	"github.com/askygo/asky/internal/config"
)

func TestAddressedText(t *testing.T) {
	for _, tt := range []struct {
		body, text string
		ok         bool
	}{
		{"asky: what is up", "what is up", true},
		{"Asky, what is up", "what is up", true},
		{"@asky what is up", "what is up", true},
		{"@asky: what is up", "what is up", true},
		{"what is up @asky?", "what is up @asky?", true},
		{"what is up @ASKY", "what is up @ASKY", true},
		{"/asky history list", "/asky history list", true},
		{"!bot history list", "!bot history list", true},
		{"asky_: second nick", "second nick", true},
		{"asky:", "", true},
		{"asky is slow today", "asky is slow today", false},
		{"askybot: not me", "askybot: not me", false},
		{"ask @askyfan", "ask @askyfan", false},
		{"lunch at noon?", "lunch at noon?", false},
		{"/session new", "/session new", false},
		{"", "", false},
	} {
		text, ok := addressedText(tt.body, "!bot", "asky", "asky_")
		if text != tt.text || ok != tt.ok {
			t.Errorf("addressedText(%q) = %q, %v; want %q, %v", tt.body, text, ok, tt.text, tt.ok)
		}
	}
}

func TestPickLate(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	q := func(key string, ago time.Duration) lateQuestion {
		return lateQuestion{Key: key, Nick: "alice", Text: key, At: now.Add(-ago)}
	}
	keys := func(qs []lateQuestion) string {
		var ks []string
		for _, q := range qs {
			ks = append(ks, q.Key)
		}
		return strings.Join(ks, ",")
	}
	for _, tt := range []struct {
		name         string
		in           []lateQuestion
		answer, skip string
	}{
		{"none", nil, "", ""},
		{"few, put in order", []lateQuestion{q("b", time.Minute), q("a", time.Hour)}, "a,b", ""},
		{"too many: the most recent", []lateQuestion{q("e", 1), q("a", 5*time.Hour), q("c", 3*time.Hour), q("d", 2*time.Hour), q("b", 4*time.Hour)}, "c,d,e", "a,b"},
		{"too old", []lateQuestion{q("old", 25*time.Hour), q("new", time.Hour)}, "new", "old"},
		{"too old and too many", []lateQuestion{q("old", 30*time.Hour), q("a", 4), q("b", 3), q("c", 2), q("d", 1)}, "b,c,d", "old,a"},
	} {
		answer, skipped := pickLate(tt.in, now)
		if keys(answer) != tt.answer || keys(skipped) != tt.skip {
			t.Errorf("%s: answer %q skip %q; want %q %q", tt.name, keys(answer), keys(skipped), tt.answer, tt.skip)
		}
	}
}

func TestMessageKeySameLiveAndHistory(t *testing.T) {
	from := jid.MustParse("room@conference.localhost/alice")
	m := inMessage{Body: "asky: q"}
	m.From = from
	bare := messageKey(m)
	if bare != messageKey(m) || !strings.HasPrefix(bare, "alice|sha256:") {
		t.Fatalf("key %q", bare)
	}
	m.ID = "abc"
	if k := messageKey(m); k != "alice|abc" {
		t.Fatalf("key %q", k)
	}
	m.OriginID = &struct {
		ID string `xml:"id,attr"`
	}{ID: "origin"}
	if k := messageKey(m); k != "alice|origin" {
		t.Fatalf("key %q", k)
	}
	m2 := inMessage{Body: "asky: q"}
	m2.From = jid.MustParse("room@conference.localhost/bob")
	if messageKey(m2) == bare {
		t.Fatal("two senders, one key")
	}
}

func TestLateHeaderAndNote(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	h := lateHeader(lateQuestion{Nick: "alice", Text: "two\nlines", At: now.Add(-time.Hour)}, now)
	if h != "alice, you asked at 11:00 UTC while I was offline:\n> two\n> lines\n\n" {
		t.Fatalf("header %q", h)
	}
	h = lateHeader(lateQuestion{Nick: "bob", Text: strings.Repeat("x", 400), At: now.Add(-13 * time.Hour)}, now)
	if !strings.HasPrefix(h, "bob, you asked at Nov 23 23:00 UTC") || !strings.Contains(h, strings.Repeat("x", 300)+"…\n") {
		t.Fatalf("header %q", h)
	}
	n := skippedNote([]lateQuestion{{At: now.Add(-2 * time.Hour)}}, 3, now)
	if n != "I was offline and skipped 1 older question addressed to me here (from 10:00 UTC on; I answer only the 3 most recent): ask again if still needed." || strings.Contains(n, "\n") {
		t.Fatalf("note %q", n)
	}
}

// What the bot saw of each room survives a restart; seen times are
// written at most every seenSaveEvery, answered questions at once, and
// answered keys are pruned after lateKeep.
func TestRoomSeenPersists(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	path := seenPath(filepath.Join(t.TempDir(), "xmpp-rooms.json"))
	if !strings.HasSuffix(path, "xmpp-rooms-seen.json") {
		t.Fatalf("path %q", path)
	}
	s, err := loadSeen(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.lastSeen("r@c"); ok {
		t.Fatal("a room never seen has a seen time")
	}
	_ = s.saw("r@c", now)
	now = now.Add(time.Second)
	_ = s.saw("r@c", now) // within seenSaveEvery: kept in memory
	_ = s.saw("r@c", now.Add(-time.Hour))
	if err := s.markAnswered("r@c", map[string]time.Time{"alice|1": now.Add(-lateKeep - time.Minute), "alice|2": now}); err != nil {
		t.Fatal(err)
	}
	s2, err := loadSeen(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if seen, _ := s2.lastSeen("r@c"); !seen.Equal(now) {
		t.Fatalf("seen %v, want %v", seen, now)
	}
	if !s2.answered("r@c", "alice|2") || s2.answered("r@c", "alice|1") || s2.answered("other@c", "alice|2") {
		t.Fatal("answered keys wrong after reload")
	}
	now = now.Add(time.Second)
	_ = s2.saw("r@c", now)
	if err := s2.flush(); err != nil {
		t.Fatal(err)
	}
	s3, _ := loadSeen(path, clock)
	if seen, _ := s3.lastSeen("r@c"); !seen.Equal(now) {
		t.Fatalf("flushed seen %v, want %v", seen, now)
	}
	if err := s3.forget("r@c"); err != nil {
		t.Fatal(err)
	}
	s4, _ := loadSeen(path, clock)
	if _, ok := s4.lastSeen("r@c"); ok {
		t.Fatal("an unbound room is still remembered")
	}
}

func TestRoomSeenDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seen.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadSeen(path, time.Now); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("err %v", err)
	}
}

// A join asks for the history since the room was last seen, less the
// clock skew allowance, and never more than lateWindow back; a room
// never seen asks for none and is seen from then on.
func TestHistorySince(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 500, time.UTC)
	tr, err := New(Options{Config: config.XMPP{JID: "bot@localhost"}, Password: "pw", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.historySince("new@c"); ok {
		t.Fatal("a room never seen asks for history")
	}
	if seen, ok := tr.seen.lastSeen("new@c"); !ok || !seen.Equal(now) {
		t.Fatalf("seen %v %v", seen, ok)
	}
	_ = tr.seen.saw("recent@c", now.Add(-time.Hour))
	_ = tr.seen.saw("old@c", now.Add(-72*time.Hour))
	for room, want := range map[string]string{"recent@c": "2026-11-24T10:58:00Z", "old@c": "2026-11-23T12:00:00Z"} {
		since, ok := tr.historySince(room)
		if !ok || since.Format(time.RFC3339) != want {
			t.Errorf("%s: since %v %v, want %s", room, since, ok, want)
		}
		tr.dropHistory(room)
	}
	var j mucJoin
	j.History.MaxStanzas, j.History.Since = lateFetch, "2026-11-24T10:58:00Z"
	b, _ := xml.Marshal(j)
	if !strings.Contains(string(b), `<history maxstanzas="100" since="2026-11-24T10:58:00Z"></history>`) {
		t.Fatalf("join %s", b)
	}
}

// Of a room's history, only questions addressed to the bot by another
// occupant, not answered before, are kept; history the bot did not ask
// for is ignored.
func TestMissedKeepsOnlyQuestionsForTheBot(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tr, err := New(Options{Config: config.XMPP{JID: "bot@localhost", Resource: "asky"}, Password: "pw", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	const room = "r@conference.localhost"
	msg := func(nick, id, body string) inMessage {
		m := inMessage{Body: body}
		m.From, m.ID = jid.MustParse(room), id
		if nick != "" {
			m.From = jid.MustParse(room + "/" + nick)
		}
		m.Delay = &struct {
			Stamp string `xml:"stamp,attr"`
		}{Stamp: "2026-11-24T11:00:00Z"}
		return m
	}
	tr.missed(room, msg("alice", "0", "asky: not asked for"))
	_ = tr.seen.saw(room, now.Add(-time.Hour))
	_ = tr.seen.markAnswered(room, map[string]time.Time{"alice|done": now})
	if _, ok := tr.historySince(room); !ok {
		t.Fatal("no history asked")
	}
	for _, m := range []inMessage{
		msg("alice", "1", "asky: first"),
		msg("alice", "2", "lunch?"),
		msg("asky", "3", "asky: my own"),
		msg("asky_", "4", "@asky from my second nick"),
		msg("", "5", "asky: the room itself"),
		msg("alice", "done", "asky: answered before"),
		msg("bob", "6", "@asky second"),
		msg("bob", "7", "asky:"),
	} {
		tr.missed(room, m)
	}
	tr.mu.Lock()
	b := tr.hist[room]
	tr.mu.Unlock()
	var got []string
	for _, q := range b.questions {
		got = append(got, q.Nick+":"+q.Text)
	}
	if strings.Join(got, ",") != "alice:first,bob:second" {
		t.Fatalf("kept %q", got)
	}
	tr.dropHistory(room)
}
