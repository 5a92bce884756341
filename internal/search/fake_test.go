package search

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

const testKey = "k-123"

// fakeResults is what every provider route returns for a normal query;
// it includes URLs that must be dropped (file:, javascript:, data:).
var fakeResults = []struct{ Title, URL, Snippet string }{
	{"Go 1.26 Release Notes", "https://go.dev/doc/go1.26", "The latest Go release, version 1.26."},
	{"Local file", "file:///etc/passwd", "must be dropped"},
	{"What's new in Go 1.26", "https://blog.example.org/go-126", strings.Repeat("long snippet ", 60)},
	{"JS", "javascript:alert(1)", "must be dropped"},
	{"Data", "data:text/html,<script>", "must be dropped"},
	{"Loopback", "http://127.0.0.1:8080/admin", "kept here; the guarded fetch blocks it later"},
	{"Dup", "https://go.dev/doc/go1.26", "duplicate"},
}

// newFakeSearch serves every provider's wire format. The query selects a
// fault: "fault:401", "fault:403", "fault:429", "fault:500", "fault:badjson",
// "fault:empty", "fault:slow", "fault:huge", "fault:anomaly", "fault:redirect".
func newFakeSearch(t *testing.T) *httptest.Server {
	t.Helper()
	fault := func(w http.ResponseWriter, r *http.Request, q string) bool {
		switch q {
		case "fault:401":
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		case "fault:403":
			http.Error(w, "Forbidden", http.StatusForbidden)
		case "fault:429":
			w.Header().Set("Retry-After", "7")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "fault:500":
			http.Error(w, "<html>oops</html>", 500)
		case "fault:badjson":
			fmt.Fprint(w, `{"results": [`)
		case "fault:slow":
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		case "fault:huge":
			w.Write([]byte(`{"results":[`))
			chunk := []byte(strings.Repeat(`{"title":"x","url":"https://x.example/","content":"y"},`, 1000))
			for i := 0; i < 200; i++ {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
		case "fault:redirect":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		default:
			return false
		}
		return true
	}
	empty := func(q string) bool { return q == "fault:empty" }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /searxng/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format", 400)
			return
		}
		if fault(w, r, q) {
			return
		}
		var res []map[string]any
		if !empty(q) {
			for _, f := range fakeResults {
				res = append(res, map[string]any{"url": f.URL, "title": f.Title, "content": f.Snippet, "engine": "google",
					"engines": []string{"google"}, "score": 1.0, "category": "general", "publishedDate": nil})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"query": q, "number_of_results": len(res), "results": res,
			"answers": []any{}, "suggestions": []any{}, "infoboxes": []any{}, "unresponsive_engines": [][]string{{"bing", "timeout"}}})
	})
	mux.HandleFunc("POST /tavily/search", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query         string `json:"query"`
			MaxResults    int    `json:"max_results"`
			IncludeAnswer *bool  `json:"include_answer"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		if body.IncludeAnswer == nil || *body.IncludeAnswer || body.MaxResults <= 0 {
			http.Error(w, "bad request body", 400)
			return
		}
		if fault(w, r, body.Query) {
			return
		}
		var res []map[string]any
		if !empty(body.Query) {
			for _, f := range fakeResults {
				res = append(res, map[string]any{"title": f.Title, "url": f.URL, "content": f.Snippet, "score": 0.9})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"results": res})
	})
	mux.HandleFunc("POST /serper/search", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Q   string `json:"q"`
			Num int    `json:"num"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("X-API-KEY") != testKey {
			http.Error(w, "bad key", http.StatusForbidden)
			return
		}
		if fault(w, r, body.Q) {
			return
		}
		var res []map[string]any
		if !empty(body.Q) {
			for i, f := range fakeResults {
				res = append(res, map[string]any{"title": f.Title, "link": f.URL, "snippet": f.Snippet, "position": i + 1})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"organic": res})
	})
	mux.HandleFunc("GET /brave/res/v1/web/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if r.Header.Get("X-Subscription-Token") != testKey {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("count") == "" {
			http.Error(w, "count", 400)
			return
		}
		if fault(w, r, q) {
			return
		}
		var res []map[string]any
		if !empty(q) {
			for _, f := range fakeResults {
				res = append(res, map[string]any{"title": "<strong>" + f.Title + "</strong>", "url": f.URL, "description": f.Snippet})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": res}})
	})
	mux.HandleFunc("POST /ddg/html/", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.PostForm.Get("q")
		w.Header().Set("Content-Type", "text/html")
		switch q {
		case "fault:anomaly":
			w.WriteHeader(http.StatusAccepted)
			w.Write(mustRead(t, "ddg_anomaly.html"))
			return
		case "fault:anomaly200":
			w.Write(mustRead(t, "ddg_anomaly.html"))
			return
		case "fault:empty":
			w.Write(mustRead(t, "ddg_noresults.html"))
			return
		case "fault:layout":
			w.Write([]byte("<html><body><div class='new-layout'>results moved</div></body></html>"))
			return
		}
		if fault(w, r, q) {
			return
		}
		w.Write(mustRead(t, "ddg_results.html"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
