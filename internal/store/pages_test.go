package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestWebPageCacheTTL(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	st.SetNow(func() time.Time { return now })

	if p, err := st.GetWebPage(ctx, "https://a.example/", time.Hour); err != nil || p != nil {
		t.Fatalf("empty cache: %v %v", p, err)
	}
	in := &WebPage{URLKey: "https://a.example/", FinalURL: "https://a.example/home", Title: "A", PageType: "article",
		Content: "body", Links: []WebLink{{Text: "b", URL: "https://b.example/"}}, ContentHash: "h1", FetchedAt: now}
	if err := st.PutWebPage(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetWebPage(ctx, in.URLKey, time.Hour)
	if err != nil || got == nil {
		t.Fatalf("get: %v %v", got, err)
	}
	if got.Title != "A" || got.FinalURL != in.FinalURL || len(got.Links) != 1 || got.Links[0].URL != "https://b.example/" || got.ContentHash != "h1" {
		t.Fatalf("round trip: %+v", got)
	}
	// Replace keeps one row and updates the hash.
	in.Content, in.ContentHash = "body2", "h2"
	if err := st.PutWebPage(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, _ = st.GetWebPage(ctx, in.URLKey, time.Hour)
	if got.ContentHash != "h2" || got.Content != "body2" {
		t.Fatalf("update: %+v", got)
	}
	// Two hours later the page is stale and pruned.
	now = now.Add(2 * time.Hour)
	if got, _ := st.GetWebPage(ctx, in.URLKey, time.Hour); got != nil {
		t.Fatal("stale page returned")
	}
	if n, err := st.PruneWebPages(ctx, time.Hour); err != nil || n != 1 {
		t.Fatalf("prune: %d %v", n, err)
	}
	if got, _ := st.GetWebPage(ctx, in.URLKey, 24*time.Hour); got != nil {
		t.Fatal("pruned page returned")
	}
}
