package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
)

// Vectors are stored packed per document (see migration *_vector_blocks): a row of
// corpus_vector_blocks holds the vectors of up to vectorBlockRows(dim)
// chunks of one source in one embedding space. Rows this size live in
// overflow pages, which SQLite fills, so vectors take ~1.0× their raw
// bytes on disk; a row per vector wasted half of every page. Rows stay
// near 256 KB: reading multi-MB rows made the SQLite allocator keep as
// much memory as the whole space it streamed (2 GB at a million chunks).
const vectorBlockBytes = 256 << 10

func vectorBlockRows(dim int) int { return max(8, vectorBlockBytes/(4*max(1, dim))) }

// putVectorBlocks writes the vectors of one source's chunks (cids[i] owns
// vecs[i]) as packed rows and counts them.
func putVectorBlocks(ctx context.Context, tx *sql.Tx, sourceID int64, fingerprint string, cids []int64, vecs [][]float32) error {
	rows := 1
	if len(vecs) > 0 {
		rows = vectorBlockRows(len(vecs[0]))
	}
	for lo := 0; lo < len(cids); lo += rows {
		hi := min(lo+rows, len(cids))
		idb := make([]byte, 0, 8*(hi-lo))
		var vb []byte
		for k := lo; k < hi; k++ {
			idb = binary.BigEndian.AppendUint64(idb, uint64(cids[k]))
			if vb == nil {
				vb = make([]byte, 0, 4*len(vecs[k])*(hi-lo))
			}
			for _, x := range vecs[k] {
				vb = binary.LittleEndian.AppendUint32(vb, math.Float32bits(x))
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO corpus_vector_blocks (source_id, fingerprint, n, ids, vecs) VALUES (?, ?, ?, ?, ?)`,
			sourceID, fingerprint, hi-lo, idb, vb); err != nil {
			return err
		}
	}
	return addState(ctx, tx, vectorsKey(fingerprint), len(cids))
}

// deleteVectorBlocks removes a source's vectors in one space (all spaces
// when fingerprint is empty), uncounts them and returns the chunk ids it
// removed from each space (the id lists are small next to the vectors).
func deleteVectorBlocks(ctx context.Context, tx *sql.Tx, sourceID int64, fingerprint string) (map[string][]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT fingerprint, n, ids FROM corpus_vector_blocks WHERE source_id = ? AND (? = '' OR fingerprint = ?) ORDER BY id`,
		sourceID, fingerprint, fingerprint)
	if err != nil {
		return nil, err
	}
	dropped := map[string][]int64{}
	counted := map[string]int{} // the blocks' n, which the counter added
	var idb sql.RawBytes
	for rows.Next() {
		var fp string
		var n int
		if err := rows.Scan(&fp, &n, &idb); err != nil {
			rows.Close()
			return nil, err
		}
		ids := dropped[fp]
		for i := 0; i < n && 8*i+8 <= len(idb); i++ {
			ids = append(ids, int64(binary.BigEndian.Uint64(idb[8*i:])))
		}
		dropped[fp] = ids
		counted[fp] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(dropped) == 0 {
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM corpus_vector_blocks WHERE source_id = ? AND (? = '' OR fingerprint = ?)`, sourceID, fingerprint, fingerprint); err != nil {
		return nil, err
	}
	for fp, n := range counted {
		if err := addState(ctx, tx, vectorsKey(fp), -n); err != nil {
			return nil, err
		}
	}
	return dropped, nil
}

func vectorsKey(fingerprint string) string { return "vectors " + fingerprint }

// addState adds delta to a corpus_state counter.
func addState(ctx context.Context, tx *sql.Tx, key string, delta int) error {
	if delta == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO corpus_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = value + excluded.value`, key, delta)
	return err
}

// bumpGeneration marks the corpus changed, so caches built from it (the
// vector snapshot, per-process facts) can tell they are stale.
func bumpGeneration(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE corpus_state SET value = value + 1 WHERE key = 'generation'`)
	return err
}

// CorpusGeneration changes whenever the corpus (sources, chunks or
// vectors) changes.
func (s *Store) CorpusGeneration(ctx context.Context) (int64, error) {
	var g int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM corpus_state WHERE key = 'generation'`).Scan(&g)
	return g, err
}

// CorpusFacts are the per-corpus numbers a query needs, read together.
type CorpusFacts struct {
	// Generation changes with every corpus write.
	Generation int64
	// Chunks is the number of chunks; Vectors of them have a vector in
	// the space asked for.
	Chunks, Vectors int
}

// CorpusFacts reads the generation and counts in one small query: the
// counts are maintained by every write, so no query scans a table to
// count it.
func (s *Store) CorpusFacts(ctx context.Context, fingerprint string) (CorpusFacts, error) {
	var f CorpusFacts
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM corpus_state WHERE key IN ('generation', 'chunks', ?)`, vectorsKey(fingerprint))
	if err != nil {
		return f, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return f, err
		}
		switch k {
		case "generation":
			f.Generation = v
		case "chunks":
			f.Chunks = int(v)
		default:
			f.Vectors = int(v)
		}
	}
	return f, rows.Err()
}

// CorpusCounts returns the number of chunks and of chunks with a vector in
// the given space.
func (s *Store) CorpusCounts(ctx context.Context, fingerprint string) (chunks, vectors int, err error) {
	f, err := s.CorpusFacts(ctx, fingerprint)
	return f.Chunks, f.Vectors, err
}

// VectorBlock is one stored block of vectors: ids[i] owns the dim
// little-endian float32s at vecs[4*dim*i:].
type VectorBlock struct {
	SourceID int64
	IDs      []int64
	Vecs     []byte
}

// EachVectorBlock streams the blocks of one space (optionally of some
// sources) in storage order; blocks of another dimension are skipped. The
// block's slices are only valid during fn.
func (s *Store) EachVectorBlock(ctx context.Context, fingerprint string, dim int, sourceIDs []int64, fn func(VectorBlock) error) error {
	q := `SELECT source_id, n, ids, vecs FROM corpus_vector_blocks WHERE fingerprint = ?`
	args := []any{fingerprint}
	if len(sourceIDs) > 0 {
		q += ` AND source_id IN (` + placeholders(len(sourceIDs)) + `)`
		for _, id := range sourceIDs {
			args = append(args, id)
		}
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids []int64
	var idb, vb sql.RawBytes
	for rows.Next() {
		var b VectorBlock
		var n int
		if err := rows.Scan(&b.SourceID, &n, &idb, &vb); err != nil {
			return err
		}
		if n <= 0 || len(idb) != 8*n || len(vb) != 4*dim*n {
			continue
		}
		ids = ids[:0]
		for i := 0; i < n; i++ {
			ids = append(ids, int64(binary.BigEndian.Uint64(idb[8*i:])))
		}
		b.IDs, b.Vecs = ids, vb
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CorpusVectors loads the vectors of one embedding space into one
// contiguous slice (ids[i] owns flat[i*dim:(i+1)*dim]), optionally limited
// to some sources. Vectors of another dimension are skipped.
func (s *Store) CorpusVectors(ctx context.Context, fingerprint string, dim int, sourceIDs []int64) ([]int64, []float32, error) {
	var ids []int64
	var flat []float32
	err := s.EachVectorBlock(ctx, fingerprint, dim, sourceIDs, func(b VectorBlock) error {
		ids = append(ids, b.IDs...)
		flat = DecodeVectorInto(flat, b.Vecs)
		return nil
	})
	return ids, flat, err
}

// SourcesMissingVectors returns up to limit sources that have chunks but
// no vectors in the space, for re-embedding from stored text.
func (s *Store) SourcesMissingVectors(ctx context.Context, fingerprint string, limit int) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.id FROM corpus_sources s
		WHERE EXISTS (SELECT 1 FROM corpus_chunks c WHERE c.source_id = s.id)
		AND NOT EXISTS (SELECT 1 FROM corpus_vector_blocks b WHERE b.source_id = s.id AND b.fingerprint = ?) ORDER BY s.id LIMIT ?`, fingerprint, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// PutSourceVectors stores the vectors of one source's chunks (ids[i] owns
// vecs[i]; every chunk of the source) in one transaction, replacing any
// it had in that space.
func (s *Store) PutSourceVectors(ctx context.Context, fingerprint string, sourceID int64, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("store: %d vectors for %d chunks", len(vecs), len(ids))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := deleteVectorBlocks(ctx, tx, sourceID, fingerprint); err != nil {
		return err
	}
	if err := putVectorBlocks(ctx, tx, sourceID, fingerprint, ids, vecs); err != nil {
		return err
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// DropOtherSpaces deletes vectors and spaces of every fingerprint except
// keep (the main space and the deep tier's): vectors from another
// embedder can never be queried again. The generation changes only when
// something was deleted, so the snapshot of a kept space stays valid.
func (s *Store) DropOtherSpaces(ctx context.Context, keep ...string) error {
	_, err := s.DropOtherSpacesCounted(ctx, keep...)
	return err
}

// DropOtherSpacesCounted is DropOtherSpaces that returns how many vectors
// it deleted in each space: when any, the generation moved by exactly
// one, and a cache of a kept space can follow it (see SourceWrite.Dropped).
func (s *Store) DropOtherSpacesCounted(ctx context.Context, keep ...string) (map[string]int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	in, args := "''", []any{}
	if len(keep) > 0 {
		in = placeholders(len(keep))
		for _, k := range keep {
			args = append(args, k)
		}
	}
	type count struct {
		fp string
		n  int
	}
	counts, err := queryAll(ctx, tx, func(r scanner) (count, error) {
		var c count
		err := r.Scan(&c.fp, &c.n)
		return c, err
	}, `SELECT fingerprint, sum(n) FROM corpus_vector_blocks WHERE fingerprint NOT IN (`+in+`) GROUP BY fingerprint`, args...)
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM corpus_vector_blocks WHERE fingerprint NOT IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	deleted, _ := res.RowsAffected()
	keys := make([]any, len(args))
	for i, k := range keep {
		keys[i] = vectorsKey(k)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM corpus_state WHERE key LIKE 'vectors %' AND key NOT IN (`+in+`)`, keys...); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM embedding_space WHERE fingerprint NOT IN (`+in+`)`, args...); err != nil {
		return nil, err
	}
	dropped := map[string]int{}
	if deleted > 0 {
		if err := bumpGeneration(ctx, tx); err != nil {
			return nil, err
		}
		for _, c := range counts {
			dropped[c.fp] = c.n
		}
	}
	return dropped, tx.Commit()
}

// VectorStorage returns the bytes the vector table takes in the database
// file (its pages, from dbstat) and the raw bytes of the vectors in it,
// for benchmarks and size reports.
func (s *Store) VectorStorage(ctx context.Context) (stored, raw int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = 'corpus_vector_blocks'`).Scan(&stored)
	if err != nil {
		return 0, 0, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT coalesce(sum(length(vecs)), 0) FROM corpus_vector_blocks`).Scan(&raw)
	return stored, raw, err
}
