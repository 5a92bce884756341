package research

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/askygo/asky/internal/config"

	"github.com/askygo/asky/internal/store"
)

// DeepTier is a second embedder, slower and better than the main one (a
// transformer next to the static table). Ingest stays fast: keyword and
// main-space search work at once, and FillDeep embeds the stored chunks
// afterwards, in batches that survive a kill. Its vectors live in their
// own space (fingerprint and canary, like the main one), so switching
// the deep model re-embeds and never mixes. It searches through an inner
// Index over that space, which brings the snapshot and scans with it.
type DeepTier struct {
	ix   *Index
	name string // as configured, for messages
}

// NewDeepTier wraps emb as the deep tier of a corpus in st; snapshotDir
// is the main index's (the deep space gets its own files there).
func NewDeepTier(st *store.Store, emb Embedder, snapshotDir string) *DeepTier {
	return &DeepTier{ix: &Index{St: st, Emb: emb, DenseWeight: 1, SnapshotDir: snapshotDir}}
}

// Weights of the three-way fusion, used when the deep tier covers a
// query's candidates. Chosen on the Go-docs eval corpus alone (a grid of
// full-scan, pool-rerank and weighted-score forms, see deep_eval_test.go);
// the licences corpus was reported unchanged: 13/20 → 15/20.
const (
	deepLexWeight    = 0.15
	deepStaticWeight = 0.15
	deepWeight       = 0.70
)

// deepFillBatch is the number of chunks a deep pass embeds and commits at
// a time: a kill loses at most this much work (a few seconds of a
// transformer on two cores).
const deepFillBatch = 32

// openSpace resolves emb's space: its spec and fingerprint (the dimension
// learnt from a probe of the canary), the space row created on first
// use. stale reports a stored canary that no longer matches the probe:
// the model changed behind the same identity.
func openSpace(ctx context.Context, st *store.Store, emb Embedder) (spec Spec, fp string, stale bool, err error) {
	probe, err := Probe(ctx, emb)
	if err != nil {
		return spec, "", false, &EmbedderError{Err: err}
	}
	spec = emb.Spec()
	if spec.Dim == 0 {
		spec.Dim = len(probe)
	}
	if len(probe) != spec.Dim {
		return spec, "", false, fmt.Errorf("embedder returned %d dimensions, its spec says %d", len(probe), spec.Dim)
	}
	fp = spec.Fingerprint()
	sp, err := st.EmbeddingSpace(ctx, fp)
	switch {
	case errors.Is(err, store.ErrNotFound):
		err = st.PutEmbeddingSpace(ctx, store.EmbeddingSpace{Fingerprint: fp, SpecJSON: spec.JSON(), Dim: spec.Dim, Probe: probe, State: "ready"})
		return spec, fp, false, err
	case err != nil:
		return spec, "", false, err
	}
	if sp.State == "stale" {
		return spec, fp, true, nil
	}
	if len(sp.Probe) == len(probe) && Cosine(sp.Probe, probe) < 0.999 {
		sp.State = "stale"
		_ = st.PutEmbeddingSpace(ctx, *sp)
		return spec, fp, true, nil
	}
	return spec, fp, false, nil
}

// open resolves the deep space. A stale one (the model changed behind
// the same name) is emptied and starts again: the deep tier is derived
// from the stored text, so it rebuilds itself instead of asking for a
// reindex.
func (d *DeepTier) open(ctx context.Context) error {
	err := d.ix.Open(ctx)
	var stale *StaleSpaceError
	if errors.As(err, &stale) {
		st := d.ix.St
		if err := st.DropSpace(ctx, stale.Fingerprint); err != nil {
			return err
		}
		probe, perr := Probe(ctx, d.ix.Emb)
		if perr != nil {
			return fmt.Errorf("deep tier: %w", &EmbedderError{Err: perr, Deep: true})
		}
		if err := st.PutEmbeddingSpace(ctx, store.EmbeddingSpace{Fingerprint: d.ix.fp, SpecJSON: d.ix.spec.JSON(), Dim: d.ix.spec.Dim, Probe: probe, State: "ready"}); err != nil {
			return err
		}
		d.ix.Invalidate()
		if d.ix.SnapshotDir != "" {
			d.ix.removeSnapshot()
		}
		err = d.ix.Open(ctx)
	}
	if err != nil {
		var ee *EmbedderError
		if errors.As(err, &ee) {
			ee.Deep = true // its fix is in [research.deep]
		}
		return fmt.Errorf("deep tier: %w", err)
	}
	return nil
}

// Fingerprint of the deep space (after it was opened).
func (d *DeepTier) Fingerprint() string { return d.ix.fp }

// Spec of the deep embedder (after it was opened).
func (d *DeepTier) Spec() Spec { return d.ix.spec }

// Close releases the deep space's snapshot mapping.
func (d *DeepTier) Close() { d.ix.Close() }

// DeepCoverage is how far the deep pass has come.
type DeepCoverage struct {
	Fingerprint string
	Chunks      int
	Vectors     int
}

// Coverage reads how many chunks have a deep vector (opening the deep
// space, which probes its embedder once).
func (ix *Index) DeepCoverage(ctx context.Context) (DeepCoverage, error) {
	if ix.Deep == nil {
		return DeepCoverage{}, errors.New("the deep tier is off")
	}
	if err := ix.Deep.open(ctx); err != nil {
		return DeepCoverage{}, err
	}
	fp := ix.Deep.Fingerprint()
	f, err := ix.St.CorpusFacts(ctx, fp)
	return DeepCoverage{Fingerprint: fp, Chunks: f.Chunks, Vectors: f.Vectors}, err
}

// fuseWeights are the weights of the rank lists fused by a query.
type fuseWeights struct{ lex, dense, deep float64 }

// deepResult is the deep side of one query, computed next to the others.
type deepResult struct {
	hits []Scored
	err  error
}

// startDeep runs the deep side of a query in the background: nothing
// (not even the query's embedding) when the tier is off, the query has
// no dense side or the deep space has no vectors yet; else the canary
// check and the query's embedding side by side, then the scan.
func (ix *Index) startDeep(ctx context.Context, query string, sources []int64, n int, dw float64) <-chan deepResult {
	if ix.Deep == nil || dw <= 0 {
		return nil
	}
	out := make(chan deepResult, 1)
	go func() {
		hits, err := ix.Deep.search(ctx, query, sources, n)
		out <- deepResult{hits, err}
	}()
	return out
}

func (d *DeepTier) search(ctx context.Context, query string, sources []int64, n int) ([]Scored, error) {
	di := d.ix
	// An empty deep tier costs the query nothing, not even its embedding.
	if cov, _, err := d.Peek(ctx); err != nil || cov.Vectors == 0 {
		return nil, err
	}
	d.trustBuiltin(ctx)
	var qv []float32
	var qerr error
	embedded := make(chan struct{})
	go func() {
		defer close(embedded)
		qv, qerr = di.Emb.EmbedQuery(ctx, query)
	}()
	oerr := d.open(ctx)
	<-embedded
	if oerr != nil {
		return nil, oerr
	}
	if qerr != nil {
		return nil, &EmbedderError{Err: qerr}
	}
	if err := di.refreshFacts(ctx, true); err != nil {
		return nil, err
	}
	return di.denseSearch(ctx, qv, sources, n)
}

// trustBuiltin opens a compiled-in model's existing space without the
// canary probe: its fingerprint pins the weights (their hash is in its
// version), so the canary cannot move while the fingerprint stays, and a
// cold query saves one transformer run. Providers are always probed.
func (d *DeepTier) trustBuiltin(ctx context.Context) {
	di := d.ix
	sp := di.Emb.Spec()
	if sp.Provider != "builtin" || sp.Dim == 0 {
		return
	}
	fp := sp.Fingerprint()
	if space, err := di.St.EmbeddingSpace(ctx, fp); err != nil || space.State != "ready" {
		return
	}
	di.mu.Lock()
	if !di.ready {
		di.spec, di.fp, di.ready = sp, fp, true
	}
	di.mu.Unlock()
}

// finishDeep collects the deep side and says how to fuse: the three-way
// weights when the deep vectors cover every first-stage candidate (the
// lexical and main dense pools and the exact matches), else the
// two-way weights with no deep list, so a deep tier still being filled
// never ranks a chunk down for lacking a deep vector. A deep embedder
// that fails leaves the query to the other two sides.
func (ix *Index) finishDeep(ctx context.Context, c <-chan deepResult, lex []store.FTSHit, dense []Scored, exact map[int64]int, w fuseWeights) ([]Scored, fuseWeights) {
	if c == nil {
		return nil, w
	}
	r := <-c
	if r.err != nil || len(r.hits) == 0 {
		return nil, w
	}
	if di := ix.Deep.ix; di.Missing > 0 {
		ids := make([]int64, 0, len(lex)+len(dense)+len(exact))
		for _, h := range lex {
			ids = append(ids, h.ChunkID)
		}
		for _, d := range dense {
			ids = append(ids, d.ID)
		}
		for id := range exact {
			ids = append(ids, id)
		}
		have, err := ix.St.ChunksWithVectors(ctx, di.fp, ids)
		if err != nil {
			return nil, w
		}
		for _, id := range ids {
			if !have[id] {
				return nil, w
			}
		}
	}
	return r.hits, fuseWeights{lex: deepLexWeight, dense: deepStaticWeight, deep: deepWeight}
}

// NewDeep builds the deep tier [research.deep] configures; nil when it is
// off (or names the main embedder). Its model is loaded on first use (Load), not here: a transformer
// compiled in takes time to decode, and most commands never need it (a
// query only does once the deep tier has vectors).
func NewDeep(r config.Research, st *store.Store, hc *http.Client, getenv func(string) string, snapshotDir string) *DeepTier {
	if !r.DeepEnabled() {
		return nil
	}
	e := r.Deep
	lazy := &lazyEmbedder{build: func() (Embedder, error) {
		emb, err := NewEmbedder(e, hc, getenv)
		if err != nil {
			return nil, fmt.Errorf("research.deep: %w", err)
		}
		return emb, nil
	}}
	d := NewDeepTier(st, lazy, snapshotDir)
	d.name = e.Provider + " " + e.Model
	return d
}

// Load loads the deep model now, to report a configuration it cannot
// load (config doctor).
func (d *DeepTier) Load() error {
	if l, ok := d.ix.Emb.(*lazyEmbedder); ok {
		_, err := l.get()
		return err
	}
	return nil
}

// lazyEmbedder builds its embedder on first use.
type lazyEmbedder struct {
	build func() (Embedder, error)
	once  sync.Once
	emb   Embedder
	err   error
}

func (l *lazyEmbedder) get() (Embedder, error) {
	l.once.Do(func() { l.emb, l.err = l.build() })
	return l.emb, l.err
}

// Spec is the embedder's, or empty (no dimension) when it cannot load;
// embedding then returns the reason.
func (l *lazyEmbedder) Spec() Spec {
	e, err := l.get()
	if err != nil {
		return Spec{}
	}
	return e.Spec()
}

func (l *lazyEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.EmbedDocuments(ctx, texts)
}

func (l *lazyEmbedder) embedYielding(ctx context.Context, texts []string, fg Foreground) ([][]float32, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return embedYielding(ctx, e, texts, fg)
}

// yieldingEmbedder can give way to foreground work inside one call (the
// compiled-in transformer, whose batch takes seconds of every core).
type yieldingEmbedder interface {
	embedYielding(ctx context.Context, texts []string, fg Foreground) ([][]float32, error)
}

// embedYielding embeds texts with emb, giving way to fg inside the call
// when emb can, else only around it.
func embedYielding(ctx context.Context, emb Embedder, texts []string, fg Foreground) ([][]float32, error) {
	if y, ok := emb.(yieldingEmbedder); ok && fg != nil {
		return y.embedYielding(ctx, texts, fg)
	}
	return emb.EmbedDocuments(ctx, texts)
}

func (l *lazyEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.EmbedQuery(ctx, text)
}

// Peek reads the deep tier's coverage without running its embedder. A
// provider's spec lacks its dimension until probed: its space is then
// found among the stored ones by the dimension that completes its
// fingerprint. ok is false when no space of this embedder exists yet.
func (d *DeepTier) Peek(ctx context.Context) (c DeepCoverage, ok bool, err error) {
	spaces, err := d.ix.St.EmbeddingSpaces(ctx)
	if err != nil || len(spaces) < 2 {
		// None but the main space (deep passes open it first): the deep
		// tier is empty, known without loading its model.
		return c, false, err
	}
	sp := d.ix.Emb.Spec()
	if sp.Dim == 0 {
		for _, s := range spaces {
			if sp.Dim = s.Dim; sp.Fingerprint() == s.Fingerprint {
				break
			}
			sp.Dim = 0
		}
		if sp.Dim == 0 {
			return c, false, nil
		}
	}
	c.Fingerprint = sp.Fingerprint()
	f, err := d.ix.St.CorpusFacts(ctx, c.Fingerprint)
	c.Chunks, c.Vectors = f.Chunks, f.Vectors
	return c, err == nil, err
}

// Model names the deep embedder for messages (without loading it).
func (d *DeepTier) Model() string {
	if d.name != "" {
		return d.name
	}
	sp := d.ix.Emb.Spec()
	return sp.Provider + " " + sp.Model
}
