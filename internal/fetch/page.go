package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"
)

// Page is a fetched and extracted web page.
type Page struct {
	// URL is what was asked for; Key its normalized form (cache key).
	URL      string
	Key      string
	FinalURL string
	Title    string
	Byline   string
	Date     string
	Content  string // markdown
	Links    []Link
	PageType string
	// Truncated is set when the body or HTML hit a size cap.
	Truncated   bool
	ContentHash string
	FetchedAt   time.Time
	// Cached is true when the page came from the cache.
	Cached bool
}

// Cache stores pages by normalized URL. The store implements it through a
// small adapter; nil disables caching.
type Cache interface {
	GetPage(ctx context.Context, key string, maxAge time.Duration) (*Page, error)
	PutPage(ctx context.Context, p *Page) error
}

// Fetcher reads pages through the guarded client, extracting and caching
// them.
type Fetcher struct {
	Client *Client
	Cache  Cache
	// TTL is how long a cached page is fresh (0 disables the cache).
	TTL time.Duration
	Now func() time.Time
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// Get returns the page at rawURL, from the cache when fresh.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Page, error) {
	key, err := Normalize(rawURL)
	if err != nil {
		return nil, err
	}
	if f.Cache != nil && f.TTL > 0 {
		if p, err := f.Cache.GetPage(ctx, key, f.TTL); err == nil && p != nil {
			p.URL, p.Cached = rawURL, true
			return p, nil
		}
	}
	resp, err := f.Client.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	var ex *Extracted
	if resp.MediaType == "text/html" || resp.MediaType == "application/xhtml+xml" {
		base, _ := url.Parse(resp.FinalURL)
		ex = ExtractHTML(resp.Body, base)
	} else {
		ex = ExtractText(resp.Body)
	}
	p := &Page{
		URL: rawURL, Key: key, FinalURL: resp.FinalURL, Title: ex.Title, Byline: ex.Byline, Date: ex.Date,
		Content: ex.Content, Links: ex.Links, PageType: ex.PageType, Truncated: resp.Truncated || ex.Truncated,
		FetchedAt: f.now().UTC(),
	}
	if p.Truncated {
		p.Content += "\n\n[truncated: the page is larger than asky reads]"
	}
	sum := sha256.Sum256([]byte(p.Content))
	p.ContentHash = hex.EncodeToString(sum[:])
	if f.Cache != nil && f.TTL > 0 && strings.TrimSpace(p.Content) != "" {
		// A cache failure never fails the fetch.
		_ = f.Cache.PutPage(context.WithoutCancel(ctx), p)
	}
	return p, nil
}
