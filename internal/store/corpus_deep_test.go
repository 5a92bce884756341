package store

import (
	"context"
	"path/filepath"
	"testing"
)

// Two passes that embedded the same chunks (the daemon's and a `corpus
// embed`) store one vector each; chunks deleted meanwhile get none.
func TestAddChunkVectorsNeverTwice(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := SourceWrite{Src: &CorpusSource{Path: "/a", Title: "a", Format: "md", SHA256: "x", Sections: "[]"}}
	for i := 0; i < 3; i++ {
		w.Chunks = append(w.Chunks, CorpusChunk{Index: i, Text: "chunk"})
		w.Vecs = append(w.Vecs, []float32{1, 0})
	}
	ids, err := s.ReplaceCorpusSources(ctx, []SourceWrite{w}, "main")
	if err != nil {
		t.Fatal(err)
	}
	missing, err := s.ChunksMissingVectors(ctx, "deep", 10)
	if err != nil || len(missing) != 3 {
		t.Fatalf("missing %d, %v", len(missing), err)
	}
	cids := []int64{missing[0].ID, missing[1].ID}
	batch := []ChunkVectors{{SourceID: ids[0], IDs: cids, Vecs: [][]float32{{0, 1, 0}, {1, 0, 0}}}}
	for i, want := range []int{2, 0} {
		if n, err := s.AddChunkVectors(ctx, "deep", batch); err != nil || n != want {
			t.Fatalf("pass %d added %d, %v; want %d", i+1, n, err, want)
		}
	}
	gone := []ChunkVectors{{SourceID: ids[0], IDs: []int64{9999}, Vecs: [][]float32{{0, 0, 1}}}}
	if n, err := s.AddChunkVectors(ctx, "deep", gone); err != nil || n != 0 {
		t.Fatalf("a deleted chunk added %d, %v", n, err)
	}
	f, err := s.CorpusFacts(ctx, "deep")
	if err != nil || f.Vectors != 2 || f.Chunks != 3 {
		t.Fatalf("facts %+v, %v", f, err)
	}
	have, err := s.ChunksWithVectors(ctx, "deep", []int64{missing[0].ID, missing[2].ID})
	if err != nil || !have[missing[0].ID] || have[missing[2].ID] {
		t.Fatalf("with vectors %v, %v", have, err)
	}
	if rest, err := s.ChunksMissingVectors(ctx, "deep", 10); err != nil || len(rest) != 1 || rest[0].ID != missing[2].ID {
		t.Fatalf("still missing %+v, %v", rest, err)
	}
}
