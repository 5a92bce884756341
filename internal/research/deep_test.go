package research

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// conceptEmbedder is a deterministic fake deep embedder that knows
// meaning the lexical and hash sides cannot: every text mentioning one
// of a concept's phrases points along that concept's axis.
type conceptEmbedder struct {
	provider string // "fake" when empty
	name     string
	concepts [][]string
	// canary, when set, replaces the canary's vector (a model changed
	// behind the same name).
	canary []float32

	mu       sync.Mutex
	embedded int
	// afterBatch is called after each EmbedDocuments call with its count.
	afterBatch func(call int)
	calls      int
	queries    int
	canaries   int
}

func (c *conceptEmbedder) Spec() Spec {
	prov := c.provider
	if prov == "" {
		prov = "fake"
	}
	return Spec{Provider: prov, Model: c.name, Dim: len(c.concepts) + 1, Normalized: true}
}

func (c *conceptEmbedder) vec(text string) []float32 {
	v := make([]float32, len(c.concepts)+1)
	v[len(c.concepts)] = 0.05
	low := strings.ToLower(text)
	for i, phrases := range c.concepts {
		for _, p := range phrases {
			if strings.Contains(low, p) {
				v[i] = 1
			}
		}
	}
	normalize(v)
	return v
}

func (c *conceptEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = c.vec(t)
	}
	c.mu.Lock()
	c.embedded += len(texts)
	c.calls++
	call, hook := c.calls, c.afterBatch
	c.mu.Unlock()
	if hook != nil {
		hook(call)
	}
	return out, nil
}

func (c *conceptEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	c.mu.Lock()
	c.queries++
	if text == CanaryText {
		c.canaries++
	}
	c.mu.Unlock()
	if text == CanaryText && c.canary != nil {
		return c.canary, nil
	}
	return c.vec(text), nil
}

func zebraDeep(name string) *conceptEmbedder {
	return &conceptEmbedder{name: name, concepts: [][]string{{"zebra", "striped horse"}, {"lion"}}}
}

// deepCorpus ingests docs (name → text) into a fresh index with hash-v1
// as the main embedder and deep as the deep tier.
func deepCorpus(t *testing.T, deep Embedder, docs map[string]string) (*Index, string) {
	t.Helper()
	ix := newTestIndex(t)
	ix.Deep = NewDeepTier(ix.St, deep, "")
	dir := t.TempDir()
	ingestDocs(t, ix, dir, docs)
	return ix, dir
}

func ingestDocs(t *testing.T, ix *Index, dir string, docs map[string]string) {
	t.Helper()
	var paths []string
	for name, body := range docs {
		write(t, filepath.Join(dir, name), body)
		paths = append(paths, filepath.Join(dir, name))
	}
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 40, Overlap: 0}}
	targets, _ := in.Collect(paths)
	if _, err := in.Ingest(context.Background(), targets); err != nil {
		t.Fatal(err)
	}
}

var zebraDocs = map[string]string{
	"zebra.md":  "# Savanna\n\nThe zebra grazes on the plains at dawn with its herd.\n",
	"horse.md":  "# Stable\n\nA horse in a stable eats hay. Striped blankets keep the horse warm.\n",
	"shirt.md":  "# Fashion\n\nStriped shirts and a horse print are in fashion this year.\n",
	"lion.md":   "# Hunt\n\nThe lion waits in the tall grass for the herd.\n",
	"random.md": "# Notes\n\nNothing about animals here, only tax forms and receipts.\n",
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, filepath.Base(h.Path))
	}
	return out
}

func TestDeepTierRanksWhatOnlyItUnderstands(t *testing.T) {
	ctx := context.Background()
	ix, _ := deepCorpus(t, zebraDeep("concepts"), zebraDocs)
	before, err := ix.Search(ctx, "striped horse", SearchOptions{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(before) > 0 && filepath.Base(before[0].Path) == "zebra.md" {
		t.Fatalf("the fixture is too easy: %v", paths(before))
	}
	n, err := ix.FillDeep(ctx, nil)
	if err != nil || n == 0 {
		t.Fatalf("FillDeep = %d, %v", n, err)
	}
	after, err := ix.Search(ctx, "striped horse", SearchOptions{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) == 0 || filepath.Base(after[0].Path) != "zebra.md" {
		t.Fatalf("with the deep tier: %v, want zebra.md first", paths(after))
	}
}

func TestDeepTierPartlyFilledRanksLikeWithout(t *testing.T) {
	ctx := context.Background()
	deep := zebraDeep("concepts")
	ix, dir := deepCorpus(t, deep, zebraDocs)
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A new document has no deep vector until the next pass: a query
	// whose candidates include it is ranked without the deep tier, so
	// it is not pushed down for lacking one.
	ingestDocs(t, ix, dir, map[string]string{"new.md": "# Ranch\n\nThe striped horse of the ranch is a zebra crossing.\n"})
	plain := &Index{St: ix.St, Emb: ix.Emb, DenseWeight: ix.DenseWeight, LexicalWeight: ix.LexicalWeight}
	for _, q := range []string{"striped horse", "zebra", "herd at dawn"} {
		got, err := ix.Search(ctx, q, SearchOptions{TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Search(ctx, q, SearchOptions{TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(paths(got), paths(want)) {
			t.Errorf("%q partly filled: %v, without the deep tier: %v", q, paths(got), paths(want))
		}
	}
	if cov, err := ix.DeepCoverage(ctx); err != nil || cov.Vectors >= cov.Chunks {
		t.Fatalf("coverage %+v, %v: the new document should lack deep vectors", cov, err)
	}
}

// manyDocs returns docs with well over two deep batches of chunks.
func manyDocs() map[string]string {
	docs := map[string]string{}
	for d := 0; d < 4; d++ {
		var b strings.Builder
		for p := 0; p < 50; p++ {
			fmt.Fprintf(&b, "Paragraph %d of document %d talks about zebra number %d and other animals of the plains.\n\n", p, d, p)
		}
		docs[fmt.Sprintf("doc%d.md", d)] = b.String()
	}
	return docs
}

func TestDeepPassResumesAfterKill(t *testing.T) {
	deep := zebraDeep("concepts")
	ix, _ := deepCorpus(t, deep, manyDocs())
	chunks, _, err := ix.St.CorpusCounts(context.Background(), "")
	if err != nil || chunks <= 2*deepFillBatch {
		t.Fatalf("%d chunks, %v: need more than two batches", chunks, err)
	}
	// Killed during the second batch: the first is committed, the second
	// (already embedded) is written too, nothing after it.
	ctx, cancel := context.WithCancel(context.Background())
	deep.afterBatch = func(call int) {
		if call == 2 {
			cancel()
		}
	}
	n, err := ix.FillDeep(ctx, nil)
	if err != context.Canceled || n != 2*deepFillBatch {
		t.Fatalf("interrupted pass = %d, %v; want %d, context.Canceled", n, err, 2*deepFillBatch)
	}
	deep.afterBatch = nil
	var last [2]int
	n2, err := ix.FillDeep(context.Background(), func(done, total int) { last = [2]int{done, total} })
	if err != nil {
		t.Fatal(err)
	}
	if n+n2 != chunks || deep.embedded != chunks || last != [2]int{chunks, chunks} {
		t.Fatalf("resumed %d+%d chunks, embedded %d, progress %v; corpus has %d", n, n2, deep.embedded, last, chunks)
	}
	ids, _, err := ix.St.CorpusVectors(context.Background(), ix.Deep.Fingerprint(), ix.Deep.Spec().Dim, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("chunk %d has two deep vectors", id)
		}
		seen[id] = true
	}
	if len(seen) != chunks {
		t.Fatalf("%d deep vectors for %d chunks", len(seen), chunks)
	}
	if n, err := ix.FillDeep(context.Background(), nil); n != 0 || err != nil {
		t.Fatalf("a complete tier re-embedded %d, %v", n, err)
	}
}

func TestDeepModelSwitchReembeds(t *testing.T) {
	ctx := context.Background()
	a := zebraDeep("model-a")
	ix, _ := deepCorpus(t, a, zebraDocs)
	if _, err := ix.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fpA := ix.Deep.Fingerprint()
	mainFP := ix.Fingerprint()
	b := zebraDeep("model-b")
	ix.Deep = NewDeepTier(ix.St, b, "")
	n, err := ix.FillDeep(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ix.St.CorpusFacts(ctx, ix.Deep.Fingerprint())
	if ix.Deep.Fingerprint() == fpA || n != f.Chunks || f.Vectors != f.Chunks {
		t.Fatalf("switch re-embedded %d, facts %+v", n, f)
	}
	if old, _ := ix.St.CorpusFacts(ctx, fpA); old.Vectors != 0 {
		t.Fatalf("model-a still has %d vectors", old.Vectors)
	}
	if m, _ := ix.St.CorpusFacts(ctx, mainFP); m.Vectors != m.Chunks {
		t.Fatalf("the main space lost vectors: %+v", m)
	}

	// The same name with a different model behind it (the canary moved):
	// its vectors are dropped and embedded again, never mixed.
	changed := zebraDeep("model-b")
	changed.canary = []float32{0, 1, 0}
	ix.Deep = NewDeepTier(ix.St, changed, "")
	n, err = ix.FillDeep(ctx, nil)
	if err != nil || n != f.Chunks || changed.embedded != f.Chunks {
		t.Fatalf("stale deep space re-embedded %d (%d texts), %v; want %d", n, changed.embedded, err, f.Chunks)
	}
}

func TestDeepTierOffAndEmpty(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	if _, err := ix.FillDeep(ctx, nil); err == nil {
		t.Fatal("FillDeep without a deep tier succeeded")
	}
	// A deep tier with no vectors yet costs a query no embedding at all.
	deep := zebraDeep("concepts")
	ix2, _ := deepCorpus(t, deep, zebraDocs)
	if _, err := ix2.Search(ctx, "zebra", SearchOptions{TopK: 3}); err != nil {
		t.Fatal(err)
	}
	if deep.embedded != 0 || deep.queries != 0 {
		t.Fatalf("an empty deep tier embedded %d texts and %d queries", deep.embedded, deep.queries)
	}
	if _, err := ix2.FillDeep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ix2.Search(ctx, "zebra", SearchOptions{TopK: 3}); err != nil || deep.queries == 0 {
		t.Fatalf("a filled deep tier embedded %d queries, %v", deep.queries, err)
	}
}

func TestDeepModelLoadsOnlyWhenNeeded(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	built := 0
	d := NewDeepTier(ix.St, &lazyEmbedder{build: func() (Embedder, error) {
		built++
		return nil, errors.New("unknown builtin embedder \"no-such\"")
	}}, "")
	ix.Deep = d
	ingestDocs(t, ix, t.TempDir(), zebraDocs)
	if _, err := ix.Search(ctx, "zebra", SearchOptions{TopK: 3}); err != nil {
		t.Fatal(err)
	}
	if built != 0 {
		t.Fatalf("an empty deep tier loaded its model %d times", built)
	}
	if _, err := ix.FillDeep(ctx, nil); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Fatalf("FillDeep with a model that cannot load: %v", err)
	}
}

// A compiled-in deep model's fingerprint pins its weights: a query skips
// the canary's transformer run. A provider's is always checked.
func TestDeepQuerySkipsCanaryOfBuiltin(t *testing.T) {
	ctx := context.Background()
	for _, prov := range []string{"builtin", "fake"} {
		deep := zebraDeep("concepts")
		deep.provider = prov
		ix, _ := deepCorpus(t, deep, zebraDocs)
		if _, err := ix.FillDeep(ctx, nil); err != nil {
			t.Fatal(err)
		}
		fresh := zebraDeep("concepts") // a new process
		fresh.provider = prov
		ix.Deep = NewDeepTier(ix.St, fresh, "")
		hits, err := ix.Search(ctx, "striped horse", SearchOptions{TopK: 3})
		if err != nil || len(hits) == 0 || filepath.Base(hits[0].Path) != "zebra.md" {
			t.Fatalf("%s: %v, %v", prov, paths(hits), err)
		}
		if want := map[string]int{"builtin": 0, "fake": 1}[prov]; fresh.canaries != want {
			t.Errorf("%s: the query embedded the canary %d times, want %d", prov, fresh.canaries, want)
		}
	}
}

// A deep model that cannot load points at [research.deep], not at the
// main embedder's section.
func TestDeepLoadErrorHintNamesItsSection(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	ix.Deep = NewDeepTier(ix.St, &lazyEmbedder{build: func() (Embedder, error) {
		return nil, errors.New("unknown builtin embedder \"nope\"")
	}}, "")
	ingestDocs(t, ix, t.TempDir(), zebraDocs)
	_, err := ix.FillDeep(ctx, nil)
	var ee *EmbedderError
	if !errors.As(err, &ee) || !strings.Contains(ee.Hint(), "[research.deep]") {
		t.Fatalf("FillDeep error %v: want an EmbedderError whose hint names [research.deep]", err)
	}
}
