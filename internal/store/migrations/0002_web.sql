-- Web page cache: extracted pages keyed by normalized URL, with the content
-- hash (so unchanged pages can be recognised) and the fetch time for TTL.
CREATE TABLE web_pages (
    url_key      TEXT PRIMARY KEY,
    final_url    TEXT NOT NULL DEFAULT '',
    title        TEXT NOT NULL DEFAULT '',
    byline       TEXT NOT NULL DEFAULT '',
    published    TEXT NOT NULL DEFAULT '',
    page_type    TEXT NOT NULL DEFAULT 'article',
    content      TEXT NOT NULL,
    links        TEXT NOT NULL DEFAULT '[]',
    truncated    INTEGER NOT NULL DEFAULT 0,
    content_hash TEXT NOT NULL,
    fetched_at   TEXT NOT NULL
);
CREATE INDEX web_pages_fetched ON web_pages(fetched_at);
