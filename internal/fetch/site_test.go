package fetch

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// publicIP is where the fake "public internet" listens; it is the only
// loopback address the guard is told to allow (reliability.md §3.2).
const publicIP = "127.0.0.2"

// fakeSite serves articles, a portal, redirects and traps.
type fakeSite struct {
	srv      *httptest.Server
	internal *httptest.Server // on 127.0.0.1: must never be reached
	hits     map[string]int
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFakeSite(t testing.TB) *fakeSite {
	t.Helper()
	fs := &fakeSite{hits: map[string]int{}}
	fs.internal = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.hits["internal"]++
		fmt.Fprint(w, "<html><body><p>internal secret</p></body></html>")
	}))
	t.Cleanup(fs.internal.Close)
	internalPort := fs.internal.Listener.Addr().(*net.TCPAddr).Port

	article := readFixture(t, "article.html")
	portal := readFixture(t, "portal.html")
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(article)
	})
	mux.HandleFunc("/portal", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(portal)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain text body\nline two")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<html><head><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e is a dessert served cold with a caramel top.</p></body></html>"))
	})
	mux.HandleFunc("/invalid-utf8", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("good \xff\xfe bad \x00 nul \x1b[31mred"))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4\n"))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := bytes.Repeat([]byte("lorem ipsum "), 1000)
		for i := 0; i < 2000; i++ { // ~24 MB, endless enough
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/gzip-bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		zeros := make([]byte, 1<<20)
		for i := range zeros {
			zeros[i] = 'a'
		}
		for i := 0; i < 512; i++ { // 512 MB decompressed
			if _, err := gz.Write(zeros); err != nil {
				return
			}
		}
		gz.Close()
	})
	mux.HandleFunc("/deep", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(deepHTML(20000))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/404", http.NotFound)
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article", http.StatusFound)
	})
	mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/", internalPort), http.StatusFound)
	})
	mux.HandleFunc("/to-localhost", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://localhost:%d/", internalPort), http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		fs.hits["loop"]++
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	ln, err := net.Listen("tcp", publicIP+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", publicIP, err)
	}
	fs.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	fs.srv.Start()
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fakeSite) url(path string) string { return fs.srv.URL + path }

func (fs *fakeSite) internalURL() string { return fs.internal.URL + "/" }

func deepHTML(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<html><body>")
	b.WriteString(strings.Repeat("<div>", n))
	b.WriteString("deep text")
	b.WriteString(strings.Repeat("</div>", n))
	b.WriteString("</body></html>")
	return b.Bytes()
}

// testClient allows only the fake public site.
func testClient(t testing.TB, mod ...func(*Options)) *Client {
	t.Helper()
	o := Options{AllowHosts: []string{publicIP}, Timeout: 2 * time.Second, ConnectTimeout: time.Second, MaxBodyBytes: 1 << 20}
	for _, m := range mod {
		m(&o)
	}
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
