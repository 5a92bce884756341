package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func addDoc(t *testing.T, st *Store, path string, texts ...string) int64 {
	t.Helper()
	chunks := make([]CorpusChunk, len(texts))
	for i, x := range texts {
		chunks[i] = CorpusChunk{Index: i, Title: "T", Text: x}
	}
	id, err := st.ReplaceCorpusSource(context.Background(), &CorpusSource{Path: path, Title: "T", Format: "md", SHA256: "x", Sections: "[]"}, chunks, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func termDocs(t *testing.T, st *Store, terms ...string) (map[string]int, int) {
	t.Helper()
	df, total, err := st.CorpusTermDocs(context.Background(), terms)
	if err != nil {
		t.Fatal(err)
	}
	return df, total
}

// Counts come from the cache for the corpus generation they were taken
// in, and are recounted once the corpus changes.
func TestCorpusTermDocsCachedPerGeneration(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	addDoc(t, st, "/a.md", "pager rolls back", "pager again", "cafe")
	df, total := termDocs(t, st, "pager", "cafe", "absent", "pager")
	if df["pager"] != 2 || df["cafe"] != 1 || df["absent"] != 0 || total != 3 {
		t.Fatalf("df %v total %d", df, total)
	}
	var cached int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_term_docs`).Scan(&cached); err != nil || cached != 3 {
		t.Fatalf("%d terms cached (%v), want 3 (absent ones too)", cached, err)
	}
	// A cached count is what the next query reads (here a planted one).
	if _, err := st.db.ExecContext(ctx, `UPDATE corpus_term_docs SET doc = 7 WHERE term = 'pager'`); err != nil {
		t.Fatal(err)
	}
	if df, _ := termDocs(t, st, "pager"); df["pager"] != 7 {
		t.Fatalf("pager %d, want the cached 7", df["pager"])
	}
	// A write changes the generation: the stale row is recounted.
	id := addDoc(t, st, "/b.md", "pager here too", "absent no more")
	df, total = termDocs(t, st, "pager", "absent", "cafe")
	if df["pager"] != 3 || df["absent"] != 1 || df["cafe"] != 1 || total != 5 {
		t.Fatalf("after an ingest: df %v total %d", df, total)
	}
	if err := st.DeleteCorpusSource(ctx, id); err != nil {
		t.Fatal(err)
	}
	if df, total = termDocs(t, st, "pager", "absent"); df["pager"] != 2 || df["absent"] != 0 || total != 3 {
		t.Fatalf("after a delete: df %v total %d", df, total)
	}
}

// A query never waits for an ingest's write lock to cache its counts.
func TestCorpusTermDocsDoesNotWaitForTheWriteLock(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	addDoc(t, st, "/a.md", "pager rolls back")
	tx, err := st.db.BeginTx(ctx, nil) // _txlock=immediate: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	t0 := time.Now()
	df, _ := termDocs(t, st, "pager", "rolls")
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("took %v behind a held write lock", d)
	}
	if df["pager"] != 1 || df["rolls"] != 1 {
		t.Fatalf("df %v", df)
	}
	tx.Rollback()
	var cached int
	st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_term_docs`).Scan(&cached)
	if cached != 0 {
		t.Fatalf("%d rows cached while the lock was held", cached)
	}
	// The busy timeout is back for everything else.
	var ms int
	for i := 0; i < 4; i++ {
		if err := st.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&ms); err != nil || fmt.Sprint(ms) != busyTimeoutMS {
			t.Fatalf("busy_timeout %d (%v), want %s", ms, err, busyTimeoutMS)
		}
	}
}
