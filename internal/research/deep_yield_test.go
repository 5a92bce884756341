package research

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askygo/asky/internal/research/minilm"
)

// turnGate is a fake Foreground: busy between begin and end (a turn in
// flight). Every wait it makes a caller do is sent on waits first, so
// a test knows the pass is parked in it, without sleeping.
type turnGate struct {
	waits chan struct{}

	mu   sync.Mutex
	idle chan struct{} // nil: no turn in flight
}

func (g *turnGate) begin() {
	g.mu.Lock()
	g.idle = make(chan struct{})
	g.mu.Unlock()
}

func (g *turnGate) end() {
	g.mu.Lock()
	close(g.idle)
	g.idle = nil
	g.mu.Unlock()
}

func (g *turnGate) Idle(ctx context.Context) error {
	g.mu.Lock()
	ch := g.idle
	g.mu.Unlock()
	if ch == nil {
		return nil
	}
	g.waits <- struct{}{}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// parked waits until the pass is parked in the gate (or failed the test
// by returning: a pass that does not wait never parks).
func parked[T any](t *testing.T, g *turnGate, done <-chan T) {
	t.Helper()
	select {
	case <-g.waits:
	case r := <-done:
		t.Fatalf("the pass ran on while a turn was in flight: %+v", r)
	case <-time.After(time.Minute):
		t.Fatal("the pass neither paused nor finished")
	}
}

type fillResult struct {
	n   int
	err error
}

func (c *conceptEmbedder) callCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// A turn that starts during a deep pass parks it after the batch in
// flight (committed: nothing is lost), and the pass resumes and finishes
// when the turn ends.
func TestDeepFillPausesWhileATurnRuns(t *testing.T) {
	deep := zebraDeep("concepts")
	ix, _ := deepCorpus(t, deep, manyDocs())
	ctx := context.Background()
	chunks, _, err := ix.St.CorpusCounts(ctx, "")
	if err != nil || chunks <= 2*deepFillBatch {
		t.Fatalf("%d chunks, %v: need more than two batches", chunks, err)
	}
	g := &turnGate{waits: make(chan struct{})}
	deep.afterBatch = func(call int) {
		if call == 1 {
			g.begin() // a question arrives while the first batch embeds
		}
	}
	done := make(chan fillResult, 1)
	go func() {
		n, err := ix.FillDeepYielding(ctx, g, nil)
		done <- fillResult{n, err}
	}()
	parked(t, g, done)
	if c := deep.callCount(); c != 1 {
		t.Fatalf("%d batches embedded while the turn was in flight, want only the one it interrupted", c)
	}
	if f, err := ix.St.CorpusFacts(ctx, ix.Deep.Fingerprint()); err != nil || f.Vectors != deepFillBatch {
		t.Fatalf("paused with %d deep vectors (%v), want the first batch (%d) committed", f.Vectors, err, deepFillBatch)
	}
	g.end()
	r := <-done
	if r.err != nil || r.n != chunks {
		t.Fatalf("resumed pass = %d, %v; want all %d chunks", r.n, r.err, chunks)
	}
	if want := (chunks + deepFillBatch - 1) / deepFillBatch; deep.callCount() != want || deep.embedded != chunks {
		t.Fatalf("%d batches, %d texts; want %d batches, %d texts", deep.callCount(), deep.embedded, want, chunks)
	}
}

// A daemon stopping while its pass waits for a turn stops the pass at
// once; the batches committed before stay, the next pass does the rest.
func TestDeepFillStopsWhilePaused(t *testing.T) {
	deep := zebraDeep("concepts")
	ix, _ := deepCorpus(t, deep, manyDocs())
	chunks, _, _ := ix.St.CorpusCounts(context.Background(), "")
	g := &turnGate{waits: make(chan struct{})}
	deep.afterBatch = func(call int) {
		if call == 1 {
			g.begin()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan fillResult, 1)
	go func() {
		n, err := ix.FillDeepYielding(ctx, g, nil)
		done <- fillResult{n, err}
	}()
	parked(t, g, done)
	cancel()
	if r := <-done; r.err != context.Canceled || r.n != deepFillBatch {
		t.Fatalf("stopped pass = %d, %v; want %d, context.Canceled", r.n, r.err, deepFillBatch)
	}
	deep.afterBatch = nil
	n, err := ix.FillDeep(context.Background(), nil)
	if err != nil || n != chunks-deepFillBatch || deep.embedded != chunks {
		t.Fatalf("next pass = %d, %v, %d texts embedded in all; want %d more, %d in all", n, err, deep.embedded, chunks-deepFillBatch, chunks)
	}
}

// countingIdle is a Foreground that is always idle and counts the waits.
type countingIdle struct{ n atomic.Int64 }

func (c *countingIdle) Idle(context.Context) error { c.n.Add(1); return nil }

// The transformer gives way inside a batch: before each group of texts
// and each step of the encoder's layers, with the same vectors as
// without (its groups are smaller then); a turn in flight when the
// daemon stops ends the batch at once.
func TestTransformerYieldsInsideABatch(t *testing.T) {
	ctx := context.Background()
	texts := make([]string, 2*transformerBatch)
	for i := range texts {
		texts[i] = strings.Repeat("zebra ", 1+i%3*60) // 1, 61 or 121 words
	}
	var e TransformerEmbedder
	want, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var fg countingIdle
	got, err := embedYielding(ctx, &lazyEmbedder{build: func() (Embedder, error) { return e, nil }}, texts, &fg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("text %d: a yielding batch embeds differently", i)
		}
	}
	m, err := minilm.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	groups := int64(len(groups(m, texts, true)))
	wantWaits := groups * minilm.PausePoints
	if runtime.GOMAXPROCS(0) > 1 {
		wantWaits += groups // and before handing each group to a worker
	}
	if fg.n.Load() != wantWaits {
		t.Fatalf("%d waits, want %d (%d groups × %d steps, + one per group on several cores)", fg.n.Load(), wantWaits, groups, minilm.PausePoints)
	}

	g := &turnGate{waits: make(chan struct{}, 64)}
	g.begin()
	stop, cancel := context.WithCancel(ctx)
	done := make(chan fillResult, 1)
	go func() {
		v, err := e.embedYielding(stop, texts, g)
		done <- fillResult{len(v), err}
	}()
	parked(t, g, done)
	cancel()
	if r := <-done; r.err != context.Canceled {
		t.Fatalf("stopped while paused: %+v, want context.Canceled", r)
	}
}

// Groups hold transformerBatch texts; giving way, at most one chunk's
// worth of tokens, a longer text alone.
func TestTransformerGroups(t *testing.T) {
	m, err := minilm.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	short, half, long := "zebra", strings.Repeat("zebra ", 130), strings.Repeat("zebra ", 400)
	texts := []string{short, short, half, half, long, short, short, short, short, short, short, short, short, short}
	if got, want := groups(m, texts, false), [][2]int{{0, 8}, {8, 14}}; !slices.Equal(got, want) {
		t.Fatalf("groups = %v, want %v", got, want)
	}
	if got, want := groups(m, texts, true), [][2]int{{0, 3}, {3, 4}, {4, 5}, {5, 13}, {13, 14}}; !slices.Equal(got, want) {
		t.Fatalf("small groups = %v, want %v", got, want)
	}
}
