package research

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
)

func newTestIndex(t testing.TB) *Index {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Index{St: st, Emb: HashV1{}, DenseWeight: 0.75, LexicalWeight: 0.25}
}

func write(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func statuses(rs []FileResult) map[string]string {
	m := map[string]string{}
	for _, r := range rs {
		m[filepath.Base(r.Path)] = r.Status + ":" + r.Reason
	}
	return m
}

func TestIngestIncrementalAndBadInput(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pager.md"), "# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails.\n")
	write(t, filepath.Join(dir, "notes", "wal.txt"), "WAL MODE\n\nWrite-ahead logging appends changes to a separate file.\n")
	write(t, filepath.Join(dir, "LICENSE"), "Permission is hereby granted, free of charge.\n")
	write(t, filepath.Join(dir, "paper.pdf"), string(makePDF(t, [][]string{{"Checkpoints copy WAL frames back into the database."}})))
	write(t, filepath.Join(dir, "book.epub"), string(makeEPUB(t, nil)))
	write(t, filepath.Join(dir, "data.json"), `{"cache": "the page cache keeps hot pages"}`)
	write(t, filepath.Join(dir, "t.csv"), "name,role\npager,rollback\n")
	write(t, filepath.Join(dir, "bad.txt"), "abc\x00def")
	write(t, filepath.Join(dir, "latin.txt"), "caf\xe9")
	write(t, filepath.Join(dir, "broken.pdf"), "%PDF-1.4 garbage")
	write(t, filepath.Join(dir, ".hidden", "secret.md"), "# hidden")
	write(t, filepath.Join(dir, "vendor", "dep.md"), "# vendored")
	write(t, filepath.Join(dir, "image.png"), "\x89PNG")
	write(t, filepath.Join(dir, "prog"), "\x7fELF\x00\x00binary")
	if err := os.Symlink(dir, filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 64, Overlap: 8}}
	targets, failed := in.Collect([]string{dir, filepath.Join(dir, "missing.md")})
	res, err := in.Ingest(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(append(res, failed...))
	for _, ok := range []string{"pager.md", "wal.txt", "LICENSE", "paper.pdf", "book.epub", "data.json", "t.csv", "latin.txt"} {
		if !strings.HasPrefix(got[ok], StatusIngested) {
			t.Errorf("%s: %s", ok, got[ok])
		}
	}
	for name, reason := range map[string]string{"bad.txt": "binary", "broken.pdf": "corrupt PDF", "missing.md": "no such file"} {
		if !strings.HasPrefix(got[name], StatusFailed) || !strings.Contains(got[name], reason) {
			t.Errorf("%s: %s, want failed: %s", name, got[name], reason)
		}
	}
	for _, skipped := range []string{"secret.md", "dep.md", "image.png", "prog"} {
		if _, ok := got[skipped]; ok {
			t.Errorf("%s should not be collected", skipped)
		}
	}

	// Re-running skips everything unchanged; a changed file is re-chunked.
	write(t, filepath.Join(dir, "pager.md"), "# Pager\n\n## Rollback\n\nRollback now uses a savepoint journal.\n")
	targets, _ = in.Collect([]string{dir})
	res, err = in.Ingest(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	got = statuses(res)
	if !strings.HasPrefix(got["pager.md"], StatusIngested) || !strings.HasPrefix(got["wal.txt"], StatusUnchanged) {
		t.Fatalf("incremental: %v", got)
	}
	hits, err := ix.Search(ctx, "savepoint journal", SearchOptions{TopK: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "savepoint") {
		t.Fatalf("hits %+v err %v", hits, err)
	}
	old, _ := ix.Search(ctx, "transaction fails", SearchOptions{TopK: 5})
	for _, h := range old {
		if strings.Contains(h.Text, "transaction fails") {
			t.Fatal("stale chunk of the old version still indexed")
		}
	}
	if err := ix.St.CorpusFTSCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// A directory given through a symlink is walked (links met inside still
// are not), and a note that is only a heading is ingested, not refused.
func TestIngestLinkedRootAndHeadingOnlyNote(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "real", "stub.md"), "# Release checklist\n")
	write(t, filepath.Join(dir, "real", "notes.txt"), "The pager rolls back the journal.\n")
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	in := &Ingester{Index: ix}
	targets, failed := in.Collect([]string{filepath.Join(dir, "link")})
	if len(targets) != 2 || len(failed) != 0 {
		t.Fatalf("targets %+v failed %+v", targets, failed)
	}
	for _, tg := range targets {
		if !strings.HasPrefix(tg.Path, filepath.Join(dir, "link")+string(filepath.Separator)) {
			t.Errorf("%s: want the path through the link the user gave", tg.Path)
		}
	}
	res, err := in.Ingest(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); !strings.HasPrefix(got["stub.md"], StatusIngested) {
		t.Fatalf("heading-only note: %v", got)
	}
	hits, err := ix.Search(ctx, "release checklist", SearchOptions{TopK: 1})
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Text, "Release checklist") {
		t.Fatalf("hits %+v err %v", hits, err)
	}
}

const storageDoc = "# Storage\n\n## Rollback journal\n\nThe pager rolls back the journal when a transaction fails.\n\n## Checkpoints\n\nCheckpoints copy WAL frames into the database file.\n"

// ingestFiles writes files (name → content) to a directory and ingests it
// into a new test index.
func ingestFiles(t *testing.T, files map[string]string) (*Index, string) {
	t.Helper()
	ix := newTestIndex(t)
	dir := t.TempDir()
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(context.Background(), targets); err != nil {
		t.Fatal(err)
	}
	return ix, dir
}

func TestSearchHybrid(t *testing.T) {
	ctx := context.Background()
	ix, dir := ingestFiles(t, map[string]string{
		"a.md":   storageDoc,
		"b.md":   "# Cooking\n\nBake the bread for forty minutes at high heat.\n",
		"dup.md": "# Copy\n\nThe pager rolls back the journal when a transaction fails.\n",
	})
	for _, q := range []string{`how does the pager "roll back`, "AND OR NEAR(", "foo:bar -baz *", "rollbak jurnal"} {
		hits, err := ix.Search(ctx, q, SearchOptions{TopK: 3})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if strings.Contains(q, "roll") && (len(hits) == 0 || !strings.Contains(hits[0].Text, "rolls back")) {
			t.Fatalf("%q: %+v", q, hits)
		}
		if q == "rollbak jurnal" && (len(hits) == 0 || !strings.Contains(hits[0].Text, "rolls back")) {
			t.Fatalf("typo query should match by char n-grams: %+v", hits)
		}
	}
	hits, _ := ix.Search(ctx, "pager rolls back the journal", SearchOptions{TopK: 5})
	n := 0
	for _, h := range hits {
		if strings.Contains(h.Text, "rolls back the journal") {
			n++
		}
		if h.Score <= 0 || h.Score > 1 {
			t.Fatalf("score %v out of (0,1]", h.Score)
		}
	}
	if n != 1 {
		t.Fatalf("near-duplicates not suppressed: %d copies", n)
	}
	if hits[0].Section != "Storage > Rollback journal" || hits[0].Title != "Storage" {
		t.Fatalf("breadcrumb %q title %q", hits[0].Section, hits[0].Title)
	}
	// Source filter and chromem path.
	src, _ := ix.St.CorpusSourceByPath(ctx, filepath.Join(dir, "b.md"))
	scoped, err := ix.Search(ctx, "pager journal bread", SearchOptions{TopK: 5, Sources: []int64{src.ID}})
	if err != nil || len(scoped) == 0 {
		t.Fatalf("scoped: %v %v", scoped, err)
	}
	for _, h := range scoped {
		if h.SourceID != src.ID {
			t.Fatalf("hit outside the source filter: %+v", h)
		}
	}
	// Min relevance drops weak hits.
	strict, _ := ix.Search(ctx, "bread", SearchOptions{TopK: 5, MinRelevance: 0.99})
	if len(strict) > 1 {
		t.Fatalf("min relevance kept %d", len(strict))
	}
	// Above every chunk's relevance nothing is kept, but the nearest chunk
	// is still reported: the one a floorless top-1 search returns.
	none, nearest, err := ix.SearchNearest(ctx, "pager journal bread", SearchOptions{TopK: 5, MinRelevance: 1.01})
	if err != nil || len(none) != 0 {
		t.Fatalf("floor above 1 kept %v (%v)", none, err)
	}
	top, err := ix.Search(ctx, "pager journal bread", SearchOptions{TopK: 1})
	if err != nil || len(top) != 1 || nearest == nil || *nearest != top[0] {
		t.Fatalf("nearest %+v, floorless top-1 %+v (%v)", nearest, top, err)
	}
}

func TestFlatAndChromemAgree(t *testing.T) {
	texts := []string{"pager journal rollback", "write ahead log", "bread baking", "transaction savepoint", "checkpoint frames"}
	var ids []int64
	var flat []float32
	for i, s := range texts {
		ids = append(ids, int64(i+1))
		flat = append(flat, HashV1Vector(s)...)
	}
	ids = append(ids, 99)
	flat = append(flat, make([]float32, 512)...) // zero vector: skipped by chromem
	q := HashV1Vector("rollback of the journal")
	a := FlatTopK(ids, flat, 512, q, 3)
	b, err := ChromemTopK(context.Background(), ids, flat, 512, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 3 || len(b) != 3 || a[0].ID != 1 || b[0].ID != 1 {
		t.Fatalf("flat %v chromem %v", a, b)
	}
	for i := range a {
		if a[i].ID != b[i].ID || abs(a[i].Score-b[i].Score) > 1e-4 {
			t.Fatalf("flat %v chromem %v", a, b)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestEmbedderSpaceChange(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "# A\n\nThe pager rolls back the journal.\n")
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	if _, err := in.Ingest(ctx, targets); err != nil {
		t.Fatal(err)
	}
	// Another embedder (different spec): no vectors yet, nothing mixed.
	other := &Index{St: ix.St, Emb: prefixed{HashV1{}}, DenseWeight: 0.5, LexicalWeight: 0.5}
	if err := other.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if other.Missing != 1 || other.Fingerprint() == ix.Fingerprint() {
		t.Fatalf("missing %d, fp %s vs %s", other.Missing, other.Fingerprint(), ix.Fingerprint())
	}
	n, err := Reindex(ctx, other, nil, nil)
	if err != nil || n != 1 {
		t.Fatalf("reindex %d %v", n, err)
	}
	spaces, _ := ix.St.EmbeddingSpaces(ctx)
	if len(spaces) != 1 || spaces[0].Fingerprint != other.Fingerprint() {
		t.Fatalf("old space kept: %+v", spaces)
	}
	// A model changed behind the same identity: the canary catches it.
	sp, _ := ix.St.EmbeddingSpace(ctx, other.Fingerprint())
	sp.Probe = HashV1Vector("something else entirely")
	if err := ix.St.PutEmbeddingSpace(ctx, *sp); err != nil {
		t.Fatal(err)
	}
	again := &Index{St: ix.St, Emb: prefixed{HashV1{}}}
	if err := again.Open(ctx); err == nil {
		t.Fatal("canary mismatch not detected")
	} else if _, ok := err.(*StaleSpaceError); !ok {
		t.Fatalf("err %T %v", err, err)
	}
	if n, err := Reindex(ctx, again, nil, nil); err != nil || n != 1 {
		t.Fatalf("rebuild after stale: %d %v", n, err)
	}
}

// prefixed is hash-v1 with a query prefix: same dimension, another space.
type prefixed struct{ HashV1 }

func (p prefixed) Spec() Spec { s := p.HashV1.Spec(); s.QueryPrefix = "q: "; return s }

// TestCrashMidIngest kills a child process in the middle of a large ingest
// and checks the database is consistent and a re-run completes it.
func TestCrashMidIngest(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "asky.db")
	para := strings.Repeat("The pager writes journal pages before it changes the database file. ", 40)
	for i := 0; i < 60; i++ {
		write(t, filepath.Join(dir, "doc"+itoa(i)+".md"), "# Doc "+itoa(i)+"\n\n"+strings.Repeat(para+"\n\n", 8))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ASKY_CRASH_CHILD=1", "ASKY_CRASH_DB="+db, "ASKY_CRASH_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until some documents are committed, then SIGKILL.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 600<<10 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.IntegrityCheck(ctx); err != nil || r != "ok" {
		t.Fatalf("integrity_check: %q %v", r, err)
	}
	if err := st.CorpusFTSCheck(ctx); err != nil {
		t.Fatalf("fts integrity-check: %v", err)
	}
	before, _ := st.ListCorpusSources(ctx)
	for _, s := range before {
		if s.ChunkCount == 0 {
			t.Fatalf("source %s committed without chunks", s.Path)
		}
	}
	ix := &Index{St: st, Emb: HashV1{}}
	in := &Ingester{Index: ix}
	targets, _ := in.Collect([]string{dir})
	res, err := in.Ingest(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	unchanged := 0
	for _, r := range res {
		if r.Status == StatusUnchanged {
			unchanged++
		} else if r.Status != StatusIngested {
			t.Fatalf("%+v", r)
		}
	}
	if unchanged != len(before) {
		t.Fatalf("re-run re-did committed documents: %d unchanged, %d were committed", unchanged, len(before))
	}
	after, _ := st.ListCorpusSources(ctx)
	if len(after) != 60 {
		t.Fatalf("%d sources after resume", len(after))
	}
	t.Logf("killed after %d of 60 documents", len(before))
}

// TestMain doubles as the child process of TestCrashMidIngest: with
// ASKY_CRASH_CHILD set it only ingests, until the parent kills it.
func TestMain(m *testing.M) {
	if os.Getenv("ASKY_CRASH_CHILD") != "" {
		st, err := store.Open(context.Background(), os.Getenv("ASKY_CRASH_DB"))
		if err != nil {
			os.Exit(3)
		}
		in := &Ingester{Index: &Index{St: st, Emb: HashV1{}}}
		targets, _ := in.Collect([]string{os.Getenv("ASKY_CRASH_DIR")})
		_, _ = in.Ingest(context.Background(), targets)
		os.Exit(0)
	}
	code := m.Run()
	// Benchmark corpora live outside t.TempDir (they are shared between
	// sub-benchmarks); ASKY_BENCH_KEEP=1 keeps them for CLI timing.
	if os.Getenv("ASKY_BENCH_KEEP") == "" {
		for _, d := range benchDirs {
			os.RemoveAll(d)
		}
	} else {
		for _, d := range benchDirs {
			fmt.Fprintln(os.Stderr, "kept benchmark corpus:", d)
		}
	}
	os.Exit(code)
}

// Results come best relevance first, so a listing never shows a lower
// relevance above a higher one (the fused rank only picks the top K).
func TestSearchOrdersByRelevance(t *testing.T) {
	ctx := context.Background()
	ix, _ := ingestFiles(t, map[string]string{
		"a.md": storageDoc,
		"b.md": "# Cooking\n\nBake the bread for forty minutes at high heat. The journal of the baker.\n",
		"c.md": "# Networking\n\nTCP keeps a connection open and retransmits lost segments; UDP sends datagrams.\n",
	})
	for _, q := range []string{"pager journal bread", "journal frames heat", "database file of the baker", "lost pager segments", "checkpoint the bread"} {
		hits, err := ix.Search(ctx, q, SearchOptions{TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Relevance > hits[i-1].Relevance {
				t.Errorf("%q: result %d has relevance %.3f above result %d at %.3f", q, i+1, hits[i].Relevance, i, hits[i-1].Relevance)
			}
		}
	}
}
