-- User memory: short facts about the user recalled into later answers.
-- session_id NULL = global; a session's memories go with the session.
-- embedding is a little-endian float32 vector written by the embedder named
-- in embedding_model; rows whose fingerprint differs from the current
-- embedder are re-embedded from text, never compared across spaces.
CREATE TABLE memories (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
    text            TEXT NOT NULL,
    tags            TEXT NOT NULL DEFAULT '[]',
    embedding       BLOB,
    embedding_model TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX memories_session ON memories(session_id, id);

-- External-content FTS5 index over the text, kept in step by triggers.
CREATE VIRTUAL TABLE memories_fts USING fts5(
    text,
    content = 'memories',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
END;
