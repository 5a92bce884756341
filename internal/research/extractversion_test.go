package research

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// storeOldExtraction overwrites path's document with text an older
// extractor (version) made of the same file: same content hash, other
// chunks. The snapshots and the deep pass are brought current after it.
func storeOldExtraction(t *testing.T, ix *Index, path, text string, version int) {
	t.Helper()
	ctx := context.Background()
	old, err := ix.St.CorpusSourceByPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	src := &store.CorpusSource{Path: path, Title: old.Title, Format: old.Format, SHA256: old.SHA256, Size: old.Size, Content: text, ExtractorVersion: version}
	chunks := []store.CorpusChunk{{Index: 0, Title: old.Title, Text: text}}
	vecs, err := ix.Emb.EmbedDocuments(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.St.ReplaceCorpusSource(ctx, src, chunks, ix.Fingerprint(), vecs); err != nil {
		t.Fatal(err)
	}
	ix.Invalidate()
	if err := ix.RefreshSnapshot(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if ix.Deep != nil {
		if _, err := ix.FillDeep(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func ingestWith(t *testing.T, in *Ingester, paths ...string) map[string]FileResult {
	t.Helper()
	targets, failed := in.Collect(paths)
	if len(failed) > 0 {
		t.Fatalf("collect: %+v", failed)
	}
	res, err := in.Ingest(context.Background(), targets)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]FileResult{}
	for _, r := range res {
		out[filepath.Base(r.Path)] = r
	}
	return out
}

// TestIngestReextractsOnNewerExtractor checks that a bump of one
// format's extractor version makes re-ingest read the unchanged files of
// that format again, replacing the old text everywhere (chunks, keyword
// index, vectors, both snapshots, the deep vectors of the old chunks),
// and leaves the files of other formats alone.
func TestIngestReextractsOnNewerExtractor(t *testing.T) {
	ctx := context.Background()
	ix, dir := snapDeepCorpus(t, zebraDeep("concepts"), map[string]string{
		"zebra.md": "# Savanna\n\nThe zebra grazes on the plains at dawn with its herd.\n",
		"lion.txt": "The lion waits in the tall grass for the herd.\n",
	})
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "zebra.md")
	storeOldExtraction(t, ix, md, "Savanna quokka garbled columns", 1)
	version := map[string]int{"md": 1, "txt": 1}
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 40, Overlap: 0}, ExtractorVersions: func(f string) int { return version[f] }}
	var prog Progress
	in.OnProgress = func(p Progress) { prog = p }

	got := ingestWith(t, in, dir)
	if got["zebra.md"].Status != StatusUnchanged || got["lion.txt"].Status != StatusUnchanged {
		t.Fatalf("same versions: %+v", got)
	}

	version["md"] = 2
	got = ingestWith(t, in, dir)
	if r := got["zebra.md"]; r.Status != StatusIngested || !r.Reextracted || r.Chunks == 0 {
		t.Fatalf("zebra.md after the md extractor changed: %+v", r)
	}
	if r := got["lion.txt"]; r.Status != StatusUnchanged || r.Reextracted {
		t.Fatalf("lion.txt re-read though the txt extractor did not change: %+v", r)
	}
	if prog.Reextracted != 1 || prog.Files != 2 {
		t.Fatalf("progress %+v, want 1 re-extracted of 2", prog)
	}
	src, err := ix.St.CorpusSource(ctx, got["zebra.md"].ID)
	if err != nil || src.ExtractorVersion != 2 || !strings.Contains(src.Content, "zebra grazes") {
		t.Fatalf("stored %+v, %v", src, err)
	}
	if hits, err := ix.Search(ctx, "quokka garbled", SearchOptions{TopK: 5}); err != nil || len(hits) != 0 && strings.Contains(hits[0].Text, "quokka") {
		t.Fatalf("the old text is still found: %+v, %v", hits, err)
	}
	if hits, err := ix.Search(ctx, "zebra grazes", SearchOptions{TopK: 1}); err != nil || len(hits) == 0 || filepath.Base(hits[0].Path) != "zebra.md" {
		t.Fatalf("the new text is not found: %+v, %v", hits, err)
	}
	if err := ix.St.CorpusFTSCheck(ctx); err != nil {
		t.Fatal(err)
	}
	requireCurrent(t, ix, "main snapshot not current after the re-read")
	sameAsRebuild(t, ix)
	requireCurrent(t, ix.Deep.ix, "deep snapshot not current after the re-read")
	sameAsRebuild(t, ix.Deep.ix)
	cov, err := ix.DeepCoverage(ctx)
	if err != nil || cov.Vectors >= cov.Chunks {
		t.Fatalf("deep coverage %+v, %v: the new chunks cannot have deep vectors yet", cov, err)
	}

	// Current now: skipped again.
	got = ingestWith(t, in, dir)
	if got["zebra.md"].Status != StatusUnchanged || got["zebra.md"].Reextracted {
		t.Fatalf("after the re-read: %+v", got["zebra.md"])
	}
}

// TestIngestVersionZeroAndNewer checks the built-in versions: a document
// stored before versions were kept (0) is re-read once, and one stored
// by a newer build (a higher version) is kept as it is.
func TestIngestVersionZeroAndNewer(t *testing.T) {
	ctx := context.Background()
	ix, dir := ingestFiles(t, map[string]string{
		"a.md":  "# Alpha\n\nThe pager rolls back the journal.\n",
		"b.txt": "Write-ahead logging appends changes.\n",
	})
	storeOldExtraction(t, ix, filepath.Join(dir, "a.md"), "old alpha text", 0)
	storeOldExtraction(t, ix, filepath.Join(dir, "b.txt"), "newer beta text", ExtractorVersion("txt")+1)
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 64, Overlap: 8}}
	got := ingestWith(t, in, dir)
	if r := got["a.md"]; r.Status != StatusIngested || !r.Reextracted {
		t.Fatalf("a document from before versions: %+v", r)
	}
	if r := got["b.txt"]; r.Status != StatusUnchanged {
		t.Fatalf("a document of a newer extractor: %+v", r)
	}
	a, _ := ix.St.CorpusSourceByPath(ctx, filepath.Join(dir, "a.md"))
	if a.ExtractorVersion != ExtractorVersion("md") {
		t.Fatalf("stored version %d", a.ExtractorVersion)
	}
	if got = ingestWith(t, in, dir); got["a.md"].Status != StatusUnchanged {
		t.Fatalf("read twice: %+v", got["a.md"])
	}
}
