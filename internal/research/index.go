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

	spec Spec
	fp   string
	mu   sync.Mutex
	// scanMu is held (shared) while a scan reads the whole-corpus
	// vectors, which may alias a mapped snapshot file.
	scanMu sync.RWMutex
	mapped []byte
	ready  bool
	// whole-corpus dense matrix, loaded once per process.
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
// down, model missing).
type EmbedderError struct{ Err error }

func (e *EmbedderError) Error() string { return "embedder: " + e.Err.Error() }
func (e *EmbedderError) Unwrap() error { return e.Err }

// Hint says how to recover.
func (e *EmbedderError) Hint() string {
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
	probe, err := Probe(ctx, ix.Emb)
	if err != nil {
		return &EmbedderError{Err: err}
	}
	ix.spec = ix.Emb.Spec()
	if ix.spec.Dim == 0 {
		ix.spec.Dim = len(probe)
	}
	if len(probe) != ix.spec.Dim {
		return fmt.Errorf("embedder returned %d dimensions, its spec says %d", len(probe), ix.spec.Dim)
	}
	ix.fp = ix.spec.Fingerprint()
	sp, err := ix.St.EmbeddingSpace(ctx, ix.fp)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if err := ix.St.PutEmbeddingSpace(ctx, store.EmbeddingSpace{Fingerprint: ix.fp, SpecJSON: ix.spec.JSON(), Dim: ix.spec.Dim, Probe: probe, State: "ready"}); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if sp.State == "stale" {
			return &StaleSpaceError{Fingerprint: ix.fp}
		}
		if len(sp.Probe) == len(probe) && Cosine(sp.Probe, probe) < 0.999 {
			sp.State = "stale"
			_ = ix.St.PutEmbeddingSpace(ctx, *sp)
			return &StaleSpaceError{Fingerprint: ix.fp}
		}
	}
	chunks, vecs, err := ix.St.CorpusCounts(ctx, ix.fp)
	if err != nil {
		return err
	}
	ix.Missing = chunks - vecs
	ix.ready = true
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
	unmapFile(ix.mapped)
	ix.mapped = nil
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
	// (on the shared eval set this also raised MRR, 0.480 to 0.499, with
	// recall@5 unchanged).
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
	if err := ix.Open(ctx); err != nil {
		return nil, err
	}
	if o.TopK <= 0 {
		o.TopK = 5
	}
	pool := max(50, o.TopK*10)
	dw, lw := ix.DenseWeight, ix.LexicalWeight
	if dw < 0 || lw < 0 || dw+lw == 0 {
		dw, lw = 0.5, 0.5
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
		var err error
		if terms, err = ix.weighQuery(ctx, query); err != nil {
			lexErr = err
			return
		}
		match, err := ix.lexicalMatch(ctx, query)
		if err != nil {
			lexErr = err
			return
		}
		if lex, err = ix.St.SearchCorpusFTS(ctx, match, FieldWeights, o.Sources, pool); err != nil {
			lexErr = fmt.Errorf("full-text search: %w", err)
		}
	}()
	var dense []Scored
	var denseErr error
	if dw > 0 {
		dense, denseErr = ix.embedAndScan(ctx, query, o.Sources, pool)
	}
	<-done
	if lexErr != nil {
		return nil, lexErr
	}
	if denseErr != nil {
		return nil, denseErr
	}
	return ix.fuse(ctx, lex, dense, dw, lw, terms, o)
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

// lexicalMatch builds the MATCH expression, dropping corpus-common terms.
func (ix *Index) lexicalMatch(ctx context.Context, query string) (string, error) {
	terms := QueryTerms(query)
	if len(terms) < 2 {
		return BuildMatch(query), nil
	}
	df, total, err := ix.St.CorpusTermDocs(ctx, terms)
	if err != nil {
		return "", err
	}
	if total < commonTermMinChunks {
		return BuildMatch(query), nil
	}
	drop := map[string]bool{}
	for t, n := range df {
		if float64(n) > commonTermShare*float64(total) {
			drop[t] = true
		}
	}
	return BuildMatchWithout(query, drop), nil
}

func (ix *Index) fuse(ctx context.Context, lex []store.FTSHit, dense []Scored, dw, lw float64, terms queryTerms, o SearchOptions) ([]Hit, error) {
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
		c.rrf += dw / float64(rrfK+r+1)
		c.dense = math.Max(0, d.Score)
	}
	order := make([]int64, 0, len(cands))
	for id := range cands {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
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
		return nil, err
	}
	maxRRF := (dw + lw) / float64(rrfK+1)
	var out []Hit
	var kept [][]uint64
	for _, id := range order[:limit] {
		ch, ok := chunks[id]
		if !ok {
			continue
		}
		c := cands[id]
		c.lexical = terms.coverage(ch.Text, ch.Title, ch.Section)
		rel := (dw*c.dense + lw*c.lexical) / (dw + lw)
		if o.MinRelevance > 0 && rel < o.MinRelevance {
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
		out = append(out, Hit{ChunkID: id, SourceID: ch.SourceID, Path: ch.SourcePath, Title: ch.Title, Section: ch.Section,
			SectionID: ch.SectionID, Text: ch.Text, Score: round3(c.rrf / maxRRF), Dense: round3(c.dense), Lexical: round3(c.lexical), Relevance: round3(rel)})
		if len(out) >= o.TopK {
			break
		}
	}
	// The fused rank chose these K; show the most relevant first.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Relevance > out[j].Relevance })
	return out, nil
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

// denseSearch ranks chunks by cosine to qv: chromem-go for small candidate
// sets, the contiguous scan for the whole corpus.
func (ix *Index) denseSearch(ctx context.Context, qv []float32, sources []int64, n int) ([]Scored, error) {
	if !normalize(append([]float32(nil), qv...)) {
		return nil, nil // a query of stopwords/punctuation: lexical only
	}
	ix.scanMu.RLock()
	defer ix.scanMu.RUnlock()
	ids, flat, err := ix.vectors(ctx, sources)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if len(sources) > 0 && len(ids) <= chromemMaxDocs {
		return ChromemTopK(ctx, ids, flat, ix.spec.Dim, qv, n)
	}
	return FlatTopK(ids, flat, ix.spec.Dim, qv, n), nil
}

// vectors returns the active space's vectors: the whole corpus (cached per
// Index) or those of some sources.
func (ix *Index) vectors(ctx context.Context, sources []int64) ([]int64, []float32, error) {
	if len(sources) > 0 {
		return ix.St.CorpusVectors(ctx, ix.fp, ix.spec.Dim, sources)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.ids == nil {
		var err error
		if ix.ids, ix.flat, err = ix.loadAllVectors(ctx); err != nil {
			ix.ids, ix.flat = nil, nil
			return nil, nil, err
		}
	}
	return ix.ids, ix.flat, nil
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

// FlatTopK scans one contiguous float32 matrix with an unrolled dot
// product on all cores and keeps the n best.
func FlatTopK(ids []int64, flat []float32, dim int, qv []float32, n int) []Scored {
	rows := len(ids)
	workers := runtime.GOMAXPROCS(0)
	if rows < 20000 {
		workers = 1
	}
	parts := make([][]Scored, workers)
	var wg sync.WaitGroup
	per := (rows + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*per, min((w+1)*per, rows)
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			top := make([]Scored, 0, n+1)
			minScore := math.Inf(-1)
			for r := lo; r < hi; r++ {
				s := float64(dot(flat[r*dim:(r+1)*dim], qv))
				if len(top) == n && s <= minScore {
					continue
				}
				top = insertTop(top, Scored{ID: ids[r], Score: s}, n)
				minScore = top[len(top)-1].Score
			}
			parts[w] = top
		}(w, lo, hi)
	}
	wg.Wait()
	var all []Scored
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		return all[i].ID < all[j].ID
	})
	if len(all) > n {
		all = all[:n]
	}
	return all
}

// insertTop inserts r into the descending list top, keeping at most n.
func insertTop(top []Scored, r Scored, n int) []Scored {
	i := sort.Search(len(top), func(i int) bool { return top[i].Score < r.Score })
	top = append(top, Scored{})
	copy(top[i+1:], top[i:])
	top[i] = r
	if len(top) > n {
		top = top[:n]
	}
	return top
}

// dot is a 4-accumulator unrolled dot product (≈2.5× a naive loop).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// SectionsOf decodes a source's stored sections.
func SectionsOf(src *store.CorpusSource) []Section {
	var out []Section
	_ = json.Unmarshal([]byte(src.Sections), &out)
	return out
}
