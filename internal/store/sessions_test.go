package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func openTest(t testing.TB) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestSessionCRUD(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	a := &Session{Name: "trip", Defaults: SessionDefaults{Model: "fast", ToolOff: []string{"web_search"}}}
	if err := st.CreateSession(ctx, a); err != nil {
		t.Fatal(err)
	}
	var taken *NameTakenError
	if err := st.CreateSession(ctx, &Session{Name: "trip"}); !errors.As(err, &taken) {
		t.Fatalf("duplicate name: got %v", err)
	}
	if err := st.CreateSession(ctx, &Session{}); err != nil {
		t.Fatalf("two unnamed sessions must be allowed: %v", err)
	}
	if err := st.CreateSession(ctx, &Session{}); err != nil {
		t.Fatalf("two unnamed sessions must be allowed: %v", err)
	}
	if _, err := st.SaveTurn(ctx, &Turn{SessionID: a.ID, Query: "q1", Answer: "a1"}); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetSession(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "trip" || got.Turns != 1 || got.Defaults.Model != "fast" || got.Defaults.ToolOff[0] != "web_search" {
		t.Fatalf("got %+v", got)
	}
	if err := st.RenameSession(ctx, a.ID, "paris"); err != nil {
		t.Fatal(err)
	}
	found, err := st.FindSessions(ctx, "AR", 10)
	if err != nil || len(found) != 1 || found[0].Name != "paris" {
		t.Fatalf("find: %v %v", found, err)
	}
	// LIKE wildcards typed by the user are literal.
	if found, _ := st.FindSessions(ctx, "%", 10); len(found) != 0 {
		t.Fatalf("%% matched %d sessions", len(found))
	}
	if _, err := st.DB().Exec(`UPDATE sessions SET query_defaults = 'garbage' WHERE id = ?`, a.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetSession(ctx, a.ID); err != nil || got.Defaults.Model != "" {
		t.Fatalf("garbage defaults: %+v %v", got, err)
	}
}

func TestDeleteSessionsRemovesLinkedRows(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	// A table a later migration might add (findings) and one that must
	// survive (memories).
	if _, err := st.DB().Exec(`CREATE TABLE findings(id INTEGER PRIMARY KEY, session_id INTEGER, text TEXT);
		CREATE TABLE user_memories(id INTEGER PRIMARY KEY, session_id INTEGER, text TEXT)`); err != nil {
		t.Fatal(err)
	}
	a, b := &Session{Name: "a"}, &Session{Name: "b"}
	st.CreateSession(ctx, a)
	st.CreateSession(ctx, b)
	for _, s := range []*Session{a, b} {
		st.SaveTurn(ctx, &Turn{SessionID: s.ID, Query: "q", Answer: "x"})
		st.DB().Exec(`INSERT INTO findings(session_id, text) VALUES(?, 'f')`, s.ID)
		st.DB().Exec(`INSERT INTO user_memories(session_id, text) VALUES(?, 'm')`, s.ID)
	}
	n, err := st.CleanSessionResearch(ctx, b.ID)
	if err != nil || n != 1 {
		t.Fatalf("clean: %d %v", n, err)
	}
	turns, err := st.DeleteSessions(ctx, []int64{a.ID})
	if err != nil || turns != 1 {
		t.Fatalf("delete: %d %v", turns, err)
	}
	count := func(q string) (n int) {
		st.DB().QueryRow(q).Scan(&n)
		return
	}
	if c := count(`SELECT count(*) FROM findings`); c != 0 {
		t.Errorf("findings left: %d", c)
	}
	if c := count(`SELECT count(*) FROM user_memories`); c != 2 {
		t.Errorf("memories: %d, want 2", c)
	}
	if c := count(`SELECT count(*) FROM turns`); c != 1 {
		t.Errorf("turns: %d, want 1", c)
	}
	// The FTS index follows deletes.
	if hits, _ := st.SearchTurns(ctx, "q", 10); len(hits) != 1 {
		t.Errorf("search after delete: %d hits", len(hits))
	}
}

func TestSearchTurnsRanking(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	for _, tc := range []struct{ q, a string }{
		{"how to bake bread", "Use flour, water and yeast."},
		{"weather in paris", "Sunny. Bread in Paris is good."},
		{"sourdough bread bread starter", "Feed the starter daily; bread needs time."},
		{"unrelated", "nothing here"},
	} {
		if _, err := st.SaveTurn(ctx, &Turn{Query: tc.q, Answer: tc.a}); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := st.SearchTurns(ctx, "bread", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("got %d hits", len(hits))
	}
	if hits[0].Turn.ID != 3 || hits[2].Turn.ID != 2 {
		t.Errorf("order: %d %d %d", hits[0].Turn.ID, hits[1].Turn.ID, hits[2].Turn.ID)
	}
	// Stemming, and operator characters are text.
	for _, q := range []string{"baking", "sourd", `bread" OR "x`, "NEAR(", "-"} {
		if _, err := st.SearchTurns(ctx, q, 10); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	if h, _ := st.SearchTurns(ctx, "breads", 10); len(h) != 3 {
		t.Errorf("stemming: %d hits", len(h))
	}
	// Updates are indexed.
	st.DB().Exec(`UPDATE turns SET answer = 'croissant' WHERE id = 4`)
	if h, _ := st.SearchTurns(ctx, "croissant", 10); len(h) != 1 {
		t.Errorf("update not indexed")
	}
}

func TestBrowsePagesMergeAndResume(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := base
	st.SetNow(func() time.Time { return clock })
	var want []string
	for i := 0; i < 25; i++ {
		clock = base.Add(time.Duration(i) * time.Minute)
		if i%5 == 0 {
			s := &Session{Name: fmt.Sprintf("s%d", i)}
			st.CreateSession(ctx, s)
			st.SaveTurn(ctx, &Turn{SessionID: s.ID, Query: "in session", CreatedAt: clock})
			want = append(want, s.Name)
			continue
		}
		q := fmt.Sprintf("q%d", i)
		st.SaveTurn(ctx, &Turn{Query: q, CreatedAt: clock})
		want = append(want, q)
	}
	var got []string
	cur := &BrowseCursor{}
	for pages := 0; !cur.Done() && pages < 20; pages++ {
		page, err := st.BrowsePage(ctx, cur, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			got = append(got, e.Title)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[len(want)-1-i] {
			t.Fatalf("entry %d: got %s want %s (all %v)", i, got[i], want[len(want)-1-i], got)
		}
	}
}

func TestSnippet(t *testing.T) {
	for _, tc := range []struct{ text, q, want string }{
		{"one two three Bread four", "bread", "… two three «Bread» four"},
		{"a b c d e f g h i j k l m n o p baking", "bake", "… o p «baking»"},
		{"nothing", "x", "nothing"},
	} {
		if got := Snippet(tc.text, tc.q, 8); got != tc.want {
			t.Errorf("%q/%q: %q, want %q", tc.text, tc.q, got, tc.want)
		}
	}
}
