package research

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestVectorSnapshot(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "# A\n\nThe pager rolls back the journal.\n")
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	first, err := ix.Search(ctx, "rollback journal", SearchOptions{TopK: 3})
	if err != nil || len(first) == 0 {
		t.Fatal(first, err)
	}
	snap := filepath.Join(ix.SnapshotDir, "vectors-"+ix.Fingerprint()+".snap")
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	// A fresh index (a new process) reads the snapshot and agrees.
	fresh := &Index{St: ix.St, Emb: HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
	if err := fresh.Open(ctx); err != nil {
		t.Fatal(err)
	}
	gen, _ := ix.St.CorpusGeneration(ctx)
	_, count, _ := ix.St.CorpusCounts(ctx, fresh.Fingerprint())
	ids, flat, mapped, ok := fresh.readSnapshot(gen, count)
	if !ok || len(ids) != count || len(flat) != count*512 {
		t.Fatalf("snapshot unreadable: ok=%v %d ids", ok, len(ids))
	}
	want, wantFlat, _ := ix.St.CorpusVectors(ctx, fresh.Fingerprint(), 512, nil)
	for i := range wantFlat {
		if wantFlat[i] != flat[i] || (i < len(want) && want[i] != ids[i]) {
			t.Fatal("snapshot differs from the stored vectors")
		}
	}
	unmapFile(mapped)
	// A corpus change makes it stale; a corrupt file is a cache miss.
	write(t, filepath.Join(dir, "b.md"), "# B\n\nCheckpoints copy frames.\n")
	targets, _ = in.Collect([]string{dir})
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	gen2, _ := ix.St.CorpusGeneration(ctx)
	if _, _, _, ok := fresh.readSnapshot(gen2, count+1); ok || gen2 == gen {
		t.Fatal("stale snapshot accepted")
	}
	if err := os.WriteFile(snap, []byte("ASKYVEC1garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	again := &Index{St: ix.St, Emb: HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
	defer again.Close()
	hits, err := again.Search(ctx, "checkpoints frames", SearchOptions{TopK: 3})
	if err != nil || len(hits) == 0 || hits[0].Title != "B" {
		t.Fatalf("%+v %v", hits, err)
	}
}

// TestSnapshotMappedSearch searches through a mapped snapshot, then
// invalidates (unmaps) and searches again.
func TestSnapshotMappedSearch(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "# A\n\nThe pager rolls back the journal.\n")
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(ctx, "journal", SearchOptions{}); err != nil { // writes the snapshot
		t.Fatal(err)
	}
	reader := &Index{St: ix.St, Emb: HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
	for i := 0; i < 3; i++ {
		hits, err := reader.Search(ctx, "rollback journal", SearchOptions{})
		if err != nil || len(hits) == 0 || hits[0].Dense <= 0 {
			t.Fatalf("round %d: %+v %v", i, hits, err)
		}
		reader.Invalidate()
	}
	reader.Close()
}
