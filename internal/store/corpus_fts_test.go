package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCorpusFTSAutomerge checks the migrated FTS5 merge setting that keeps
// bulk ingest from spending its time merging per-document segments.
func TestCorpusFTSAutomerge(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT v FROM corpus_chunks_fts_config WHERE k = 'automerge'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != 8 {
		t.Fatalf("automerge = %d, want 8", v)
	}
}
