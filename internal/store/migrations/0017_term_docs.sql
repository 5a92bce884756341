-- Document frequencies of query terms, cached per corpus generation:
-- counting a common term's chunks reads its whole doclist (tens of
-- milliseconds at a million chunks), and the same terms come back query
-- after query. A row whose generation is not the corpus's is stale and is
-- recounted (and replaced) by the next query that needs it.
CREATE TABLE corpus_term_docs (
    term        TEXT PRIMARY KEY,
    generation  INTEGER NOT NULL,
    doc         INTEGER NOT NULL
) WITHOUT ROWID;
