-- Memories saved in a turn that had read untrusted content (a fetched
-- page, a document, search snippets) carry where it came from and stay
-- unconfirmed until the user confirms them: they are recalled only in
-- their own session (never globally), and a later save never merges
-- into a confirmed memory.
ALTER TABLE memories ADD COLUMN provenance TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;
