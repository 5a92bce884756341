package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// webTimeLayout has fixed-width fractions so stored times sort as text.
const webTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// WebPage is a cached, extracted web page keyed by its normalized URL.
type WebPage struct {
	URLKey      string
	FinalURL    string
	Title       string
	Byline      string
	Published   string
	PageType    string
	Content     string
	Links       []WebLink
	Truncated   bool
	ContentHash string
	FetchedAt   time.Time
}

// WebLink is one outgoing link of a cached page.
type WebLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// GetWebPage returns the cached page for key if it was fetched within
// maxAge, or (nil, nil) when there is no fresh entry.
func (s *Store) GetWebPage(ctx context.Context, key string, maxAge time.Duration) (*WebPage, error) {
	var p WebPage
	var links, fetched string
	var trunc int
	err := s.db.QueryRowContext(ctx, `SELECT url_key, final_url, title, byline, published, page_type, content,
		links, truncated, content_hash, fetched_at FROM web_pages WHERE url_key = ?`, key).Scan(
		&p.URLKey, &p.FinalURL, &p.Title, &p.Byline, &p.Published, &p.PageType, &p.Content,
		&links, &trunc, &p.ContentHash, &fetched)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cached page: %w", err)
	}
	p.FetchedAt, err = time.Parse(time.RFC3339Nano, fetched)
	if err != nil || s.now().Sub(p.FetchedAt) > maxAge {
		return nil, nil
	}
	p.Truncated = trunc != 0
	_ = json.Unmarshal([]byte(links), &p.Links)
	return &p, nil
}

// PutWebPage inserts or replaces the cached page for p.URLKey.
func (s *Store) PutWebPage(ctx context.Context, p *WebPage) error {
	links, err := json.Marshal(p.Links)
	if err != nil {
		return err
	}
	if p.Links == nil {
		links = []byte("[]")
	}
	fetched := p.FetchedAt
	if fetched.IsZero() {
		fetched = s.now()
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO web_pages (url_key, final_url, title, byline, published, page_type,
		content, links, truncated, content_hash, fetched_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(url_key) DO UPDATE SET final_url=excluded.final_url, title=excluded.title,
		byline=excluded.byline, published=excluded.published, page_type=excluded.page_type,
		content=excluded.content, links=excluded.links, truncated=excluded.truncated,
		content_hash=excluded.content_hash, fetched_at=excluded.fetched_at`,
		p.URLKey, p.FinalURL, p.Title, p.Byline, p.Published, p.PageType, p.Content, string(links),
		webBool(p.Truncated), p.ContentHash, fetched.UTC().Format(webTimeLayout))
	if err != nil {
		return fmt.Errorf("cache page: %w", err)
	}
	return nil
}

// PruneWebPages deletes pages fetched longer than maxAge ago and returns
// how many were removed.
func (s *Store) PruneWebPages(ctx context.Context, maxAge time.Duration) (int64, error) {
	cutoff := s.now().Add(-maxAge).UTC().Format(webTimeLayout)
	res, err := s.db.ExecContext(ctx, `DELETE FROM web_pages WHERE fetched_at < ?`, cutoff)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func webBool(b bool) int {
	if b {
		return 1
	}
	return 0
}
