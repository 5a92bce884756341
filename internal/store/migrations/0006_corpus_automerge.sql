-- Ingest writes one FTS5 segment per document; with the default automerge
-- of 4, merging those small segments cost ~15% of bulk-ingest time. 8
-- merges half as often; bulk ingests end with 'optimize' anyway, so query
-- speed after them is unchanged.
INSERT INTO corpus_chunks_fts(corpus_chunks_fts, rank) VALUES ('automerge', 8);
