package store

// This file holds the corpus's full-text side: ranked FTS5 matches over
// the chunks and the index's integrity check. The FTS rows themselves are
// written by triggers when chunks are (corpus.go).

import (
	"context"
	"fmt"
)

// FTSHit is one lexical match: a chunk id and its bm25 score (lower is
// better, as FTS5 returns it).
type FTSHit struct {
	ChunkID int64
	BM25    float64
}

// SearchCorpusFTS runs an FTS5 MATCH (already escaped by the caller) and
// returns chunk ids ranked by weighted bm25 (text, title, section). It
// ranks ids only; text is fetched separately by primary key, which is
// 2–3× faster than joining inside the ranking query.
func (s *Store) SearchCorpusFTS(ctx context.Context, match string, weights [3]float64, sourceIDs []int64, limit int) ([]FTSHit, error) {
	if match == "" || limit <= 0 {
		return nil, nil
	}
	q := fmt.Sprintf(`SELECT rowid, bm25(corpus_chunks_fts, %g, %g, %g) AS r FROM corpus_chunks_fts WHERE corpus_chunks_fts MATCH ?`, weights[0], weights[1], weights[2])
	args := []any{match}
	if len(sourceIDs) > 0 {
		q += ` AND rowid IN (SELECT id FROM corpus_chunks WHERE source_id IN (` + placeholders(len(sourceIDs)) + `))`
		for _, id := range sourceIDs {
			args = append(args, id)
		}
	}
	q += ` ORDER BY r, rowid LIMIT ?`
	args = append(args, limit)
	return queryAll(ctx, s.db, func(r scanner) (FTSHit, error) {
		var h FTSHit
		err := r.Scan(&h.ChunkID, &h.BM25)
		return h, err
	}, q, args...)
}

// CorpusFTSCheck runs FTS5's integrity-check on the chunk index.
func (s *Store) CorpusFTSCheck(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO corpus_chunks_fts(corpus_chunks_fts) VALUES ('integrity-check')`)
	return err
}
