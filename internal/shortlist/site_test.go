package shortlist

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/search"
)

// siteIP is the loopback address the guarded client is told to allow in
// tests (the guard stays on for everything else).
const siteIP = "127.0.0.2"

// paragraph repeats a sentence into an article body long enough to pass
// min_content_chars and short_text_threshold.
func paragraph(sentence string, n int) string {
	return strings.Repeat("<p>"+sentence+"</p>\n", n)
}

func htmlPage(title, body string) string {
	return "<html><head><title>" + title + "</title></head><body><article><h1>" + title + "</h1>" + body + "</article></body></html>"
}

// fakeSite serves a relevant article, an unrelated one, and the bad
// cases: a tiny page, a 10 MB binary, a redirect loop, a slow host and an
// HTTP 500.
func fakeSite(t testing.TB, extra func(mux *http.ServeMux)) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", siteIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	serve := func(path, html string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	serve("/raft-leader-election", htmlPage("How Raft leader election works",
		paragraph("Raft consensus elects a leader with randomized election timeouts. When a network partition splits the cluster, "+
			"the minority side cannot elect a leader because it lacks a quorum, so in-flight writes stall until the partition heals.", 8)))
	serve("/pasta", htmlPage("Fresh pasta at home",
		paragraph("Knead flour and eggs into a smooth dough, rest it for thirty minutes, then roll it thin and cut tagliatelle. "+
			"Cook the pasta in salted boiling water for two minutes and toss it with butter and parmesan.", 8)))
	serve("/tag/raft", htmlPage("Posts tagged raft",
		paragraph("Raft consensus leader election partition quorum: list of posts tagged raft consensus.", 8)))
	serve("/tiny", htmlPage("Tiny", "<p>Raft.</p>"))
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		buf := make([]byte, 1<<20)
		for i := range buf {
			buf[i] = byte(i)
		}
		for range 10 {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	if extra != nil {
		extra(mux)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// guardedFetcher is the production fetcher with 127.0.0.2 allowed.
func guardedFetcher(t testing.TB) *fetch.Fetcher {
	t.Helper()
	c, err := fetch.NewClient(fetch.Options{AllowHosts: []string{siteIP}, Timeout: 5 * time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &fetch.Fetcher{Client: c}
}

// fakeSearch returns fixed hits for every query, or fails.
type fakeSearch struct {
	hits    []search.Result
	err     error
	delay   time.Duration
	mu      sync.Mutex
	queries []string
	counts  []int
}

func (f *fakeSearch) Search(ctx context.Context, q string, count int) ([]search.Result, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.counts = append(f.counts, count)
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.hits, nil
}

func hits(base string, paths ...string) []search.Result {
	var out []search.Result
	for _, p := range paths {
		out = append(out, search.Result{URL: base + p, Title: strings.Trim(p, "/"), Snippet: "snippet of " + p})
	}
	return out
}

// errEmbedder always fails, to show ranking falls back to keyphrases.
type errEmbedder struct{}

func (errEmbedder) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedder down")
}
func (errEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return nil, errors.New("embedder down")
}

// bagEmbedder is a tiny deterministic bag-of-words embedder: each word
// hashes to one of 64 dimensions.
type bagEmbedder struct{}

func (bagEmbedder) vec(s string) []float32 {
	v := make([]float32, 64)
	for _, t := range tokenize(s) {
		if t.stop {
			continue
		}
		h := 0
		for _, c := range t.word {
			h = h*31 + int(c)
		}
		v[(h%64+64)%64]++
	}
	return v
}

func (b bagEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = b.vec(t)
	}
	return out, nil
}
func (b bagEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return b.vec(text), nil
}
