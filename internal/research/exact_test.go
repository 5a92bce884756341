package research

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// similarProse writes n paragraphs of interchangeable prose from one small
// vocabulary, each ending with a unique identifier, the way logs, tickets
// and error catalogues read. Returns the identifiers.
func similarProse(t *testing.T, dir string, n int) []string {
	t.Helper()
	words := strings.Fields("the service stores each request in a queue and retries the delivery when the network " +
		"drops so every client sees the same order of events after a restart of the worker pool while the " +
		"scheduler keeps a record of failed jobs for the operator who reviews the distribution report")
	r := rand.New(rand.NewPCG(1, 2))
	var ids []string
	var b strings.Builder
	for i := range n {
		id := fmt.Sprintf("marker%dx%d", 100+i*7, 30+i%5)
		if i%3 == 1 {
			id = fmt.Sprintf("ERR_%04d", 4000+i)
		}
		ids = append(ids, id)
		fmt.Fprintf(&b, "## Note %d\n\n", i)
		// One run-on paragraph slightly over the chunk size (1024
		// bytes), so a naive chunker leaves the identifier in a tiny
		// tail chunk of its own.
		start := b.Len()
		for b.Len()-start < 1010 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "distribution %s.\n\n", id)
	}
	write(t, filepath.Join(dir, "notes.md"), b.String())
	return ids
}

func TestRareExactTokenRanksItsChunkFirst(t *testing.T) {
	ctx := context.Background()
	for _, emb := range []Embedder{HashV1{}, mustStatic(t)} {
		t.Run(emb.Spec().Model, func(t *testing.T) {
			ix := newTestIndex(t)
			ix.Emb = emb
			dir := t.TempDir()
			ids := similarProse(t, dir, 20)
			in := &Ingester{Index: ix, Chunker: Chunker{Size: 256, Overlap: 48}}
			targets, _ := in.Collect([]string{dir})
			if _, err := in.Ingest(ctx, targets); err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				for _, q := range []string{"queue retries " + id, "the worker " + id + " report", `"distribution ` + strings.ToLower(id) + `" pool`} {
					hits, err := ix.Search(ctx, q, SearchOptions{TopK: 5})
					if err != nil {
						t.Fatal(err)
					}
					if len(hits) == 0 || !strings.Contains(hits[0].Text, id) {
						t.Errorf("note %d, %q: first hit %q", i, q, first(hits))
					}
					for _, h := range hits {
						if len(strings.Fields(h.Text)) < 20 {
							t.Errorf("fragment chunk %q", h.Text)
						}
					}
				}
			}
		})
	}
}

func first(hits []Hit) string {
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Text[max(0, len(hits[0].Text)-60):]
}

func mustStatic(t *testing.T) *StaticEmbedder {
	t.Helper()
	s, err := NewBuiltinStatic()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestChunkerMergesTinyTail(t *testing.T) {
	c := Chunker{Size: 64, Overlap: 8} // 256 bytes
	text := strings.Repeat("some words fill the chunk up to its limit ", 6) + "distribution marker350x30."
	spans, err := c.Split(text)
	if err != nil {
		t.Fatal(err)
	}
	checkSpans(t, text, c, spans)
	last := spans[len(spans)-1].Text
	if !strings.HasSuffix(last, "marker350x30.") || len(strings.Fields(last)) < 10 {
		t.Fatalf("tail left as a fragment: %q", last)
	}
}

func TestExactTerms(t *testing.T) {
	got := ExactTerms(`why does "disk full" raise E4711-xq in max_len of SetFinalizer, not the Go docs`)
	want := []string{"disk full", "E4711-xq", "max_len", "SetFinalizer"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
