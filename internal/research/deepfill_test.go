package research

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// snapDeepCorpus is deepCorpus with snapshots for both spaces.
func snapDeepCorpus(t *testing.T, deep Embedder, docs map[string]string) (*Index, string) {
	t.Helper()
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	ix.Deep = NewDeepTier(ix.St, deep, ix.SnapshotDir)
	dir := t.TempDir()
	ingestDocs(t, ix, dir, docs)
	return ix, dir
}

// TestDeepFillKeepsSnapshotCurrent checks that the deep snapshot is
// current after every committed batch of a fill (so a query during or
// right after it maps the files instead of rewriting them from SQLite),
// that it holds exactly what a rewrite would, and that the first query
// after the fill rewrites nothing. After an ingest the next fill follows
// its batches too.
func TestDeepFillKeepsSnapshotCurrent(t *testing.T) {
	ctx := context.Background()
	deep := zebraDeep("concepts")
	ix, dir := snapDeepCorpus(t, deep, manyDocs())
	d := ix.Deep.ix
	// The first progress call comes before any batch; each later one
	// right after a batch was committed.
	batches := -1
	check := func(_, _ int) {
		if batches++; batches > 0 {
			requireCurrent(t, d, "deep snapshot not current after a committed batch")
		}
	}
	if _, err := ix.FillDeep(ctx, check); err != nil {
		t.Fatal(err)
	}
	if batches < 3 {
		t.Fatalf("%d progress calls: the test wants several batches", batches)
	}
	before, err := os.Stat(d.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	q := freshIndex(ix)
	q.Deep = NewDeepTier(ix.St, deep, ix.SnapshotDir)
	defer q.Close()
	if _, err := q.Search(ctx, "zebra on the plains", SearchOptions{TopK: 3}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(d.snapshotPath())
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the first query after the fill rewrote the deep snapshot")
	}
	q.Close()
	sameAsRebuild(t, d)

	// An ingest moves the generation and re-stamps the deep files (see
	// otherSnaps); the next fill follows its batches.
	ingestDocs(t, ix, dir, map[string]string{"late.md": "# Late\n\nA zebra arrived late.\n\nAnother zebra came.\n"})
	batches = -1
	if n, err := ix.FillDeep(ctx, check); err != nil || n == 0 || batches < 1 {
		t.Fatalf("second fill embedded %d (%d batches), %v", n, batches, err)
	}
	sameAsRebuild(t, d)
}

// TestDeepFillBesideAnotherPass checks that a fill whose batch another
// pass embedded meanwhile (the daemon's and a `corpus embed`) stops
// appending and rewrites the deep snapshot at its end: never a chunk
// twice in the files.
func TestDeepFillBesideAnotherPass(t *testing.T) {
	ctx := context.Background()
	deep := zebraDeep("concepts")
	ix, _ := snapDeepCorpus(t, deep, manyDocs())
	other := freshIndex(ix)
	other.Deep = NewDeepTier(ix.St, zebraDeep("concepts"), ix.SnapshotDir)
	defer other.Close()
	deep.afterBatch = func(call int) {
		if call == 2 {
			if _, err := other.FillDeep(ctx, nil); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	requireCurrent(t, ix.Deep.ix, "deep snapshot not current after two passes")
	sameAsRebuild(t, ix.Deep.ix)
}

// TestDeepModelSwitchKeepsMainSnapshot checks that dropping the old deep
// model's vectors, which moves the corpus generation, leaves the main
// space's snapshot current: the first query after the fill does not
// rewrite it.
func TestDeepModelSwitchKeepsMainSnapshot(t *testing.T) {
	ctx := context.Background()
	ix, _ := snapDeepCorpus(t, zebraDeep("model-a"), zebraDocs)
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	requireCurrent(t, ix, "main snapshot not current after the first fill")
	ix.Deep = NewDeepTier(ix.St, zebraDeep("model-b"), ix.SnapshotDir)
	if n, err := ix.FillDeep(ctx, nil); err != nil || n == 0 {
		t.Fatalf("switch embedded %d, %v", n, err)
	}
	requireCurrent(t, ix, "main snapshot stale after the deep model switch")
	requireCurrent(t, ix.Deep.ix, "deep snapshot not current after the deep model switch")
	if m, _ := filepath.Glob(filepath.Join(ix.SnapshotDir, "vectors-*.snap")); len(m) < 2 {
		t.Fatalf("snapshots %v", m)
	}
}
