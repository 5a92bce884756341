-- Research corpus: ingested documents, their chunks, an FTS5 index over the
-- chunks (external content, kept in sync by triggers), embedding spaces with
-- their fingerprint and canary, chunk vectors as little-endian float32
-- BLOBs (the source of truth; in-memory indexes are built from them) and
-- session-scoped research findings.
CREATE TABLE corpus_sources (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    format      TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime       TEXT NOT NULL DEFAULT '',
    content     TEXT NOT NULL,
    sections    TEXT NOT NULL DEFAULT '[]',
    status      TEXT NOT NULL DEFAULT 'complete',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE corpus_chunks (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES corpus_sources(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    section_id  TEXT NOT NULL DEFAULT '',
    section     TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL,
    UNIQUE (source_id, idx)
);

CREATE VIRTUAL TABLE corpus_chunks_fts USING fts5(
    text, title, section,
    content = 'corpus_chunks', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Per-term document counts of the chunk index, read to drop terms too
-- common to rank anything from OR queries (they dominate query time).
CREATE VIRTUAL TABLE corpus_chunks_vocab USING fts5vocab(corpus_chunks_fts, row);

CREATE TRIGGER corpus_chunks_ai AFTER INSERT ON corpus_chunks BEGIN
    INSERT INTO corpus_chunks_fts(rowid, text, title, section) VALUES (new.id, new.text, new.title, new.section);
END;
CREATE TRIGGER corpus_chunks_ad AFTER DELETE ON corpus_chunks BEGIN
    INSERT INTO corpus_chunks_fts(corpus_chunks_fts, rowid, text, title, section) VALUES ('delete', old.id, old.text, old.title, old.section);
END;
CREATE TRIGGER corpus_chunks_au AFTER UPDATE ON corpus_chunks BEGIN
    INSERT INTO corpus_chunks_fts(corpus_chunks_fts, rowid, text, title, section) VALUES ('delete', old.id, old.text, old.title, old.section);
    INSERT INTO corpus_chunks_fts(rowid, text, title, section) VALUES (new.id, new.text, new.title, new.section);
END;

CREATE TABLE embedding_space (
    fingerprint TEXT PRIMARY KEY,
    spec_json   TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    probe_vec   BLOB,
    state       TEXT NOT NULL DEFAULT 'ready',
    fts_tokenizer TEXT NOT NULL DEFAULT 'unicode61 remove_diacritics 2',
    created_at  TEXT NOT NULL
);

-- One vector per chunk, keyed by the chunk id so loading a space is one
-- sequential scan (2 KB rows fit in a page; no index lookups). The
-- fingerprint says which embedder made it: a query only uses vectors of
-- the active space, and reindex replaces the others.
CREATE TABLE corpus_vectors (
    chunk_id    INTEGER PRIMARY KEY REFERENCES corpus_chunks(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    vec         BLOB NOT NULL
);
-- Counting a space's vectors must not read every 2 KB row.
CREATE INDEX corpus_vectors_fp ON corpus_vectors(fingerprint);

CREATE TABLE corpus_findings (
    id           INTEGER PRIMARY KEY,
    session_id   INTEGER NOT NULL DEFAULT 0,
    finding      TEXT NOT NULL,
    source_url   TEXT NOT NULL DEFAULT '',
    source_title TEXT NOT NULL DEFAULT '',
    tags         TEXT NOT NULL DEFAULT '[]',
    fingerprint  TEXT NOT NULL DEFAULT '',
    vec          BLOB,
    created_at   TEXT NOT NULL
);
CREATE INDEX corpus_findings_session ON corpus_findings(session_id);

-- A counter bumped by every corpus write, so caches built from the corpus
-- (the vector snapshot file) can tell they are stale.
CREATE TABLE corpus_state (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO corpus_state (key, value) VALUES ('generation', 0);
