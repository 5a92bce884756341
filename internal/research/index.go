package research

// This file holds the Index (the hybrid retriever over the corpus): its
// embedding space, the corpus facts it keeps current, and Search, which
// runs the keyword and dense sides of a query side by side and hands the
// lists to fusion. The sides are in lexical.go and dense.go, fusion in
// fuse.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/askygo/asky/internal/store"
)

// FieldWeights are the bm25 weights of the FTS columns text, title and
// section breadcrumb.
// The title is shared by every chunk of a document, so it counts less; the
// breadcrumb names what the chunk is about, so it counts more.
var FieldWeights = [3]float64{1.0, 0.5, 1.5}

// Index is the hybrid retriever over the corpus: FTS5 BM25 plus dense
// vectors of the active embedding space, fused by weighted RRF.
type Index struct {
	St            *store.Store
	Emb           Embedder
	DenseWeight   float64
	LexicalWeight float64
	// SnapshotDir, when set, caches the vectors in a file there (see
	// snapshot.go); empty reads them from SQLite every time.
	SnapshotDir string
	// Deep, when set, is the slower second embedder (deep.go).
	Deep *DeepTier

	spec Spec
	fp   string
	mu   sync.Mutex
	// scanMu is held (shared) while a scan reads the whole-corpus
	// vectors, which may alias a mapped snapshot file.
	scanMu sync.RWMutex
	ready  bool
	// facts are the corpus generation and counts, read once per query;
	// factsFresh means Open has just read them for the coming query.
	facts      store.CorpusFacts
	factsFresh bool
	// The whole-corpus vectors, loaded once per corpus generation: a
	// mapped snapshot, or (without one) a float32 matrix in memory.
	snap *snapSet
	ids  []int64
	flat []float32
	// Missing is the number of chunks without a vector in this space.
	Missing int
}

// StaleSpaceError means the embedder behind a configured name changed
// (the canary no longer matches); vectors must be rebuilt.
type StaleSpaceError struct{ Fingerprint string }

func (e *StaleSpaceError) Error() string {
	return fmt.Sprintf("the embedding model changed since the index was built (space %s)", e.Fingerprint)
}

// Hint names the repair.
func (e *StaleSpaceError) Hint() string {
	return "run `asky corpus reindex` to re-embed from the stored text"
}

// EmbedderError means the configured embedder could not embed (server
// down, model missing). Deep marks the deep tier's embedder, whose fix is
// in another section.
type EmbedderError struct {
	Err  error
	Deep bool
}

func (e *EmbedderError) Error() string { return "embedder: " + e.Err.Error() }
func (e *EmbedderError) Unwrap() error { return e.Err }

// Hint says how to recover.
func (e *EmbedderError) Hint() string {
	if e.Deep {
		return "check [research.deep] (or set provider = \"off\" there), then run `asky corpus embed`; keyword and fast semantic search work meanwhile"
	}
	return "check [research.embedding] and that its server is running, or set provider = \"builtin\" for offline search"
}

// Open resolves the embedder's space: its fingerprint, a stored canary
// checked against a fresh probe, and how many chunks still lack vectors.
func (ix *Index) Open(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.ready {
		return nil
	}
	spec, fp, stale, err := openSpace(ctx, ix.St, ix.Emb)
	if err != nil {
		return err
	}
	ix.spec, ix.fp = spec, fp
	if stale {
		return &StaleSpaceError{Fingerprint: ix.fp}
	}
	f, err := ix.St.CorpusFacts(ctx, ix.fp)
	if err != nil {
		return err
	}
	ix.facts, ix.factsFresh, ix.Missing = f, true, f.Chunks-f.Vectors
	ix.ready = true
	return nil
}

// refreshFacts reads the corpus facts (generation and counts, kept up to
// date by every write) and sets Missing. A query calls it with
// reuse=true, which takes the facts Open has just read instead: one read
// per query. A changed generation (a write by this or another process)
// drops the cached vectors, so a long-running process never scans a
// stale corpus.
func (ix *Index) refreshFacts(ctx context.Context, reuse bool) error {
	ix.mu.Lock()
	if reuse && ix.factsFresh {
		ix.factsFresh = false
		ix.mu.Unlock()
		return nil
	}
	ix.factsFresh = false
	gen, vecs := ix.facts.Generation, ix.facts.Vectors
	ix.mu.Unlock()
	f, err := ix.St.CorpusFacts(ctx, ix.fp)
	if err != nil {
		return err
	}
	if f.Generation != gen || f.Vectors != vecs {
		// A deep pass adds vectors without a new generation.
		ix.Invalidate()
	}
	ix.mu.Lock()
	ix.facts, ix.Missing = f, f.Chunks-f.Vectors
	ix.mu.Unlock()
	return nil
}

// Fingerprint of the active space (after Open).
func (ix *Index) Fingerprint() string { return ix.fp }

// Spec of the active embedder (after Open).
func (ix *Index) Spec() Spec { return ix.spec }

// Invalidate drops the cached dense matrix (after writes).
func (ix *Index) Invalidate() {
	ix.scanMu.Lock() // no scan may still read a mapping we drop
	defer ix.scanMu.Unlock()
	ix.mu.Lock()
	ix.ids, ix.flat = nil, nil
	if ix.snap != nil {
		ix.snap.close()
		ix.snap = nil
	}
	ix.factsFresh = false
	ix.mu.Unlock()
}

// Close releases the vector mapping (the store is the caller's).
func (ix *Index) Close() { ix.Invalidate() }

// SearchOptions tune one search.
type SearchOptions struct {
	TopK int
	// Sources limits the search to these source ids.
	Sources []int64
	// MinRelevance drops hits whose Relevance is lower (0 keeps all).
	MinRelevance float64
}

// Hit is one retrieved chunk.
type Hit struct {
	ChunkID   int64  `json:"-"`
	SourceID  int64  `json:"-"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	Section   string `json:"section"`
	SectionID string `json:"-"`
	Text      string `json:"text"`
	// Score is the fused rank score relative to the best possible (first
	// in every list): it picks the top K but is not comparable across
	// queries. Dense, Lexical and Relevance are (see score.go); the top K
	// come best Relevance first, so a listing's order and its figures agree
	// (on the shared eval set this also raised the pooled MRR, 0.529 to
	// 0.544, recall@5 unchanged). Exact matches still come first.
	Score   float64 `json:"score"`
	Dense   float64 `json:"-"`
	Lexical float64 `json:"-"`
	// Relevance is the weighted mean of Dense and Lexical, in [0,1].
	Relevance float64 `json:"-"`
}

// Scored is a dense search result: an id and its cosine similarity.
type Scored struct {
	ID    int64
	Score float64
}

// Search runs the hybrid query.
func (ix *Index) Search(ctx context.Context, query string, o SearchOptions) ([]Hit, error) {
	hits, _, err := ix.SearchNearest(ctx, query, o)
	return hits, err
}

// SearchNearest is Search that also returns the nearest chunk whatever
// o.MinRelevance (nil when nothing matched at all): the hit a search
// with TopK 1 and no floor would return, so a caller that finds nothing
// above the floor can say how far off the best was without running the
// whole query again (half the time of such a query at a million chunks).
func (ix *Index) SearchNearest(ctx context.Context, query string, o SearchOptions) ([]Hit, *Hit, error) {
	keywordOnly := ix.Emb == nil // no embedder could be loaded
	if !keywordOnly {
		if err := ix.Open(ctx); err != nil {
			return nil, nil, err
		}
	}
	if err := ix.refreshFacts(ctx, true); err != nil {
		return nil, nil, err
	}
	if o.TopK <= 0 {
		o.TopK = 5
	}
	pool := max(50, o.TopK*10)
	dw, lw := ix.DenseWeight, ix.LexicalWeight
	if dw < 0 || lw < 0 || dw+lw == 0 {
		dw, lw = 0.5, 0.5
	}
	if keywordOnly {
		dw, lw = 0, 1
	}
	// The lexical query runs in SQLite on one core while the dense scan
	// runs here: at 100k chunks each takes tens of milliseconds, so the
	// query costs the slower of the two rather than their sum.
	var (
		lex    []store.FTSHit
		terms  queryTerms
		lexErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		var td termDocs
		var err error
		if terms, td, err = ix.weighQuery(ctx, query); err != nil {
			lexErr = err
			return
		}
		if lex, err = ix.lexicalSearch(ctx, query, td, o.Sources, pool); err != nil {
			lexErr = fmt.Errorf("full-text search: %w", err)
		}
	}()
	// The scans leave the keyword query a core until it is done.
	sctx := withScanShare(ctx, done)
	deepc := ix.startDeep(sctx, query, o.Sources, pool, dw)
	var dense []Scored
	var denseErr error
	if dw > 0 {
		dense, denseErr = ix.embedAndScan(sctx, query, o.Sources, pool)
	}
	<-done
	if lexErr != nil {
		return nil, nil, lexErr
	}
	exact, err := ix.exactHits(ctx, query, o.Sources)
	if err != nil {
		return nil, nil, fmt.Errorf("full-text search: %w", err)
	}
	if denseErr != nil {
		return nil, nil, denseErr
	}
	deep, w := ix.finishDeep(ctx, deepc, lex, dense, exact, fuseWeights{lex: lw, dense: dw})
	return ix.fuse(ctx, lex, dense, deep, exact, w, terms, o)
}

// SectionsOf decodes a source's stored sections.
func SectionsOf(src *store.CorpusSource) []Section {
	var out []Section
	_ = json.Unmarshal([]byte(src.Sections), &out)
	return out
}
