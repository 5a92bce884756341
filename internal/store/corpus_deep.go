package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
)

// The deep tier (research/deep.go) keeps a second, slower embedder's
// vectors in corpus_vector_blocks under its own fingerprint. They are
// filled after the fast ingest by a resumable pass, in batches that may
// cover part of a source, so a source can own several partial blocks in
// the deep space. Deep writes do not bump the corpus generation: that
// would make the next query rewrite the main space's snapshot after every
// batch, and nothing caches the deep vectors across queries.

// ChunkVectors are vectors for some chunks of one source (IDs[i] owns
// Vecs[i]).
type ChunkVectors struct {
	SourceID int64
	IDs      []int64
	Vecs     [][]float32
}

// AddChunkVectors appends vectors in one space, all in one transaction,
// and returns how many it added. Chunks that got a vector there meanwhile
// (two passes at once: the daemon's and a `corpus embed`) or that were
// deleted are skipped, so a chunk never has two; a caller that mirrors
// the vectors elsewhere (the deep tier's snapshot) learns from the count
// that it cannot simply append them all.
func (s *Store) AddChunkVectors(ctx context.Context, fingerprint string, batch []ChunkVectors) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	added := 0
	for _, b := range batch {
		if len(b.IDs) != len(b.Vecs) {
			return 0, fmt.Errorf("store: %d vectors for %d chunks", len(b.Vecs), len(b.IDs))
		}
		have, err := vectorIDs(ctx, tx, fingerprint, b.SourceID)
		if err != nil {
			return 0, err
		}
		live, err := chunkIDsOf(ctx, tx, b.SourceID)
		if err != nil {
			return 0, err
		}
		var ids []int64
		var vecs [][]float32
		for i, id := range b.IDs {
			if !have[id] && live[id] {
				ids, vecs = append(ids, id), append(vecs, b.Vecs[i])
			}
		}
		if len(ids) == 0 {
			continue
		}
		if err := putVectorBlocks(ctx, tx, b.SourceID, fingerprint, ids, vecs); err != nil {
			return 0, err
		}
		added += len(ids)
	}
	return added, tx.Commit()
}

// chunkIDsOf is the set of a source's chunk ids.
func chunkIDsOf(ctx context.Context, q querier, sourceID int64) (map[int64]bool, error) {
	ids, err := queryAll(ctx, q, scanValue[int64], `SELECT id FROM corpus_chunks WHERE source_id = ?`, sourceID)
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}

// ChunksMissingVectors returns up to limit chunks (in source and chunk
// order) that have no vector in the space, with their text; a pass
// embeds and stores them, then asks again until it gets none.
func (s *Store) ChunksMissingVectors(ctx context.Context, fingerprint string, limit int) ([]CorpusChunk, error) {
	// Sources whose chunks outnumber their vectors in the space.
	sources, err := s.queryIDs(ctx, `SELECT s.id FROM corpus_sources s
		WHERE (SELECT count(*) FROM corpus_chunks c WHERE c.source_id = s.id) >
		      coalesce((SELECT sum(b.n) FROM corpus_vector_blocks b WHERE b.source_id = s.id AND b.fingerprint = ?), 0)
		ORDER BY s.id`, fingerprint)
	if err != nil {
		return nil, err
	}
	var out []CorpusChunk
	for _, sid := range sources {
		have, err := vectorIDs(ctx, s.db, fingerprint, sid)
		if err != nil {
			return nil, err
		}
		chunks, err := s.SourceChunks(ctx, sid)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			if !have[c.ID] {
				out = append(out, c)
				if len(out) >= limit {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// vectorIDs is the set of a source's chunk ids with a vector in the space.
func vectorIDs(ctx context.Context, q querier, fingerprint string, sourceID int64) (map[int64]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT n, ids FROM corpus_vector_blocks WHERE source_id = ? AND fingerprint = ?`, sourceID, fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[int64]bool{}
	var idb sql.RawBytes
	for rows.Next() {
		var n int
		if err := rows.Scan(&n, &idb); err != nil {
			return nil, err
		}
		for i := 0; i < n && 8*i+8 <= len(idb); i++ {
			have[int64(binary.BigEndian.Uint64(idb[8*i:]))] = true
		}
	}
	return have, rows.Err()
}

// ChunksWithVectors says which of the chunks have a vector in the space
// (reading only the id lists of their sources' blocks).
func (s *Store) ChunksWithVectors(ctx context.Context, fingerprint string, chunkIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(chunkIDs) == 0 {
		return out, nil
	}
	want := make(map[int64]bool, len(chunkIDs))
	args := make([]any, 0, len(chunkIDs))
	for _, id := range chunkIDs {
		want[id] = true
		args = append(args, id)
	}
	sources, err := s.queryIDs(ctx, `SELECT DISTINCT source_id FROM corpus_chunks WHERE id IN (`+placeholders(len(chunkIDs))+`)`, args...)
	if err != nil {
		return nil, err
	}
	for _, sid := range sources {
		have, err := vectorIDs(ctx, s.db, fingerprint, sid)
		if err != nil {
			return nil, err
		}
		for id := range have {
			if want[id] {
				out[id] = true
			}
		}
	}
	return out, nil
}

// DropSpace deletes one space's vectors (not the space row): its model
// changed behind the same identity and they must be rebuilt.
func (s *Store) DropSpace(ctx context.Context, fingerprint string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM corpus_vector_blocks WHERE fingerprint = ?`, fingerprint); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM corpus_state WHERE key = ?`, vectorsKey(fingerprint)); err != nil {
		return err
	}
	return tx.Commit()
}
