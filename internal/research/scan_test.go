package research

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// TestDotKernels checks the SIMD kernels against the portable loops at
// lengths around their unroll widths.
func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 384, 512, 768, 1000, 1536} {
		a, b := make([]float32, n), make([]float32, n)
		c, q := make([]int8, n), make([]int16, n)
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
			c[i], q[i] = int8(r.Intn(255)-127), int16(r.Intn(65535)-32767)
		}
		if got, want := dot(a, b), dotGo(a, b); math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
			t.Errorf("dot n=%d: %v, want %v", n, got, want)
		}
		if got, want := dotI8(c, q), dotI8Go(c, q); got != want {
			t.Errorf("dotI8 n=%d: %v, want %v", n, got, want)
		}
	}
}

// TestFlatTopKParallel checks that the block-parallel scan returns what
// one worker does, ties ordered by id.
func TestFlatTopKParallel(t *testing.T) {
	const dim, rows = 16, 300000 // 19 MB: past parallelMinBytes
	if w := scanWorkers(dim*rows*4, rows/scanBlockRows); runtime.GOMAXPROCS(0) > 1 && w < 2 {
		t.Fatalf("%d workers: the test would not scan in parallel", w)
	}
	r := rand.New(rand.NewSource(2))
	ids := make([]int64, rows)
	flat := make([]float32, rows*dim)
	for i := range ids {
		ids[i] = int64(rows - i)
		for j := 0; j < dim; j++ {
			flat[i*dim+j] = float32(r.Intn(3)) // many equal scores
		}
	}
	qv := make([]float32, dim)
	qv[0], qv[3] = 1, 1
	got := FlatTopK(ids, flat, dim, qv, 40)
	var want []Scored
	for i := range ids {
		want = append(want, Scored{ID: ids[i], Score: float64(dotGo(flat[i*dim:(i+1)*dim], qv))})
	}
	sortScored(want)
	if fmt.Sprint(got) != fmt.Sprint(want[:40]) {
		t.Fatalf("got %v\nwant %v", got, want[:40])
	}
}

// TestSnapshotRecall compares the int8 scan with float32 rescoring
// against the exact float32 scan over hash-v1 vectors of varied text: the
// top 100 must be the same chunks in the same order for every query.
func TestSnapshotRecall(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	s := newSynth(7)
	var ws []testWrite
	for d := 0; d < 20; d++ {
		var texts []string
		for i := 0; i < 150; i++ {
			texts = append(texts, s.text(400))
		}
		ws = append(ws, testWrite{path: fmt.Sprintf("/r/%d.md", d), texts: texts})
	}
	writeTestDocs(t, ix, ws)
	if err := ix.RefreshSnapshot(ctx, nil); err != nil {
		t.Fatal(err)
	}
	f, _ := ix.St.CorpusFacts(ctx, ix.Fingerprint())
	snap, ok := ix.openSnapshot(f.Generation, f.Vectors)
	if !ok {
		t.Fatal("no snapshot")
	}
	defer snap.close()
	ids, flat, err := ix.St.CorpusVectors(ctx, ix.Fingerprint(), 512, nil)
	if err != nil {
		t.Fatal(err)
	}
	same, total := 0, 0
	for i, q := range benchQueries(s) {
		qv := HashV1Vector(q)
		exact := FlatTopK(ids, flat, 512, qv, 100)
		got, err := snap.topK(scanShare{}, qv, 100)
		if err != nil {
			t.Fatal(err)
		}
		for k := range exact {
			total++
			if k < len(got) && got[k].ID == exact[k].ID {
				same++
			}
		}
		if i == 0 && len(got) != len(exact) {
			t.Fatalf("%d results, want %d", len(got), len(exact))
		}
	}
	if same != total {
		t.Fatalf("int8 scan + rescore kept %d of %d exact top-100 positions", same, total)
	}
}

type testWrite struct {
	path  string
	texts []string
}

// writeTestDocs stores documents with their hash-v1 vectors directly.
func writeTestDocs(t *testing.T, ix *Index, ws []testWrite) {
	t.Helper()
	ctx := context.Background()
	if err := ix.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		chunks := make([]store.CorpusChunk, len(w.texts))
		for i, tx := range w.texts {
			chunks[i] = store.CorpusChunk{Index: i, Title: w.path, Text: tx}
		}
		vecs, _ := ix.Emb.EmbedDocuments(ctx, w.texts)
		src := &store.CorpusSource{Path: w.path, Title: w.path, Format: "md", SHA256: "x", Sections: "[]"}
		if _, err := ix.St.ReplaceCorpusSource(ctx, src, chunks, ix.Fingerprint(), vecs); err != nil {
			t.Fatal(err)
		}
	}
}

// A scan beside the keyword query starts on all cores but one and takes
// the last when the keyword side is done; every block is scanned once
// whether that happens before, during or never.
func TestParallelBlocksSharedJoinsOnAssist(t *testing.T) {
	const n = 64
	for _, when := range []string{"never", "before", "midway"} {
		assist := make(chan struct{})
		if when == "before" {
			close(assist)
		}
		var mu sync.Mutex
		seen := make([]int, n)
		workersBefore := map[int]bool{}
		closed := false
		parallelBlocksShared(scanShare{assist}, 2, n, func(w, b int) {
			mu.Lock()
			defer mu.Unlock()
			seen[b]++
			if !closed && when != "before" {
				workersBefore[w] = true
			}
			if when == "midway" && b == n/4 && !closed {
				closed = true
				close(assist)
			}
		})
		for b, c := range seen {
			if c != 1 {
				t.Fatalf("%s: block %d scanned %d times", when, b, c)
			}
		}
		if when != "before" && (len(workersBefore) != 1 || !workersBefore[0]) {
			t.Fatalf("%s: workers %v ran before the keyword side was done; want only worker 0", when, workersBefore)
		}
	}
	// Without a share (or on one core) it is parallelBlocks.
	if got := (scanShare{}).split(2); got != 2 {
		t.Fatalf("no share: %d workers at once, want 2", got)
	}
}
