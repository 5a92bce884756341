-- Vectors packed per document: one row holds the vectors of up to ~256 KB
-- of consecutive chunks of one source, so a 2 KB vector no longer takes a whole
-- 4 KB page (each old row did: two never fit in one page). Large rows go
-- to overflow pages, which SQLite fills completely: the vectors now take
-- ~1.0× their raw bytes on disk instead of ~2×, and loading a space reads
-- half the pages. ids holds the n chunk ids as big-endian int64 (what
-- unhex(printf('%016x')) gives here), vecs the n vectors as little-endian
-- float32, in the same order. SQLite stays the source of truth; the
-- vector snapshot file is a cache built from these rows.
CREATE TABLE corpus_vector_blocks (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES corpus_sources(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    n           INTEGER NOT NULL,
    ids         BLOB NOT NULL,
    vecs        BLOB NOT NULL
);
CREATE INDEX corpus_vector_blocks_source ON corpus_vector_blocks(source_id);
-- Covers per-space counts without reading the blobs.
CREATE INDEX corpus_vector_blocks_fp ON corpus_vector_blocks(fingerprint, n);

-- Blocks of about 256 KB (as the store writes them): max(8, 262144/bytes
-- per vector) consecutive chunks of a source each.
INSERT INTO corpus_vector_blocks (source_id, fingerprint, n, ids, vecs)
SELECT source_id, fingerprint, count(*),
       CAST(group_concat(idb, '' ORDER BY chunk_id) AS BLOB),
       CAST(group_concat(vec, '' ORDER BY chunk_id) AS BLOB)
FROM (SELECT c.source_id, v.fingerprint, v.chunk_id, unhex(printf('%016x', v.chunk_id)) AS idb, v.vec,
             (row_number() OVER (PARTITION BY c.source_id, v.fingerprint ORDER BY v.chunk_id) - 1)
                 / max(8, 262144 / max(1, length(v.vec))) AS part
      FROM corpus_vectors v JOIN corpus_chunks c ON c.id = v.chunk_id)
GROUP BY source_id, fingerprint, part;

DROP TABLE corpus_vectors;

-- Counts read on every query are kept here, maintained by every write,
-- instead of count(*) scans (≈50 ms each at a million chunks).
INSERT OR REPLACE INTO corpus_state (key, value) VALUES ('chunks', (SELECT count(*) FROM corpus_chunks));
INSERT OR REPLACE INTO corpus_state (key, value)
    SELECT 'vectors ' || fingerprint, sum(n) FROM corpus_vector_blocks GROUP BY fingerprint;
UPDATE corpus_state SET value = value + 1 WHERE key = 'generation';
