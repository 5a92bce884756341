package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

func openMemoryTestStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func addTestSession(t *testing.T, st *Store, name string) int64 {
	t.Helper()
	res, err := st.DB().Exec(`INSERT INTO sessions(name, created_at, last_used_at) VALUES(?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`, name)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

func memoryIDs(ms []*Memory) []int64 {
	var ids []int64
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestMemoryCRUDAndScopes(t *testing.T) {
	ctx := context.Background()
	st := openMemoryTestStore(t)
	sid := addTestSession(t, st, "trip planning")
	other := addTestSession(t, st, "work")

	g := &Memory{Text: "I live in Lisbon", Tags: []string{"home"}, Embedding: []float32{0.5, -1.25}, EmbeddingModel: "test/v1"}
	if _, err := st.SaveMemory(ctx, g); err != nil {
		t.Fatal(err)
	}
	s1 := &Memory{SessionID: sid, Text: "Flying to Tokyo in May"}
	s2 := &Memory{SessionID: other, Text: "Team uses Go 1.26"}
	for _, m := range []*Memory{s1, s2} {
		if _, err := st.SaveMemory(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	got, err := st.GetMemory(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != g.Text || !slices.Equal(got.Tags, []string{"home"}) || !slices.Equal(got.Embedding, g.Embedding) || got.EmbeddingModel != "test/v1" || got.CreatedAt.IsZero() {
		t.Fatalf("round trip lost data: %+v", got)
	}

	for _, tc := range []struct {
		scope MemoryScope
		want  []int64
	}{
		{MemoryScope{}, []int64{g.ID}},
		{MemoryScope{SessionID: sid}, []int64{g.ID, s1.ID}},
		{MemoryScope{All: true}, []int64{g.ID, s1.ID, s2.ID}},
	} {
		ms, err := st.ListMemories(ctx, tc.scope)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(memoryIDs(ms), tc.want) {
			t.Errorf("ListMemories(%+v) = %v, want %v", tc.scope, memoryIDs(ms), tc.want)
		}
		n, err := st.CountMemories(ctx, tc.scope)
		if err != nil || n != len(tc.want) {
			t.Errorf("CountMemories(%+v) = %d, %v; want %d", tc.scope, n, err, len(tc.want))
		}
	}
	ms, _ := st.ListMemories(ctx, MemoryScope{SessionID: sid})
	if ms[1].SessionName != "trip planning" {
		t.Errorf("session name = %q", ms[1].SessionName)
	}

	// Update keeps the session and refreshes the FTS index.
	s1.Text = "Flying to Osaka in June"
	if _, err := st.SaveMemory(ctx, s1); err != nil {
		t.Fatal(err)
	}
	if c, _ := st.MemoryCandidates(ctx, `"tokyo"*`, MemoryScope{All: true}, 10); len(c) != 0 {
		t.Errorf("stale FTS row for old text: %v", memoryIDs(c))
	}
	c, err := st.MemoryCandidates(ctx, `"osaka"*`, MemoryScope{SessionID: sid}, 10)
	if err != nil || !slices.Equal(memoryIDs(c), []int64{s1.ID}) {
		t.Fatalf("candidates = %v, %v", memoryIDs(c), err)
	}
	if c[0].SessionID != sid {
		t.Errorf("update moved the memory to session %d", c[0].SessionID)
	}
	// The scope filter applies to FTS candidates too.
	if c, _ := st.MemoryCandidates(ctx, `"osaka"*`, MemoryScope{}, 10); len(c) != 0 {
		t.Errorf("a session memory leaked into the global scope")
	}

	if _, err := st.SaveMemory(ctx, &Memory{ID: 999, Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a missing memory: %v", err)
	}
	deleted, err := st.DeleteMemories(ctx, []int64{g.ID, 999})
	if err != nil || !slices.Equal(deleted, []int64{g.ID}) {
		t.Errorf("DeleteMemories = %v, %v", deleted, err)
	}
	if c, _ := st.MemoryCandidates(ctx, `"lisbon"*`, MemoryScope{All: true}, 10); len(c) != 0 {
		t.Errorf("deleted memory still in FTS")
	}

	// Deleting a session deletes its memories (and their index rows).
	if _, err := st.DB().Exec(`DELETE FROM sessions WHERE id = ?`, other); err != nil {
		t.Fatal(err)
	}
	if c, _ := st.MemoryCandidates(ctx, `"team"*`, MemoryScope{All: true}, 10); len(c) != 0 {
		t.Errorf("session delete left memory %v", memoryIDs(c))
	}
	n, err := st.ClearMemories(ctx, MemoryScope{All: true})
	if err != nil || n != 1 {
		t.Errorf("ClearMemories = %d, %v", n, err)
	}
	var rows int
	_ = st.DB().QueryRow(`SELECT count(*) FROM memories_fts`).Scan(&rows)
	if rows != 0 {
		t.Errorf("FTS index has %d rows after clear", rows)
	}
}
