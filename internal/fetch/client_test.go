package fetch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestClientGetArticle(t *testing.T) {
	site := newFakeSite(t)
	resp, err := testClient(t).Get(context.Background(), site.url("/redirect"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(resp.FinalURL, "/article") || resp.MediaType != "text/html" {
		t.Fatalf("final %s type %s", resp.FinalURL, resp.MediaType)
	}
	if !strings.Contains(string(resp.Body), "Understanding Go Iterators") {
		t.Fatal("body missing")
	}
}

func TestClientFaults(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t, func(o *Options) { o.Timeout = 500 * time.Millisecond })
	ctx := context.Background()
	cases := []struct {
		path string
		want string
	}{
		{"/404", "HTTP 404"},
		{"/500", "HTTP 500"},
		{"/loop", "too many redirects"},
		{"/slow", "timed out"},
		{"/binary", "binary"},
		{"/image", "unsupported content type image/png"},
		{"/pdf", "PDF"},
	}
	for _, tc := range cases {
		t0 := time.Now()
		_, err := c.Get(ctx, site.url(tc.path))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.path, err, tc.want)
		}
		if d := time.Since(t0); d > 3*time.Second {
			t.Errorf("%s took %s", tc.path, d)
		}
	}
	if site.hits["loop"] > 6 {
		t.Errorf("redirect loop followed %d times", site.hits["loop"])
	}
	var he *HTTPError
	if _, err := c.Get(ctx, site.url("/404")); !errors.As(err, &he) || he.Status != 404 {
		t.Errorf("404 not an HTTPError: %v", err)
	}
}

func TestClientDNSFailure(t *testing.T) {
	c := testClient(t)
	_, err := c.Get(context.Background(), "http://no-such-host.invalid/")
	if err == nil {
		t.Fatal("fetched an .invalid host")
	}
}

func TestClientBodyCaps(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t, func(o *Options) { o.MaxBodyBytes = 1 << 20; o.Timeout = 10 * time.Second })
	for _, p := range []string{"/huge", "/gzip-bomb"} {
		t0 := time.Now()
		resp, err := c.Get(context.Background(), site.url(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !resp.Truncated || len(resp.Body) != 1<<20 {
			t.Errorf("%s: truncated=%v len=%d, want capped at 1 MiB", p, resp.Truncated, len(resp.Body))
		}
		if d := time.Since(t0); d > 3*time.Second {
			t.Errorf("%s took %s", p, d)
		}
	}
}

func TestClientDecoding(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t)
	resp, err := c.Get(context.Background(), site.url("/latin1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.Body), "Crème brûlée") {
		t.Errorf("latin-1 not decoded: %q", resp.Body)
	}
	resp, err = c.Get(context.Background(), site.url("/invalid-utf8"))
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(resp.Body) || strings.ContainsRune(string(resp.Body), 0) {
		t.Errorf("body not cleaned: %q", resp.Body)
	}
	resp, err = c.Get(context.Background(), site.url("/empty"))
	if err != nil {
		t.Fatalf("empty page: %v", err)
	}
	if len(resp.Body) != 0 {
		t.Errorf("empty page body %q", resp.Body)
	}
}

func TestEffectiveType(t *testing.T) {
	cases := []struct {
		header string
		body   string
		want   string
		ok     bool
	}{
		{"text/html; charset=utf-8", "<html><body>x</body></html>", "text/html", true},
		{"", "<!DOCTYPE html><html>", "text/html", true},
		{"application/octet-stream", "plain words", "text/plain", true},
		{"application/json", `{"a":1}`, "application/json", true},
		{"application/rss+xml", "<rss></rss>", "application/rss+xml", true},
		{"text/html", "\x00\x01\x02\x03binary", "", false},
		{"image/jpeg", "\xff\xd8\xff", "", false},
		{"", "\x1f\x8b\x08\x00", "", false},
		{"application/zip", "PK\x03\x04", "", false},
	}
	for _, tc := range cases {
		got, err := EffectiveType(tc.header, []byte(tc.body))
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("EffectiveType(%q, %q) = %q, %v; want %q ok=%v", tc.header, tc.body, got, err, tc.want, tc.ok)
		}
	}
}

func TestNewClientRejectsBadConfig(t *testing.T) {
	if _, err := NewClient(Options{AllowHosts: []string{"http://bad/"}}); err == nil {
		t.Error("bad allow_hosts accepted")
	}
	if _, err := NewClient(Options{Proxy: "::"}); err == nil {
		t.Error("bad proxy accepted")
	}
}
