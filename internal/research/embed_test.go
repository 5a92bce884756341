package research

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
)

// fakeEmbedServer serves OpenAI /embeddings and Ollama /api/embed with
// 4-d vectors derived from the text length; dim changes the answer size.
func fakeEmbedServer(t *testing.T, dim *int) (*httptest.Server, *[]map[string]any) {
	var mu sync.Mutex
	var reqs []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		body["_path"] = r.URL.Path
		body["_auth"] = r.Header.Get("Authorization")
		reqs = append(reqs, body)
		mu.Unlock()
		var inputs []string
		for _, x := range body["input"].([]any) {
			inputs = append(inputs, x.(string))
		}
		vec := func(s string) []float32 {
			v := make([]float32, *dim)
			v[len(s)%*dim] = 3
			v[0] += 1
			return v
		}
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []map[string]any
			for i := len(inputs) - 1; i >= 0; i-- { // out of order on purpose
				data = append(data, map[string]any{"index": i, "embedding": vec(inputs[i])})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/api/embed":
			var es [][]float32
			for _, in := range inputs {
				es = append(es, vec(in))
			}
			json.NewEncoder(w).Encode(map[string]any{"embeddings": es, "prompt_eval_count": 7 * len(inputs)})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &reqs
}

func TestOpenAIEmbedderBatches(t *testing.T) {
	dim := 4
	srv, reqs := fakeEmbedServer(t, &dim)
	e, err := NewEmbedder(config.Embedding{Provider: "openai", Model: "m", BaseURL: srv.URL + "/v1", APIKeyEnv: "K", BatchSize: 2,
		DocumentPrefix: "doc: ", QueryPrefix: "q: "}, srv.Client(), func(k string) string { return map[string]string{"K": "secret"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.EmbedDocuments(context.Background(), []string{"a", "bb", "ccc"})
	if err != nil || len(vs) != 3 {
		t.Fatalf("%v %v", vs, err)
	}
	if len(*reqs) != 2 {
		t.Fatalf("%d requests, want 2 batches", len(*reqs))
	}
	first := (*reqs)[0] // batches run concurrently: find the first one
	if first["input"].([]any)[0] != "doc: a" {
		first = (*reqs)[1]
	}
	if first["_auth"] != "Bearer secret" || first["input"].([]any)[0] != "doc: a" {
		t.Fatalf("request %v", first)
	}
	// Out-of-order response indexes are honoured and vectors normalised.
	if vs[1][len("doc: bb")%4] < 0.9 {
		t.Fatalf("vector for input 1 misplaced: %v", vs[1])
	}
	q, err := e.EmbedQuery(context.Background(), "x")
	if err != nil || (*reqs)[2]["input"].([]any)[0] != "q: x" {
		t.Fatalf("%v %v", q, err)
	}
	if e.Spec().Dim != 4 || e.Spec().Fingerprint() == (HashV1{}).Spec().Fingerprint() {
		t.Fatalf("spec %+v", e.Spec())
	}
	// The provider changing dimensions underneath is a hard error.
	dim = 8
	if _, err := e.EmbedQuery(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("dimension change: %v", err)
	}
}

func TestOllamaEmbedder(t *testing.T) {
	dim := 4
	srv, reqs := fakeEmbedServer(t, &dim)
	e, err := NewEmbedder(config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: srv.URL + "/api", DocumentPrefix: "search_document: "}, srv.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.EmbedDocuments(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	r := (*reqs)[0]
	if r["_path"] != "/api/embed" || r["truncate"] != false || r["input"].([]any)[0] != "search_document: a" {
		t.Fatalf("request %v", r)
	}
}

// Provider embeddings land in the usage ledger carried by the context:
// tokens as the server counts them, else estimated.
func TestEmbedderReportsUsage(t *testing.T) {
	dim := 4
	srv, _ := fakeEmbedServer(t, &dim)
	var mu sync.Mutex
	var calls []llm.Call
	ctx := llm.WithMeter(context.Background(), llm.MeterFunc(func(_ context.Context, c llm.Call) {
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
	}))
	for _, p := range []string{"openai", "ollama"} {
		base := srv.URL + "/v1"
		if p == "ollama" {
			base = srv.URL + "/api"
		}
		e, err := NewEmbedder(config.Embedding{Provider: p, Model: p + "-emb", BaseURL: base}, srv.Client(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.EmbedDocuments(ctx, []string{"abcdefgh", "ijkl"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("calls %+v", calls)
	}
	oa, ol := calls[0], calls[1]
	if oa.Model != "openai-emb" || oa.Purpose != llm.PurposeEmbedding || !oa.Estimated || oa.Usage.PromptTokens != 3 {
		t.Fatalf("openai call %+v", oa)
	}
	if ol.Model != "ollama-emb" || ol.Estimated || ol.Usage.PromptTokens != 14 {
		t.Fatalf("ollama call %+v", ol)
	}
}

func TestEmbedderErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "zero") {
			json.NewEncoder(w).Encode(map[string]any{"embeddings": [][]float32{{0, 0}}})
			return
		}
		http.Error(w, "model not found", 404)
	}))
	defer srv.Close()
	e, _ := NewEmbedder(config.Embedding{Provider: "ollama", Model: "m", BaseURL: srv.URL}, srv.Client(), nil)
	if _, err := e.EmbedQuery(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("%v", err)
	}
	e, _ = NewEmbedder(config.Embedding{Provider: "ollama", Model: "m", BaseURL: srv.URL + "/zero"}, srv.Client(), nil)
	if _, err := e.EmbedQuery(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "zero") {
		t.Fatalf("%v", err)
	}
	for _, c := range []config.Embedding{{Provider: "nope"}, {Provider: "openai"}, {Provider: "builtin", Model: "glove"}} {
		if _, err := NewEmbedder(c, nil, nil); err == nil {
			t.Fatalf("%+v accepted", c)
		}
	}
}

// Batches run a few at a time and come back in input order; rate limits
// and server errors are retried, a bad key is not (and never printed).
func TestEmbedderRetriesAndParallelBatches(t *testing.T) {
	var mu sync.Mutex
	var calls, inFlight, maxInFlight int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		if r.Header.Get("Authorization") == "Bearer bad-key" {
			http.Error(w, `{"error": {"message": "invalid key bad-key"}}`, http.StatusUnauthorized)
			return
		}
		switch n {
		case 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		case 2:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		time.Sleep(20 * time.Millisecond)
		var body struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&body)
		var data []map[string]any
		for i, in := range body.Input {
			v := make([]float32, 64)
			v[len(in)%64] = 1
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	newEmb := func(key string) *httpEmbedder {
		e, err := NewEmbedder(config.Embedding{Provider: "openai", Model: "m", BaseURL: srv.URL, APIKeyEnv: "K", BatchSize: 2},
			srv.Client(), func(string) string { return key })
		if err != nil {
			t.Fatal(err)
		}
		h := e.(*httpEmbedder)
		h.Retry.Sleep = func(context.Context, time.Duration) error { return nil }
		return h
	}
	e := newEmb("good-key")
	var texts []string
	for i := 0; i < 40; i++ {
		texts = append(texts, strings.Repeat("x", i))
	}
	vs, err := e.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v[i%64] != 1 {
			t.Fatalf("vector %d out of order", i)
		}
	}
	if calls != 20+2 || maxInFlight < 2 || maxInFlight > embedInFlight {
		t.Fatalf("%d calls (want 20 batches + 2 retried), %d in flight at most (want 2..%d)", calls, maxInFlight, embedInFlight)
	}

	calls = 10 // past the scripted failures
	_, err = newEmb("bad-key").EmbedQuery(context.Background(), "x")
	if err == nil || llm.KindOf(err) != llm.KindAuth || strings.Contains(err.Error(), "bad-key") || calls != 11 {
		t.Fatalf("bad key: %v after %d calls", err, calls-10)
	}
}
