package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	Sections   string
	Chars      int64
	ChunkCount int
	CreatedAt  time.Time
	UpdatedAt  time.Time
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

// EmbeddingSpace is a stored embedder identity.
type EmbeddingSpace struct {
	Fingerprint string
	SpecJSON    string
	Dim         int
	Probe       []float32
	State       string
}

// EncodeVector packs v as little-endian float32.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVectorInto appends the float32s in b to dst.
func DecodeVectorInto(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
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

const sourceCols = `SELECT s.id, s.path, s.title, s.format, s.sha256, s.size, s.mtime, s.sections, length(s.content),
	(SELECT count(*) FROM corpus_chunks c WHERE c.source_id = s.id), s.created_at, s.updated_at FROM corpus_sources s`

func (s *Store) scanSource(r scanner) (*CorpusSource, error) {
	var src CorpusSource
	var created, updated string
	err := r.Scan(&src.ID, &src.Path, &src.Title, &src.Format, &src.SHA256, &src.Size, &src.MTime, &src.Sections,
		&src.Chars, &src.ChunkCount, &created, &updated)
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
			res, err := tx.ExecContext(ctx, `INSERT INTO corpus_sources (path, title, format, sha256, size, mtime, content, sections, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?)`,
				src.Path, src.Title, src.Format, src.SHA256, src.Size, src.MTime, src.Content, src.Sections, now, now)
			if err != nil {
				return nil, err
			}
			id, _ = res.LastInsertId()
		case err != nil:
			return nil, err
		default:
			docs[i].Replaced = true
			if err := deleteChunks(ctx, tx, id); err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE corpus_sources SET title=?, format=?, sha256=?, size=?, mtime=?, content=?, sections=?, status='complete', updated_at=? WHERE id=?`,
				src.Title, src.Format, src.SHA256, src.Size, src.MTime, src.Content, src.Sections, now, id); err != nil {
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

func deleteChunks(ctx context.Context, tx *sql.Tx, sourceID int64) error {
	if err := deleteVectorBlocks(ctx, tx, sourceID, ""); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM corpus_chunks WHERE source_id = ?`, sourceID)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	return addState(ctx, tx, "chunks", -int(n))
}

// DeleteCorpusSource removes a source with its chunks, FTS rows and vectors.
func (s *Store) DeleteCorpusSource(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteChunks(ctx, tx, id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM corpus_sources WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

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
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FTSHit
	for rows.Next() {
		var h FTSHit
		if err := rows.Scan(&h.ChunkID, &h.BM25); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
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

// EmbeddingSpace returns a stored space.
func (s *Store) EmbeddingSpace(ctx context.Context, fingerprint string) (*EmbeddingSpace, error) {
	var sp EmbeddingSpace
	var probe []byte
	err := s.db.QueryRowContext(ctx, `SELECT fingerprint, spec_json, dim, probe_vec, state FROM embedding_space WHERE fingerprint = ?`, fingerprint).
		Scan(&sp.Fingerprint, &sp.SpecJSON, &sp.Dim, &probe, &sp.State)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sp.Probe = DecodeVectorInto(nil, probe)
	return &sp, nil
}

// EmbeddingSpaces lists every stored space.
func (s *Store) EmbeddingSpaces(ctx context.Context) ([]EmbeddingSpace, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT fingerprint, spec_json, dim, state FROM embedding_space ORDER BY created_at`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EmbeddingSpace
	for rows.Next() {
		var sp EmbeddingSpace
		if err := rows.Scan(&sp.Fingerprint, &sp.SpecJSON, &sp.Dim, &sp.State); err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// PutEmbeddingSpace creates or updates a space.
func (s *Store) PutEmbeddingSpace(ctx context.Context, sp EmbeddingSpace) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO embedding_space (fingerprint, spec_json, dim, probe_vec, state, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(fingerprint) DO UPDATE SET spec_json=excluded.spec_json, dim=excluded.dim, probe_vec=excluded.probe_vec, state=excluded.state`,
		sp.Fingerprint, sp.SpecJSON, sp.Dim, EncodeVector(sp.Probe), sp.State, s.ts())
	return err
}

// CorpusFTSCheck runs FTS5's integrity-check on the chunk index.
func (s *Store) CorpusFTSCheck(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO corpus_chunks_fts(corpus_chunks_fts) VALUES ('integrity-check')`)
	return err
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

// Finding is a fact the model saved during a research session.
type Finding struct {
	ID          int64
	SessionID   int64
	Text        string
	SourceURL   string
	SourceTitle string
	Tags        string // JSON array
	Fingerprint string
	Vec         []float32
	CreatedAt   time.Time
}

// AddFinding stores a finding.
func (s *Store) AddFinding(ctx context.Context, f *Finding) (int64, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO corpus_findings (session_id, finding, source_url, source_title, tags, fingerprint, vec, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		f.SessionID, f.Text, f.SourceURL, f.SourceTitle, f.Tags, f.Fingerprint, EncodeVector(f.Vec), s.ts())
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Findings returns the findings of a session (0 = one-shot findings).
func (s *Store) Findings(ctx context.Context, sessionID int64) ([]Finding, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, session_id, finding, source_url, source_title, tags, fingerprint, vec, created_at FROM corpus_findings WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Finding
	for rows.Next() {
		var f Finding
		var vec []byte
		var created string
		if err := rows.Scan(&f.ID, &f.SessionID, &f.Text, &f.SourceURL, &f.SourceTitle, &f.Tags, &f.Fingerprint, &vec, &created); err != nil {
			return nil, err
		}
		f.Vec = DecodeVectorInto(nil, vec)
		f.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, f)
	}
	return out, rows.Err()
}

// scanChunk scans the chunk columns id, source_id, idx, section_id,
// section, title, text.
func scanChunk(r scanner) (CorpusChunk, error) {
	var c CorpusChunk
	err := r.Scan(&c.ID, &c.SourceID, &c.Index, &c.SectionID, &c.Section, &c.Title, &c.Text)
	return c, err
}
