package store

// This file holds the corpus's documents: sources and their chunks, read
// by path or id and written whole (a document, its chunks, FTS rows and
// vectors in one transaction, so a crash never leaves half of one).
// Full-text search is in corpus_fts.go, embedding spaces in
// corpus_spaces.go, findings in corpus_findings.go.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CorpusSource is one ingested document.
type CorpusSource struct {
	ID     int64
	Path   string
	Title  string
	Format string
	SHA256 string
	Size   int64
	MTime  string
	// Content is the extracted text; list queries leave it empty.
	Content string
	// Sections is the JSON array of sections (offsets into Content).
	Sections string
	// ExtractorVersion is the version of the extractor for Format that
	// produced Content and the chunks (0: before versions were kept).
	ExtractorVersion int
	Chars            int64
	ChunkCount       int
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// CorpusChunk is one retrievable piece of a source.
type CorpusChunk struct {
	ID        int64
	SourceID  int64
	Index     int
	SectionID string
	Section   string
	Title     string
	Text      string
	// Filled by lookups for display.
	SourcePath string
}

// CorpusSourceByPath returns the source stored for path (without content).
func (s *Store) CorpusSourceByPath(ctx context.Context, path string) (*CorpusSource, error) {
	return s.scanSource(s.db.QueryRowContext(ctx, sourceCols+` WHERE s.path = ?`, path))
}

// CorpusSource returns a source with its content.
func (s *Store) CorpusSource(ctx context.Context, id int64) (*CorpusSource, error) {
	src, err := s.scanSource(s.db.QueryRowContext(ctx, sourceCols+` WHERE s.id = ?`, id))
	if err != nil {
		return nil, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT content FROM corpus_sources WHERE id = ?`, id).Scan(&src.Content); err != nil {
		return nil, err
	}
	return src, nil
}

const sourceCols = `SELECT s.id, s.path, s.title, s.format, s.sha256, s.size, s.mtime, s.sections, s.extractor_version, length(s.content),
	(SELECT count(*) FROM corpus_chunks c WHERE c.source_id = s.id), s.created_at, s.updated_at FROM corpus_sources s`

func (s *Store) scanSource(r scanner) (*CorpusSource, error) {
	var src CorpusSource
	var created, updated string
	err := r.Scan(&src.ID, &src.Path, &src.Title, &src.Format, &src.SHA256, &src.Size, &src.MTime, &src.Sections,
		&src.ExtractorVersion, &src.Chars, &src.ChunkCount, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	src.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	src.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return &src, nil
}

// ListCorpusSources returns every source (without content), by path.
func (s *Store) ListCorpusSources(ctx context.Context) ([]CorpusSource, error) {
	rows, err := s.db.QueryContext(ctx, sourceCols+` ORDER BY s.path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CorpusSource
	for rows.Next() {
		src, err := s.scanSource(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *src)
	}
	return out, rows.Err()
}

// SourceWrite is one document to write: its source row, chunks and (nil
// or one per chunk) vectors.
type SourceWrite struct {
	Src    *CorpusSource
	Chunks []CorpusChunk
	Vecs   [][]float32
	// Set by ReplaceCorpusSources: whether an earlier version of the
	// path was replaced, and the chunk ids that own Vecs (in order), so
	// caches of the vectors can be extended instead of rebuilt.
	Replaced bool
	ChunkIDs []int64
	// Dropped lists, per space, the chunk ids whose vectors (of the
	// replaced version) were deleted: a cache of the space's vectors
	// (a snapshot) follows the write by removing exactly those.
	Dropped map[string][]int64
}

// ReplaceCorpusSource writes a document, its chunks, their FTS rows (by
// trigger) and vectors in ONE transaction, replacing any previous version
// of the same path. A crash leaves either the old or the new document.
// vecs may be nil (no vectors for this space yet) or one per chunk.
func (s *Store) ReplaceCorpusSource(ctx context.Context, src *CorpusSource, chunks []CorpusChunk, fingerprint string, vecs [][]float32) (int64, error) {
	ids, err := s.ReplaceCorpusSources(ctx, []SourceWrite{{Src: src, Chunks: chunks, Vecs: vecs}}, fingerprint)
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// ReplaceCorpusSources writes several complete documents in ONE
// transaction (a crash keeps all or none of them, so a re-run resumes at
// a document boundary) and all their chunks in one statement: FTS5
// flushes its pending terms into a new segment at every statement
// savepoint, so a trigger-fed row-at-a-time insert made one tiny segment
// per chunk and ingest spent most of its time merging them. Vectors (no
// FTS) are then written through one prepared statement. It returns the
// source ids in order and sets each Src.ID.
func (s *Store) ReplaceCorpusSources(ctx context.Context, docs []SourceWrite, fingerprint string) ([]int64, error) {
	paths := make(map[string]bool, len(docs))
	for _, d := range docs {
		if d.Vecs != nil && len(d.Vecs) != len(d.Chunks) {
			return nil, fmt.Errorf("store: %d vectors for %d chunks", len(d.Vecs), len(d.Chunks))
		}
		if paths[d.Src.Path] {
			return nil, fmt.Errorf("store: %s twice in one write", d.Src.Path)
		}
		paths[d.Src.Path] = true
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	now := s.ts()
	ids := make([]int64, len(docs))
	for i, d := range docs {
		src := d.Src
		var id int64
		err = tx.QueryRowContext(ctx, `SELECT id FROM corpus_sources WHERE path = ?`, src.Path).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res, err := tx.ExecContext(ctx, `INSERT INTO corpus_sources (path, title, format, sha256, size, mtime, content, sections, extractor_version, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?)`,
				src.Path, src.Title, src.Format, src.SHA256, src.Size, src.MTime, src.Content, src.Sections, src.ExtractorVersion, now, now)
			if err != nil {
				return nil, err
			}
			id, _ = res.LastInsertId()
		case err != nil:
			return nil, err
		default:
			docs[i].Replaced = true
			if docs[i].Dropped, err = deleteChunks(ctx, tx, id); err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE corpus_sources SET title=?, format=?, sha256=?, size=?, mtime=?, content=?, sections=?, extractor_version=?, status='complete', updated_at=? WHERE id=?`,
				src.Title, src.Format, src.SHA256, src.Size, src.MTime, src.Content, src.Sections, src.ExtractorVersion, now, id); err != nil {
				return nil, err
			}
		}
		ids[i] = id
	}
	if err := insertChunks(ctx, tx, ids, docs, fingerprint); err != nil {
		return nil, err
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for i, d := range docs {
		d.Src.ID = ids[i]
	}
	return ids, nil
}

// insertChunks writes the chunks of all docs in one statement, then their
// vectors matched back by (source, index).
func insertChunks(ctx context.Context, tx *sql.Tx, ids []int64, docs []SourceWrite, fingerprint string) error {
	var rows [][6]any
	for i, d := range docs {
		for _, c := range d.Chunks {
			rows = append(rows, [6]any{ids[i], c.Index, c.SectionID, c.Section, c.Title, c.Text})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	payload, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO corpus_chunks (source_id, idx, section_id, section, title, text)
		SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]')
		FROM json_each(?) ORDER BY key`, string(payload)); err != nil {
		return err
	}
	if err := addState(ctx, tx, "chunks", len(rows)); err != nil {
		return err
	}
	for i, d := range docs {
		if d.Vecs == nil || len(d.Chunks) == 0 {
			continue
		}
		byIdx, err := chunkIDs(ctx, tx, ids[i])
		if err != nil {
			return err
		}
		cids := make([]int64, len(d.Chunks))
		for k, c := range d.Chunks {
			cid, ok := byIdx[c.Index]
			if !ok {
				return fmt.Errorf("store: chunk %d of source %d was not written", c.Index, ids[i])
			}
			cids[k] = cid
		}
		if err := putVectorBlocks(ctx, tx, ids[i], fingerprint, cids, d.Vecs); err != nil {
			return err
		}
		docs[i].ChunkIDs = cids
	}
	return nil
}

// chunkIDs maps a source's chunk indexes to their row ids.
func chunkIDs(ctx context.Context, tx *sql.Tx, sourceID int64) (map[int]int64, error) {
	r, err := tx.QueryContext(ctx, `SELECT idx, id FROM corpus_chunks WHERE source_id = ?`, sourceID)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := map[int]int64{}
	for r.Next() {
		var idx int
		var cid int64
		if err := r.Scan(&idx, &cid); err != nil {
			return nil, err
		}
		out[idx] = cid
	}
	return out, r.Err()
}

func deleteChunks(ctx context.Context, tx *sql.Tx, sourceID int64) (map[string][]int64, error) {
	dropped, err := deleteVectorBlocks(ctx, tx, sourceID, "")
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM corpus_chunks WHERE source_id = ?`, sourceID)
	if err != nil {
		return nil, err
	}
	n, _ := res.RowsAffected()
	return dropped, addState(ctx, tx, "chunks", -int(n))
}

// DeleteCorpusSource removes a source with its chunks, FTS rows and vectors.
func (s *Store) DeleteCorpusSource(ctx context.Context, id int64) error {
	_, err := s.RemoveCorpusSource(ctx, id)
	return err
}

// RemoveCorpusSource is DeleteCorpusSource that also returns the chunk
// ids whose vectors it deleted in each space (see SourceWrite.Dropped).
func (s *Store) RemoveCorpusSource(ctx context.Context, id int64) (map[string][]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	dropped, err := deleteChunks(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM corpus_sources WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNotFound
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return nil, err
	}
	return dropped, tx.Commit()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// CorpusChunks returns chunks by id (with their source path), in no
// particular order.
func (s *Store) CorpusChunks(ctx context.Context, ids []int64) (map[int64]CorpusChunk, error) {
	out := make(map[int64]CorpusChunk, len(ids))
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.source_id, c.idx, c.section_id, c.section, c.title, c.text, s.path
			FROM corpus_chunks c JOIN corpus_sources s ON s.id = c.source_id WHERE c.id IN (`+placeholders(len(part))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var c CorpusChunk
			if err := rows.Scan(&c.ID, &c.SourceID, &c.Index, &c.SectionID, &c.Section, &c.Title, &c.Text, &c.SourcePath); err != nil {
				rows.Close()
				return nil, err
			}
			out[c.ID] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SourceChunks returns a source's chunks in order.
func (s *Store) SourceChunks(ctx context.Context, sourceID int64) ([]CorpusChunk, error) {
	return queryAll(ctx, s.db, scanChunk, `SELECT id, source_id, idx, section_id, section, title, text FROM corpus_chunks WHERE source_id = ? ORDER BY idx`, sourceID)
}

// CheckpointWAL copies the WAL into the database and truncates it, so a
// bulk ingest does not leave a WAL as big as what it wrote. (Merging all
// FTS segments with 'optimize' here was measured: it cost 15–25% of ingest
// time and changed query time at 100k chunks by nothing measurable, since
// automerge keeps the segment count low.)
func (s *Store) CheckpointWAL(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// scanChunk scans the chunk columns id, source_id, idx, section_id,
// section, title, text.
func scanChunk(r scanner) (CorpusChunk, error) {
	var c CorpusChunk
	err := r.Scan(&c.ID, &c.SourceID, &c.Index, &c.SectionID, &c.Section, &c.Title, &c.Text)
	return c, err
}
