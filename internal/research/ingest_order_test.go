package research

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestParallelOrderAndVectors ingests documents of very different
// sizes (so parallel preparation finishes them out of order) and checks
// that results come back in target order and that every stored chunk has
// exactly the vector of its own text: chunks are written in one statement
// and their vectors matched back by index.
func TestIngestParallelOrderAndVectors(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	dir := t.TempDir()
	for i := 0; i < 12; i++ {
		n := 1
		if i%4 == 0 {
			n = 60 // a big document ahead of small ones
		}
		var b strings.Builder
		b.WriteString("# Doc " + itoa(i) + "\n\n## Part\n\n")
		for j := 0; j < n; j++ {
			b.WriteString("Sentence " + itoa(j) + " of document " + itoa(i) + " talks about pager journal frames. ")
			if j%7 == 6 {
				b.WriteString("\n\n## Section " + itoa(j) + "\n\n")
			}
		}
		write(t, filepath.Join(dir, "d"+itoa(100+i)+".md"), b.String())
	}
	in := &Ingester{Index: ix}
	targets, failed := in.Collect([]string{dir})
	if len(failed) > 0 || len(targets) != 12 {
		t.Fatalf("collect: %d targets, failed %+v", len(targets), failed)
	}
	res, err := in.Ingest(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(targets) {
		t.Fatalf("%d results for %d targets", len(res), len(targets))
	}
	multi := 0
	for i, r := range res {
		if r.Path != targets[i].Path || r.Status != StatusIngested {
			t.Fatalf("result %d = %+v, want %s ingested", i, r, targets[i].Path)
		}
		chunks, err := ix.St.SourceChunks(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != r.Chunks {
			t.Fatalf("%s: %d chunks stored, %d reported", r.Path, len(chunks), r.Chunks)
		}
		if len(chunks) > 1 {
			multi++
		}
		ids, flat, err := ix.St.CorpusVectors(ctx, ix.Fingerprint(), ix.Spec().Dim, []int64{r.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(chunks) {
			t.Fatalf("%s: %d vectors for %d chunks", r.Path, len(ids), len(chunks))
		}
		dim := ix.Spec().Dim
		got := map[int64][]float32{}
		for k, id := range ids {
			got[id] = flat[k*dim : (k+1)*dim]
		}
		for k, c := range chunks {
			if c.Index != k {
				t.Fatalf("%s: chunk %d has index %d", r.Path, k, c.Index)
			}
			want, err := ix.Emb.EmbedDocuments(ctx, []string{EmbedText(c)})
			if err != nil {
				t.Fatal(err)
			}
			if v := got[c.ID]; v == nil || Cosine(v, want[0]) < 0.9999 {
				t.Fatalf("%s chunk %d: stored vector is not the vector of its text", r.Path, k)
			}
		}
	}
	if multi < 3 {
		t.Fatalf("only %d multi-chunk documents; the test needs several", multi)
	}
	if err := ix.St.CorpusFTSCheck(ctx); err != nil {
		t.Fatal(err)
	}
}
