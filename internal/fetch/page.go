package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"
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
	// Budget bounds the network fetches of one question; nil = none.
	Budget *Budget
}

// Budget bounds what one question may download, so a model following
// links in a loop cannot fetch without end. Pages from the cache are free.
// It is safe for concurrent use (tools fetch in parallel).
type Budget struct {
	MaxPages int   // 0 = no limit
	MaxBytes int64 // response body bytes; 0 = no limit

	mu    sync.Mutex
	pages int
	bytes int64
}

// BudgetError says the question's fetch budget is used up.
type BudgetError struct {
	Pages int
	Bytes int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("fetch budget for this question used up (%d pages, %.1f MB fetched; [fetch] max_pages_per_turn / max_bytes_per_turn): answer with what you have", e.Pages, float64(e.Bytes)/(1<<20))
}

// take reserves one page, or fails when the budget is spent.
func (b *Budget) take() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if (b.MaxPages > 0 && b.pages >= b.MaxPages) || (b.MaxBytes > 0 && b.bytes >= b.MaxBytes) {
		return &BudgetError{Pages: b.pages, Bytes: b.bytes}
	}
	b.pages++
	return nil
}

func (b *Budget) add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.bytes += int64(n)
	b.mu.Unlock()
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
	if err := f.Budget.take(); err != nil {
		return nil, err
	}
	resp, err := f.Client.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	f.Budget.add(len(resp.Body))
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
