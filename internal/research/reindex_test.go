package research

import (
	"context"
	"os"
	"reflect"
	"testing"
)

// reindexedWith runs Reindex on the corpus of ix with main as the main
// embedder (the deep tier as before) and returns that index.
func reindexedWith(t *testing.T, ix *Index, main Embedder, want int) *Index {
	t.Helper()
	r := &Index{St: ix.St, Emb: main, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
	r.Deep = NewDeepTier(ix.St, zebraDeep("concepts"), ix.SnapshotDir)
	n, err := Reindex(context.Background(), r, nil, nil)
	if err != nil || n != want {
		t.Fatalf("reindex embedded %d, %v; want %d", n, err, want)
	}
	return r
}

// firstQueryAfter runs a new process's first query with main as the main
// embedder; it fails when the query rewrote either snapshot.
func firstQueryAfter(t *testing.T, ix *Index, main Embedder) []Hit {
	t.Helper()
	var before []os.FileInfo
	for _, p := range []string{ix.snapshotPath(), ix.Deep.ix.snapshotPath()} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, st)
	}
	q := &Index{St: ix.St, Emb: main, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
	q.Deep = NewDeepTier(ix.St, zebraDeep("concepts"), ix.SnapshotDir)
	defer q.Close()
	hits, err := q.Search(context.Background(), "striped horse", SearchOptions{TopK: 8})
	if err != nil || len(hits) == 0 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	for i, p := range []string{ix.snapshotPath(), ix.Deep.ix.snapshotPath()} {
		after, err := os.Stat(p)
		if err != nil || !os.SameFile(before[i], after) || !after.ModTime().Equal(before[i].ModTime()) {
			t.Fatalf("the first query after the reindex rewrote %s", p)
		}
	}
	return hits
}

// TestReindexKeepsDeepSnapshotCurrent checks `corpus reindex` after the
// main embedder changed: every chunk is re-embedded in the new space and
// the old space dropped, which moves the corpus generation at every
// source, but the deep vectors do not change. The deep snapshot must
// follow (re-stamped in place, not rewritten), the main one be written,
// and the first query rewrite neither and answer as rewrites would.
func TestReindexKeepsDeepSnapshotCurrent(t *testing.T) {
	ix, _ := filledDeepCorpus(t)
	deepFile := statDeep(t, ix)
	oldMain := ix.snapshotPath()
	chunks, _, _ := ix.St.CorpusCounts(context.Background(), "")
	r := reindexedWith(t, ix, prefixed{HashV1{}}, chunks)
	requireCurrent(t, r, "main snapshot not current after the reindex")
	requireCurrent(t, r.Deep.ix, "deep snapshot not current after the reindex")
	if !sameDeepFile(t, ix, deepFile) {
		t.Fatal("the reindex rewrote the deep snapshot instead of following it")
	}
	if _, err := os.Stat(oldMain); !os.IsNotExist(err) {
		t.Fatalf("the dropped space's snapshot is left behind: %v", err)
	}
	hits := firstQueryAfter(t, r, prefixed{HashV1{}})
	sameAsRebuild(t, r)
	sameAsRebuild(t, r.Deep.ix)
	again := firstQueryAfter(t, r, prefixed{HashV1{}})
	if !reflect.DeepEqual(paths(hits), paths(again)) {
		t.Fatalf("hits %v, after rewrites %v", paths(hits), paths(again))
	}
}

// TestReindexStaleSpaceKeepsDeepTier checks a main model that changed
// behind the same name (the canary moved): its vectors are rebuilt, and
// the deep tier's, from another model, are kept with their snapshot
// current.
func TestReindexStaleSpaceKeepsDeepTier(t *testing.T) {
	ctx := context.Background()
	ix, _ := filledDeepCorpus(t)
	sp, err := ix.St.EmbeddingSpace(ctx, ix.Fingerprint())
	if err != nil {
		t.Fatal(err)
	}
	sp.Probe = HashV1Vector("something else entirely")
	if err := ix.St.PutEmbeddingSpace(ctx, *sp); err != nil {
		t.Fatal(err)
	}
	chunks, _, _ := ix.St.CorpusCounts(ctx, "")
	r := reindexedWith(t, ix, HashV1{}, chunks)
	cov, err := r.DeepCoverage(ctx)
	if err != nil || cov.Vectors != chunks {
		t.Fatalf("deep coverage %+v, %v: the deep vectors were dropped", cov, err)
	}
	requireCurrent(t, r, "main snapshot not current after the reindex")
	requireCurrent(t, r.Deep.ix, "deep snapshot not current after the reindex")
	firstQueryAfter(t, r, HashV1{})
	sameAsRebuild(t, r.Deep.ix)
}
