-- Sessions and history search: a full-text index over every turn's question
-- and answer (external content, kept in sync by triggers, so the text is
-- stored once), and an index for listing sessions by recent use.
CREATE VIRTUAL TABLE turns_fts USING fts5(
    query, answer,
    content = 'turns', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO turns_fts(turns_fts) VALUES ('rebuild');
-- A match in the question weighs twice a match in the answer.
INSERT INTO turns_fts(turns_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0)');

CREATE TRIGGER turns_fts_ai AFTER INSERT ON turns BEGIN
    INSERT INTO turns_fts(rowid, query, answer) VALUES (new.id, new.query, new.answer);
END;
CREATE TRIGGER turns_fts_ad AFTER DELETE ON turns BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, query, answer) VALUES ('delete', old.id, old.query, old.answer);
END;
CREATE TRIGGER turns_fts_au AFTER UPDATE OF query, answer ON turns BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, query, answer) VALUES ('delete', old.id, old.query, old.answer);
    INSERT INTO turns_fts(rowid, query, answer) VALUES (new.id, new.query, new.answer);
END;

CREATE INDEX sessions_last_used ON sessions(last_used_at, id);
-- One-shot turns newest first, for the history browser's lazy pages.
CREATE INDEX turns_oneshot ON turns(created_at, id) WHERE session_id IS NULL;
