-- The version of the extractor (per format) that produced a document's
-- text and chunks. Re-ingesting an unchanged file skips it only when its
-- version is current, so an upgrade that reads a format better (PDF form
-- values, column order) re-extracts those files once. Documents ingested
-- before this column existed count as version 0: re-read on their next
-- ingest.
ALTER TABLE corpus_sources ADD COLUMN extractor_version INTEGER NOT NULL DEFAULT 0;
