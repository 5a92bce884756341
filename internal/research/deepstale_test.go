package research

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// filledDeepCorpus is a corpus whose deep pass has run, with both
// snapshots current.
func filledDeepCorpus(t *testing.T) (*Index, string) {
	t.Helper()
	ix, dir := snapDeepCorpus(t, zebraDeep("concepts"), manyDocs())
	if _, err := ix.FillDeep(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	requireCurrent(t, ix.Deep.ix, "deep snapshot not current after the fill")
	return ix, dir
}

// deepQueryRewritesNothing runs the first query of a new process and
// fails when it rewrote the deep snapshot; it returns the hits.
func deepQueryRewritesNothing(t *testing.T, ix *Index) []Hit {
	t.Helper()
	d := ix.Deep.ix
	before, err := os.Stat(d.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	q := freshIndex(ix)
	q.Deep = NewDeepTier(ix.St, zebraDeep("concepts"), ix.SnapshotDir)
	defer q.Close()
	hits, err := q.Search(context.Background(), "striped horse", SearchOptions{TopK: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	after, err := os.Stat(d.snapshotPath())
	if err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the first query after the ingest rewrote the deep snapshot")
	}
	return hits
}

// requireDeepExact fails unless the deep snapshot is current, holds what
// a rewrite from SQLite holds, and a query over the rewrite answers the
// same.
func requireDeepExact(t *testing.T, ix *Index, hits []Hit) {
	t.Helper()
	requireCurrent(t, ix.Deep.ix, "deep snapshot not current")
	sameAsRebuild(t, ix.Deep.ix)
	q := freshIndex(ix)
	q.Deep = NewDeepTier(ix.St, zebraDeep("concepts"), ix.SnapshotDir)
	defer q.Close()
	again, err := q.Search(context.Background(), "striped horse", SearchOptions{TopK: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(paths(again), paths(hits)) {
		t.Fatalf("hits %v, after a rewrite %v", paths(hits), paths(again))
	}
}

// sameFile reports whether the deep snapshot is still the file st was
// taken of (re-stamped in place, not rewritten).
func sameDeepFile(t *testing.T, ix *Index, st os.FileInfo) bool {
	t.Helper()
	now, err := os.Stat(ix.Deep.ix.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	return os.SameFile(st, now)
}

func statDeep(t *testing.T, ix *Index) os.FileInfo {
	t.Helper()
	st, err := os.Stat(ix.Deep.ix.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIngestKeepsDeepSnapshotCurrent checks that an ingest that leaves
// the deep pass for later (`corpus ingest --no-deep`, the daemon's
// ingest) keeps the deep snapshot current, so the first query after it
// maps the files instead of rewriting them from SQLite: new documents
// have no deep vector yet, and the ingest only re-stamps the header.
func TestIngestKeepsDeepSnapshotCurrent(t *testing.T) {
	ix, dir := filledDeepCorpus(t)
	st := statDeep(t, ix)
	ingestDocs(t, ix, dir, map[string]string{"late.md": "# Late\n\nA striped horse arrived late.\n\nAnother zebra came.\n"})
	if !sameDeepFile(t, ix, st) {
		t.Fatal("an ingest of a new document rewrote the deep snapshot")
	}
	hits := deepQueryRewritesNothing(t, ix)
	requireDeepExact(t, ix, hits)
}

// deepAfterChange runs change on a corpus whose deep pass has run (its
// deep vectors change: their rows must leave the files, patched out in
// place), then the first query, which must rewrite nothing nor return a
// hit stale flags, and answer as a rewrite of the deep snapshot would.
func deepAfterChange(t *testing.T, change func(ix *Index, dir string), stale func(Hit) bool) {
	t.Helper()
	ix, dir := filledDeepCorpus(t)
	st := statDeep(t, ix)
	change(ix, dir)
	if !sameDeepFile(t, ix, st) {
		t.Fatal("the deep snapshot was rewritten instead of patched")
	}
	hits := deepQueryRewritesNothing(t, ix)
	for _, h := range hits {
		if stale(h) {
			t.Fatalf("a chunk that is gone was returned: %+v", h)
		}
	}
	requireDeepExact(t, ix, hits)
}

// deepRestampedAfter ingests late.md after the deep pass, then runs
// change (on late.md, which has no deep vector), which must only
// re-stamp the deep snapshot in place.
func deepRestampedAfter(t *testing.T, change func(ix *Index, dir string)) {
	t.Helper()
	ix, dir := filledDeepCorpus(t)
	ingestDocs(t, ix, dir, map[string]string{"late.md": "# Late\n\nA striped horse arrived late.\n"})
	st := statDeep(t, ix)
	change(ix, dir)
	if !sameDeepFile(t, ix, st) {
		t.Fatal("a change to a document without deep vectors rewrote the deep snapshot")
	}
	requireDeepExact(t, ix, deepQueryRewritesNothing(t, ix))
}

// TestIngestReplacingKeepsDeepSnapshotCurrent checks a replaced
// document: when its old chunks had deep vectors (deleted with them),
// their rows must leave the deep snapshot, which the ingest patches in
// place (as it does the main one); when they had none, it only
// re-stamps it.
// Either way the first query rewrites nothing and answers as a rewrite.
func TestIngestReplacingKeepsDeepSnapshotCurrent(t *testing.T) {
	t.Run("with deep vectors", func(t *testing.T) {
		deepAfterChange(t, func(ix *Index, dir string) {
			ingestDocs(t, ix, dir, map[string]string{"doc1.md": "# Changed\n\nA striped horse replaced the whole document.\n"})
		}, func(h Hit) bool { return filepath.Base(h.Path) == "doc1.md" && h.Title != "Changed" })
	})
	t.Run("without deep vectors", func(t *testing.T) {
		deepRestampedAfter(t, func(ix *Index, dir string) {
			ingestDocs(t, ix, dir, map[string]string{"late.md": "# Later\n\nA striped horse arrived later.\n"})
		})
	})
}

// TestPruneKeepsDeepSnapshotCurrent checks a document removed because
// its file is gone: with deep vectors, its rows leave the deep snapshot
// (patched by the prune); without, the snapshot is only re-stamped.
func TestPruneKeepsDeepSnapshotCurrent(t *testing.T) {
	prune := func(name string) func(ix *Index, dir string) {
		return func(ix *Index, dir string) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			in := &Ingester{Index: ix, Chunker: Chunker{Size: 40, Overlap: 0}}
			removed, err := in.PruneDeleted(context.Background(), []string{dir})
			if err != nil || len(removed) != 1 {
				t.Fatalf("pruned %v, %v", removed, err)
			}
		}
	}
	t.Run("with deep vectors", func(t *testing.T) {
		deepAfterChange(t, prune("doc2.md"), func(h Hit) bool { return filepath.Base(h.Path) == "doc2.md" })
	})
	t.Run("without deep vectors", func(t *testing.T) {
		deepRestampedAfter(t, prune("late.md"))
	})
}

// TestDeepFollowBesideAnotherPass checks the count guard: deep vectors
// another pass committed while an ingest follows the deep snapshot
// (which the files do not hold) stop the re-stamp, and the ingest's end
// rewrites the files instead.
func TestDeepFollowBesideAnotherPass(t *testing.T) {
	ctx := context.Background()
	ix, dir := filledDeepCorpus(t)
	ingestDocs(t, ix, dir, map[string]string{"late.md": "# Late\n\nA striped horse arrived late.\n"})
	d := ix.Deep.ix
	others := ix.followOtherSpaces(ctx)
	if others == nil || len(others.spaces) != 1 || others.spaces[0].ix.fp != d.fp {
		t.Fatal("the deep snapshot is not followed")
	}
	defer others.close()
	// Another pass embeds late.md without touching the snapshot...
	chunks, err := ix.St.ChunksMissingVectors(ctx, d.fp, 100)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("%d chunks missing, %v", len(chunks), err)
	}
	cv := store.ChunkVectors{SourceID: chunks[0].SourceID}
	for _, c := range chunks {
		v, _ := d.Emb.EmbedDocuments(ctx, []string{EmbedText(c)})
		cv.IDs, cv.Vecs = append(cv.IDs, c.ID), append(cv.Vecs, v[0])
	}
	if n, err := ix.St.AddChunkVectors(ctx, d.fp, []store.ChunkVectors{cv}); err != nil || n != len(chunks) {
		t.Fatalf("added %d, %v", n, err)
	}
	// ...then the ingest commits a new document.
	src := &store.CorpusSource{Path: filepath.Join(dir, "other.md"), Title: "Other", Format: "md", SHA256: "x"}
	writes := []store.SourceWrite{{Src: src, Chunks: []store.CorpusChunk{{Index: 0, Text: "a zebra"}}}}
	if _, err := ix.St.ReplaceCorpusSources(ctx, writes, ix.Fingerprint()); err != nil {
		t.Fatal(err)
	}
	others.written(ctx, writes)
	if others.spaces[0].app != nil {
		t.Fatal("the deep snapshot was re-stamped without the other pass's vectors")
	}
	others.finish(ctx, nil)
	requireCurrent(t, d, "deep snapshot not rewritten at the end")
	sameAsRebuild(t, d)
}
