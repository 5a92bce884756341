package xmpp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mellium.im/xmpp/jid"
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
