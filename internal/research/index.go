package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"

	chromem "github.com/philippgille/chromem-go"

	"github.com/askygo/asky/internal/store"
)

// rrfK is the reciprocal-rank-fusion constant.
const rrfK = 60

// chromemMaxDocs is the largest candidate set searched with chromem-go. Its
// per-document overhead (a channel and a locked heap per document) makes it
// 8–11× slower than a contiguous scan at 100k chunks, and its concurrent
// scan orders equal scores arbitrarily, so whole-corpus queries use the
// deterministic flat scan; source-scoped retrieval (the research tools) and
// findings use chromem.
const chromemMaxDocs = 4096

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

func (ix *Index) embedAndScan(ctx context.Context, query string, sources []int64, n int) ([]Scored, error) {
	qv, err := ix.Emb.EmbedQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	return ix.denseSearch(ctx, qv, sources, n)
}

// commonTermShare is the share of chunks above which a term is too common
// to rank by: like a stopword for this corpus, it only slows the OR query
// down (every matching chunk is scored). Only used on corpora big enough
// for document frequencies to mean something.
const (
	commonTermShare     = 0.2
	commonTermMinChunks = 2000
)

// lexicalMatch builds the MATCH expression, dropping corpus-common terms
// (by the document frequencies td, which cover the query's terms).
func lexicalMatch(query string, td termDocs) string {
	terms := QueryTerms(query)
	if len(terms) < 2 || td.total < commonTermMinChunks {
		return BuildMatch(query)
	}
	drop := map[string]bool{}
	for _, t := range terms {
		if float64(td.df[t]) > commonTermShare*float64(td.total) {
			drop[t] = true
		}
	}
	return BuildMatchWithout(query, drop)
}

func (ix *Index) fuse(ctx context.Context, lex []store.FTSHit, dense, deep []Scored, exact map[int64]int, w fuseWeights, terms queryTerms, o SearchOptions) ([]Hit, *Hit, error) {
	// The deep list counts in the dense share of Relevance: a chunk's
	// Dense is the better of its two cosines.
	lw, dw := w.lex, w.dense+w.deep
	type cand struct {
		rrf, dense, lexical float64
	}
	cands := map[int64]*cand{}
	get := func(id int64) *cand {
		c := cands[id]
		if c == nil {
			c = &cand{}
			cands[id] = c
		}
		return c
	}
	for r, h := range lex {
		get(h.ChunkID).rrf += lw / float64(rrfK+r+1)
	}
	for r, d := range dense {
		c := get(d.ID)
		c.rrf += w.dense / float64(rrfK+r+1)
		c.dense = math.Max(0, d.Score)
	}
	for r, d := range deep {
		c := get(d.ID)
		c.rrf += w.deep / float64(rrfK+r+1)
		c.dense = math.Max(c.dense, d.Score)
	}
	for id := range exact {
		get(id) // a rare exact match ranks even outside both pools
	}
	order := make([]int64, 0, len(cands))
	for id := range cands {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
		if less, ok := exactFirst(exact, order[i], order[j]); ok {
			return less
		}
		a, b := cands[order[i]], cands[order[j]]
		if a.rrf != b.rrf {
			return a.rrf > b.rrf
		}
		return order[i] < order[j]
	})
	// Fetch texts for a bounded prefix (enough to survive dedup).
	limit := min(len(order), o.TopK*4+10)
	chunks, err := ix.St.CorpusChunks(ctx, order[:limit])
	if err != nil {
		return nil, nil, err
	}
	maxRRF := (dw + lw) / float64(rrfK+1)
	var out []Hit
	var nearest *Hit
	var kept [][]uint64
	for _, id := range order[:limit] {
		ch, ok := chunks[id]
		if !ok {
			continue
		}
		c := cands[id]
		c.lexical = terms.coverage(ch.Text, ch.Title, ch.Section)
		rel := (dw*c.dense + lw*c.lexical) / (dw + lw)
		h := Hit{ChunkID: id, SourceID: ch.SourceID, Path: ch.SourcePath, Title: ch.Title, Section: ch.Section,
			SectionID: ch.SectionID, Text: ch.Text, Score: round3(c.rrf / maxRRF), Dense: round3(c.dense), Lexical: round3(c.lexical), Relevance: round3(rel)}
		if nearest == nil {
			nearest = &h
		}
		if o.MinRelevance > 0 && rel < o.MinRelevance && exact[id] == 0 {
			continue
		}
		set := tokenSet(ch.Text)
		dup := false
		for _, k := range kept {
			if jaccard(set, k) >= 0.9 {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		kept = append(kept, set)
		out = append(out, h)
		if len(out) >= o.TopK {
			break
		}
	}
	// The fused rank chose these K; show the most relevant first, after
	// the exact matches, which lead whatever their relevance.
	sort.SliceStable(out, func(i, j int) bool {
		if less, ok := exactFirst(exact, out[i].ChunkID, out[j].ChunkID); ok {
			return less
		}
		return out[i].Relevance > out[j].Relevance
	})
	return out, nearest, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// tokenSet is the set of s's tokens as sorted 64-bit hashes: comparing
// two sets is then a merge, with no per-token strings or maps (this runs
// on every candidate of every query).
func tokenSet(s string) []uint64 {
	var tz tokenizer
	var hs []uint64
	tz.each(s, func(t []byte) { hs = append(hs, fnvAppend(fnvOffset64, t)) })
	slices.Sort(hs)
	return slices.Compact(hs)
}

// jaccard is |a∩b| / |a∪b| of two sorted, duplicate-free sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// denseSearch ranks chunks by cosine to qv: chromem-go for small source
// sets, the contiguous scan for bigger ones and the snapshot (or in-memory
// matrix) for the whole corpus. A damaged snapshot is deleted and rebuilt
// from SQLite once.
func (ix *Index) denseSearch(ctx context.Context, qv []float32, sources []int64, n int) ([]Scored, error) {
	if !normalize(append([]float32(nil), qv...)) {
		return nil, nil // a query of stopwords/punctuation: lexical only
	}
	if len(sources) > 0 {
		ids, flat, err := ix.St.CorpusVectors(ctx, ix.fp, ix.spec.Dim, sources)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		if len(ids) <= chromemMaxDocs {
			return ChromemTopK(ctx, ids, flat, ix.spec.Dim, qv, n)
		}
		return FlatTopK(ids, flat, ix.spec.Dim, qv, n), nil
	}
	res, err := ix.scanAll(ctx, qv, n)
	if errors.Is(err, errSnapshotDamaged) {
		ix.Invalidate()
		ix.removeSnapshot()
		res, err = ix.scanAll(ctx, qv, n)
	}
	return res, err
}

func (ix *Index) scanAll(ctx context.Context, qv []float32, n int) ([]Scored, error) {
	ix.scanMu.RLock()
	defer ix.scanMu.RUnlock()
	snap, ids, flat, err := ix.wholeCorpus(ctx)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		return snap.topK(shareOf(ctx), qv, n)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return FlatTopK(ids, flat, ix.spec.Dim, qv, n), nil
}

// wholeCorpus returns the active space's vectors, loaded once per corpus
// generation: the snapshot when one is configured (written from SQLite
// first if missing or stale), else a float32 matrix read from SQLite.
func (ix *Index) wholeCorpus(ctx context.Context) (*snapSet, []int64, []float32, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.snap != nil || ix.ids != nil {
		return ix.snap, ix.ids, ix.flat, nil
	}
	f := ix.facts
	if f.Vectors == 0 {
		return nil, nil, nil, nil
	}
	if ix.SnapshotDir != "" {
		s, ok := ix.openSnapshot(f.Generation, f.Vectors)
		if !ok && ix.writeSnapshot(ctx, f, nil) == nil {
			s, ok = ix.openSnapshot(f.Generation, f.Vectors)
		}
		if ok {
			ix.snap = s
			return s, nil, nil, nil
		}
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		// A cache that cannot be written only costs memory and speed.
	}
	ids, flat, err := ix.St.CorpusVectors(ctx, ix.fp, ix.spec.Dim, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	ix.ids, ix.flat = ids, flat
	return nil, ids, flat, nil
}

// RefreshSnapshot brings the vector snapshot up to date with the corpus
// (after an ingest or reindex), so the next query maps it instead of
// rebuilding it first. It is a no-op without a snapshot directory or when
// the snapshot is current.
func (ix *Index) RefreshSnapshot(ctx context.Context, progress SnapshotProgress) error {
	if ix.SnapshotDir == "" {
		return nil
	}
	if err := ix.Open(ctx); err != nil {
		return err
	}
	if err := ix.refreshFacts(ctx, false); err != nil {
		return err
	}
	ix.mu.Lock()
	f := ix.facts
	ix.mu.Unlock()
	if f.Vectors == 0 {
		return nil
	}
	if s, ok := ix.openSnapshot(f.Generation, f.Vectors); ok {
		s.close()
		return nil
	}
	return ix.writeSnapshot(ctx, f, progress)
}

// errNoEmbeddingFunc guards chromem: every vector is precomputed, and a nil
// EmbeddingFunc would silently fall back to OpenAI over the network.
var errNoEmbeddingFunc = errors.New("research: chromem must not embed; vectors are precomputed")

// ChromemTopK builds an in-memory chromem-go collection from the vectors
// and queries it. All-zero vectors are left out (chromem would store NaNs).
func ChromemTopK(ctx context.Context, ids []int64, flat []float32, dim int, qv []float32, n int) ([]Scored, error) {
	db := chromem.NewDB()
	noEmbed := func(context.Context, string) ([]float32, error) { return nil, errNoEmbeddingFunc }
	col, err := db.CreateCollection("chunks", nil, noEmbed)
	if err != nil {
		return nil, err
	}
	docs := make([]chromem.Document, 0, len(ids))
	for i, id := range ids {
		v := flat[i*dim : (i+1)*dim]
		if isZero(v) {
			continue
		}
		docs = append(docs, chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: v, Content: " "})
	}
	if len(docs) == 0 {
		return nil, nil
	}
	if err := col.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	res, err := col.QueryEmbedding(ctx, qv, min(n, col.Count()), nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Scored, len(res))
	for i, r := range res {
		id, _ := strconv.ParseInt(r.ID, 10, 64)
		out[i] = Scored{ID: id, Score: float64(r.Similarity)}
	}
	return out, nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// SectionsOf decodes a source's stored sections.
func SectionsOf(src *store.CorpusSource) []Section {
	var out []Section
	_ = json.Unmarshal([]byte(src.Sections), &out)
	return out
}
