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

// TestReplaceCorpusSourcesBatch writes several documents in one
// transaction, one of them replacing an earlier version, and checks that
// each keeps its own chunks, vectors and FTS rows; a batch naming a path
// twice is refused whole.
func TestReplaceCorpusSourcesBatch(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := func(path, word string, n int) SourceWrite {
		w := SourceWrite{Src: &CorpusSource{Path: path, Title: path, Format: "md", SHA256: word, Content: word, Sections: "[]"}}
		for i := 0; i < n; i++ {
			w.Chunks = append(w.Chunks, CorpusChunk{Index: i, Title: path, Text: word + " chunk"})
			w.Vecs = append(w.Vecs, []float32{float32(len(path)), float32(i)})
		}
		return w
	}
	if _, err := s.ReplaceCorpusSources(ctx, []SourceWrite{doc("/a", "alpha", 2)}, "fp"); err != nil {
		t.Fatal(err)
	}
	ids, err := s.ReplaceCorpusSources(ctx, []SourceWrite{doc("/bb", "bravo", 3), doc("/a", "again", 1), doc("/ccc", "charlie", 2)}, "fp")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][2]any{ids[0]: {3, "bravo"}, ids[1]: {1, "again"}, ids[2]: {2, "charlie"}}
	for id, w := range want {
		chunks, err := s.SourceChunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != w[0].(int) {
			t.Fatalf("source %d: %d chunks, want %d", id, len(chunks), w[0])
		}
		vids, flat, err := s.CorpusVectors(ctx, "fp", 2, []int64{id})
		if err != nil || len(vids) != len(chunks) {
			t.Fatalf("source %d: %d vectors, err %v", id, len(vids), err)
		}
		for k, c := range chunks {
			if c.Text != w[1].(string)+" chunk" {
				t.Fatalf("source %d chunk %d: %q", id, k, c.Text)
			}
			for j, vid := range vids {
				if vid == c.ID && flat[2*j+1] != float32(c.Index) {
					t.Fatalf("source %d: chunk %d has the vector of chunk %v", id, c.Index, flat[2*j+1])
				}
			}
		}
	}
	hits, err := s.SearchCorpusFTS(ctx, `"alpha"`, [3]float64{1, 1, 1}, nil, 10)
	if err != nil || len(hits) != 0 {
		t.Fatalf("replaced text still indexed: %v %v", hits, err)
	}
	if err := s.CorpusFTSCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceCorpusSources(ctx, []SourceWrite{doc("/d", "delta", 1), doc("/d", "delta", 1)}, "fp"); err == nil {
		t.Fatal("a path twice in one batch was accepted")
	}
	if _, err := s.CorpusSourceByPath(ctx, "/d"); err == nil {
		t.Fatal("a refused batch left a document behind")
	}
}
