-- Files that failed to ingest, with a fingerprint of the file (size,
-- mtime, reason) when they failed: a rerun that fails on the same
-- unchanged file reports it as "unchanged (failed before)" instead of a
-- new failure. A file that later ingests has its row removed.
CREATE TABLE corpus_failures (
    path        TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    reason      TEXT NOT NULL,
    failed_at   INTEGER NOT NULL
);
