package research

// This file is the dense side of a query: the query vector is compared
// with the chunk vectors of the active space, through chromem-go for
// small source sets and the flat scan (scan.go) over the mapped snapshot
// (snapshot.go) or an in-memory matrix for the whole corpus.

import (
	"context"
	"errors"
	"runtime"
	"strconv"

	chromem "github.com/philippgille/chromem-go"
)

// chromemMaxDocs is the largest candidate set searched with chromem-go. Its
// per-document overhead (a channel and a locked heap per document) makes it
// 8–11× slower than a contiguous scan at 100k chunks, and its concurrent
// scan orders equal scores arbitrarily, so whole-corpus queries use the
// deterministic flat scan; source-scoped retrieval (the research tools) and
// findings use chromem.
const chromemMaxDocs = 4096

func (ix *Index) embedAndScan(ctx context.Context, query string, sources []int64, n int) ([]Scored, error) {
	qv, err := ix.Emb.EmbedQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	return ix.denseSearch(ctx, qv, sources, n)
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
