-- The usage ledger: one row per model call of any purpose (answers,
-- summaries, compaction, extraction, embeddings), kept apart from turns so
-- deleting history never rewrites what was spent. cost_usd is NULL when
-- the model has no configured prices: tokens only, never a guessed cost.
CREATE TABLE usage_events (
    id                 INTEGER PRIMARY KEY,
    at_ms              INTEGER NOT NULL,
    session_id         INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
    model              TEXT NOT NULL,
    purpose            TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL DEFAULT 0,
    completion_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL,
    estimated          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX usage_events_at ON usage_events(at_ms);
