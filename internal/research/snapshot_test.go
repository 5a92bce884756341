package research

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapIndex ingests docs (name → text) into a new index with a snapshot
// directory; the ingest writes the snapshot.
func snapIndex(t *testing.T, docs map[string]string) (*Index, string) {
	t.Helper()
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	dir := t.TempDir()
	for name, text := range docs {
		write(t, filepath.Join(dir, name), text)
	}
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(context.Background(), targets); err != nil {
		t.Fatal(err)
	}
	return ix, dir
}

// requireCurrent fails with msg unless the snapshot matches the corpus.
func requireCurrent(t *testing.T, ix *Index, msg string) {
	t.Helper()
	f, _ := ix.St.CorpusFacts(context.Background(), ix.Fingerprint())
	s, ok := ix.openSnapshot(f.Generation, f.Vectors)
	if !ok {
		t.Fatal(msg)
	}
	s.close()
}

func freshIndex(ix *Index) *Index {
	return &Index{St: ix.St, Emb: HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25, SnapshotDir: ix.SnapshotDir}
}

func TestVectorSnapshot(t *testing.T) {
	ctx := context.Background()
	ix, dir := snapIndex(t, map[string]string{"a.md": "# A\n\nThe pager rolls back the journal.\n"})
	snap := ix.snapshotPath()
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("ingest wrote no snapshot: %v", err)
	}
	// A fresh index (a new process) maps the snapshot and agrees with the
	// stored vectors.
	fresh := freshIndex(ix)
	defer fresh.Close()
	if err := fresh.Open(ctx); err != nil {
		t.Fatal(err)
	}
	f, _ := ix.St.CorpusFacts(ctx, fresh.Fingerprint())
	s, ok := fresh.openSnapshot(f.Generation, f.Vectors)
	if !ok || s.l.count != f.Vectors {
		t.Fatalf("snapshot unreadable: ok=%v", ok)
	}
	s.close()
	first, err := fresh.Search(ctx, "rollback journal", SearchOptions{TopK: 3})
	if err != nil || len(first) == 0 || fresh.snap == nil {
		t.Fatal(first, err, fresh.snap == nil)
	}
	// A corpus change makes it stale; the ingest rewrites it.
	write(t, filepath.Join(dir, "b.md"), "# B\n\nCheckpoints copy frames.\n")
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	if _, ok := fresh.openSnapshot(f.Generation, f.Vectors); ok {
		t.Fatal("stale snapshot accepted")
	}
	requireCurrent(t, ix, "ingest did not refresh the snapshot")
	// The long-lived index notices the new generation on its next query.
	hits, err := fresh.Search(ctx, "checkpoints frames", SearchOptions{TopK: 3})
	if err != nil || len(hits) == 0 || hits[0].Title != "B" {
		t.Fatalf("%+v %v", hits, err)
	}
	// Garbage is a cache miss.
	if err := os.WriteFile(snap, []byte("ASKYVEC2garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	again := freshIndex(ix)
	defer again.Close()
	hits, err = again.Search(ctx, "checkpoints frames", SearchOptions{TopK: 3})
	if err != nil || len(hits) == 0 || hits[0].Title != "B" {
		t.Fatalf("%+v %v", hits, err)
	}
}

// TestSnapshotMappedSearch searches through a mapped snapshot, then
// invalidates (unmaps) and searches again.
func TestSnapshotMappedSearch(t *testing.T) {
	ctx := context.Background()
	ix, _ := snapIndex(t, map[string]string{"a.md": "# A\n\nThe pager rolls back the journal.\n"})
	reader := freshIndex(ix)
	for i := 0; i < 3; i++ {
		hits, err := reader.Search(ctx, "rollback journal", SearchOptions{})
		if err != nil || len(hits) == 0 || hits[0].Dense <= 0 {
			t.Fatalf("round %d: %+v %v", i, hits, err)
		}
		reader.Invalidate()
	}
	reader.Close()
}

// TestSnapshotChecksums flips bytes in each part of the snapshot a result
// comes from — the header, a block's ids (which chunk a row is), a block's
// codes, a float32 row — and checks that every query still returns what
// the intact corpus returns, and that the file was rebuilt. Without the
// checksums, the flipped id returns another document.
func TestSnapshotChecksums(t *testing.T) {
	ctx := context.Background()
	ix, _ := snapIndex(t, topicDocs())
	query := "topic3 word21"
	want, err := freshIndex(ix).Search(ctx, query, SearchOptions{TopK: 3})
	if err != nil || len(want) == 0 || want[0].Title != "Doc 3" {
		t.Fatalf("intact: %+v %v", want, err)
	}
	pristine, err := os.ReadFile(ix.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	pristineRows, err := os.ReadFile(ix.rowsPath())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ix.St.CorpusFacts(ctx, ix.Fingerprint())
	l := layoutFor(512, f.Vectors)
	// The row of the best hit, and another row whose id it gets.
	var top, other = -1, -1
	for r := 0; r < f.Vectors; r++ {
		id := int64(binary.LittleEndian.Uint64(pristine[l.blockOff(0)+snapIDsOff+int64(8*r):]))
		if id == want[0].ChunkID {
			top = r
		} else if other < 0 {
			other = r
		}
	}
	if top < 0 || other < 0 {
		t.Fatal("rows not found")
	}
	idOff := func(r int) int64 { return l.blockOff(0) + snapIDsOff + int64(8*r) }
	cases := []struct {
		name string
		hurt func(blocks, rows []byte)
	}{
		{"header generation", func(b, _ []byte) { b[17] ^= 0x40 }},
		{"id of the best row", func(b, _ []byte) { copy(b[idOff(top):idOff(top)+8], pristine[idOff(other):idOff(other)+8]) }},
		{"code of the best row", func(b, _ []byte) { b[l.blockOff(0)+snapCodesOff+int64(512*top)+3] ^= 0x7f }},
		{"float32 row of the best row", func(_, rows []byte) { rows[512*4*top+1] ^= 0x01 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, rows := append([]byte(nil), pristine...), append([]byte(nil), pristineRows...)
			c.hurt(b, rows)
			if err := os.WriteFile(ix.snapshotPath(), b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ix.rowsPath(), rows, 0o600); err != nil {
				t.Fatal(err)
			}
			q := freshIndex(ix)
			defer q.Close()
			got, err := q.Search(ctx, query, SearchOptions{TopK: 3})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(hitIDs(got)) != fmt.Sprint(hitIDs(want)) {
				t.Fatalf("damaged snapshot changed the results: got %v, want %v", hitIDs(got), hitIDs(want))
			}
			now, _ := os.ReadFile(ix.snapshotPath())
			nowRows, _ := os.ReadFile(ix.rowsPath())
			if string(now) != string(pristine) || string(nowRows) != string(pristineRows) {
				t.Fatal("the damaged snapshot was not rebuilt")
			}
		})
	}
}

// topicDocs are 12 documents, each about its own "topicN wordM".
func topicDocs() map[string]string {
	docs := map[string]string{}
	for i := 0; i < 12; i++ {
		docs[fmt.Sprintf("d%02d.md", i)] = fmt.Sprintf("# Doc %d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("topic%d word%d ", i, i*7), 20))
	}
	return docs
}

func hitIDs(hs []Hit) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.ChunkID
	}
	return out
}

// TestSnapshotAppendsDuringIngest checks that ingesting new documents
// extends the snapshot in place (same file, across a block boundary) to
// exactly what a rebuild from SQLite writes, and that replacing a
// document patches it in place to the rows a rebuild holds.
func TestSnapshotAppendsDuringIngest(t *testing.T) {
	ctx := context.Background()
	s := newSynth(5)
	ix, dir := snapIndex(t, map[string]string{"a.md": "# A\n\n" + s.text(200000)})
	path := ix.snapshotPath()
	first, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ingest := func() {
		t.Helper()
		in := &Ingester{Index: ix}
		targets, _ := in.Collect([]string{dir})
		if _, err := in.Ingest(ctx, targets); err != nil {
			t.Fatal(err)
		}
	}
	rebuilt := func() {
		t.Helper()
		appended, _ := os.ReadFile(path)
		appendedRows, _ := os.ReadFile(ix.rowsPath())
		ix.removeSnapshot()
		if err := ix.RefreshSnapshot(ctx, nil); err != nil {
			t.Fatal(err)
		}
		fresh, _ := os.ReadFile(path)
		freshRows, _ := os.ReadFile(ix.rowsPath())
		if string(fresh) != string(appended) || string(freshRows) != string(appendedRows) {
			t.Fatalf("appended snapshot (%d+%d bytes) differs from a rebuild (%d+%d bytes)", len(appended), len(appendedRows), len(fresh), len(freshRows))
		}
	}
	write(t, filepath.Join(dir, "b.md"), "# B\n\n"+s.text(150000))
	ingest()
	f, _ := ix.St.CorpusFacts(ctx, ix.Fingerprint())
	if f.Vectors <= snapBlockRows || f.Vectors >= 2*snapBlockRows {
		t.Fatalf("%d vectors: the test wants the second ingest to cross one block boundary", f.Vectors)
	}
	second, _ := os.Stat(path)
	if !os.SameFile(first, second) {
		t.Fatal("new documents rebuilt the snapshot instead of appending")
	}
	rebuilt()
	// A replaced document's old rows are patched out in place and its
	// new ones appended (here a.md's hundreds of rows leave two blocks,
	// the rows after them move in).
	before, _ := os.Stat(path)
	write(t, filepath.Join(dir, "a.md"), "# A\n\n"+s.text(1000))
	ingest()
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Fatal("a replaced document rewrote the snapshot instead of patching it")
	}
	requireCurrent(t, ix, "snapshot not current after a replacing ingest")
	sameAsRebuild(t, ix)
}

// An index without a snapshot directory has no snapshot files: removing
// them must not delete same-named files in the working directory.
func TestRemoveSnapshotWithoutDir(t *testing.T) {
	t.Chdir(t.TempDir())
	ix := &Index{fp: "x"}
	if err := os.WriteFile("vectors-x.snap", []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix.removeSnapshot()
	if _, err := os.Stat("vectors-x.snap"); err != nil {
		t.Fatalf("a file in the working directory was removed: %v", err)
	}
}
