package fetch

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkExtract measures extraction throughput over the committed
// pages (written for these tests, not copied from real sites).
func BenchmarkExtract(b *testing.B) {
	names := []string{"article.html", "docs.html", "news.html", "portal.html"}
	var pages [][]byte
	total := 0
	for _, n := range names {
		p := readFixture(b, n)
		pages = append(pages, p)
		total += len(p)
	}
	base := mustURL("https://bench.example/x/")
	b.SetBytes(int64(total))
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		for _, p := range pages {
			ExtractHTML(p, base)
		}
	}
	secs := time.Since(t0).Seconds()
	b.ReportMetric(float64(b.N*len(pages))/secs, "pages/s")
	b.ReportMetric(float64(b.N*total)/secs/1e6, "MB/s")
}

// BenchmarkExtractDeep measures the pre-scan fallback on a 20,000-deep page.
func BenchmarkExtractDeep(b *testing.B) {
	doc := deepHTML(20000)
	for i := 0; i < b.N; i++ {
		ExtractHTML(doc, nil)
	}
}

// BenchmarkGuardedVsPlain compares a guarded fetch with a plain client
// on loopback (goal: guarded ≤ 1.1× plain). Both reuse connections.
func BenchmarkGuardedVsPlain(b *testing.B) {
	ln, err := net.Listen("tcp", publicIP+":0")
	if err != nil {
		b.Fatal(err)
	}
	body := readFixture(b, "article.html")
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	})}}
	srv.Start()
	defer srv.Close()
	guarded := testClient(b)
	plain := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	ctx := context.Background()
	runPlain := func() {
		resp, err := plain.Get(srv.URL + "/a")
		if err != nil {
			b.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	runGuarded := func() {
		if _, err := guarded.Get(ctx, srv.URL+"/a"); err != nil {
			b.Fatal(err)
		}
	}
	runPlain()
	runGuarded()
	// Alternate the two per request so machine noise hits both alike.
	var p, g time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		runPlain()
		t1 := time.Now()
		runGuarded()
		g += time.Since(t1)
		p += t1.Sub(t0)
	}
	b.ReportMetric(float64(p.Nanoseconds())/float64(b.N), "plain-ns/req")
	b.ReportMetric(float64(g.Nanoseconds())/float64(b.N), "guarded-ns/req")
	b.ReportMetric(float64(g)/float64(p), "guarded/plain")
}

// BenchmarkGuardedNewConn includes the dial (where the guard runs).
func BenchmarkGuardedNewConn(b *testing.B) {
	ln, err := net.Listen("tcp", publicIP+":0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok")
	})}}
	srv.Start()
	defer srv.Close()
	guarded := testClient(b)
	plainTr := http.DefaultTransport.(*http.Transport).Clone()
	plainTr.DisableKeepAlives = true
	plain := &http.Client{Transport: plainTr}
	var p, g time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		resp, err := plain.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		p += time.Since(t0)
		t0 = time.Now()
		if _, err := guarded.Get(context.Background(), srv.URL); err != nil {
			b.Fatal(err)
		}
		g += time.Since(t0)
	}
	b.ReportMetric(float64(g)/float64(p), "guarded/plain")
}
