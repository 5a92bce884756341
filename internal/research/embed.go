package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/wire"
)

// ChunkerVersion is part of every embedder fingerprint: a chunking change
// changes what the stored vectors mean for retrieval.
const ChunkerVersion = "chunk-v2;256/48;sections;tail-merge"

// Spec is an embedder's identity. Its canonical JSON hashes to the
// fingerprint stored with the index, so a different model, dimension,
// prefix or chunker never mixes with stored vectors.
type Spec struct {
	Provider       string `json:"provider"`
	Model          string `json:"model"`
	Version        string `json:"version,omitempty"`
	BaseURL        string `json:"base_url,omitempty"`
	Dim            int    `json:"dim"`
	Dimensions     int    `json:"dimensions,omitempty"`
	DocumentPrefix string `json:"document_prefix,omitempty"`
	QueryPrefix    string `json:"query_prefix,omitempty"`
	Normalized     bool   `json:"normalized"`
	Chunker        string `json:"chunker"`
}

// JSON is the canonical spec text.
func (s Spec) JSON() string {
	s.Chunker = ChunkerVersion
	b, _ := json.Marshal(s)
	return string(b)
}

// Fingerprint is the first 12 hex chars of sha256(spec JSON).
func (s Spec) Fingerprint() string {
	sum := sha256.Sum256([]byte(s.JSON()))
	return hex.EncodeToString(sum[:])[:12]
}

// Embedder turns text into vectors. Document and query embeddings may
// differ (task prefixes).
type Embedder interface {
	Spec() Spec
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// CanaryText is embedded when a space is created and again when a provider
// is used, to detect a model changed behind the same name.
const CanaryText = "asky embedding canary: the quick brown fox reads the manual on hybrid retrieval."

// embedRetry is the retry policy of provider embedders: a long ingest or
// reindex should ride out a rate limit or a restarting server.
func embedRetry() llm.RetryPolicy {
	return llm.RetryPolicy{MaxRetries: 4, Initial: time.Second, Max: 30 * time.Second}
}

// NewEmbedder builds the configured embedder. hc is the plain client for
// configured endpoints; getenv resolves api_key_env.
func NewEmbedder(e config.Embedding, hc *http.Client, getenv func(string) string) (Embedder, error) {
	switch strings.ToLower(e.Provider) {
	case "", "builtin":
		switch e.Model {
		case "hash-v1":
			return HashV1{}, nil
		case "", StaticModelName:
			return NewBuiltinStatic()
		case TransformerModelName:
			return TransformerEmbedder{}, nil
		}
		return nil, fmt.Errorf("unknown builtin embedder %q (available: %s, %s, hash-v1)", e.Model, StaticModelName, TransformerModelName)
	case "static":
		return NewStaticDir(e)
	case "openai":
		if e.Model == "" {
			return nil, errors.New("research.embedding.model is required for provider openai")
		}
		base := strings.TrimRight(e.BaseURL, "/")
		if base == "" {
			base = "https://api.openai.com/v1"
		}
		key := ""
		if e.APIKeyEnv != "" && getenv != nil {
			key = getenv(e.APIKeyEnv)
		}
		return &httpEmbedder{kind: "openai", base: base, key: key, cfg: e, hc: hc, Retry: embedRetry()}, nil
	case "ollama":
		if e.Model == "" {
			return nil, errors.New("research.embedding.model is required for provider ollama")
		}
		base := strings.TrimRight(e.BaseURL, "/")
		if base == "" {
			base = "http://localhost:11434"
		}
		base = strings.TrimSuffix(base, "/api")
		return &httpEmbedder{kind: "ollama", base: base, cfg: e, hc: hc, Retry: embedRetry()}, nil
	}
	return nil, fmt.Errorf("unknown embedding provider %q (use builtin, static, openai or ollama)", e.Provider)
}

// httpEmbedder calls an OpenAI-compatible /embeddings or Ollama /api/embed
// endpoint with batches of inputs, several batches in flight, retrying
// rate limits and server errors like chat calls do.
type httpEmbedder struct {
	kind string
	base string
	key  string
	cfg  config.Embedding
	hc   *http.Client
	// Retry repeats rate-limited and failed calls (tests shorten it).
	Retry llm.RetryPolicy

	once sync.Once
	ep   *wire.Endpoint

	mu  sync.Mutex
	dim int // learnt from the first answer; every later one must match
}

// embedInFlight bounds concurrent batch requests: enough to hide a remote
// API's latency, few enough not to trip its rate limit.
const embedInFlight = 4

func (h *httpEmbedder) Spec() Spec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Spec{Provider: h.kind, Model: h.cfg.Model, BaseURL: h.base, Dim: h.dim, Dimensions: h.cfg.Dimensions,
		DocumentPrefix: h.cfg.DocumentPrefix, QueryPrefix: h.cfg.QueryPrefix, Normalized: true}
}

func (h *httpEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	batch := h.cfg.BatchSize
	if batch <= 0 {
		batch = 32
	}
	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, embedInFlight)
	var wg sync.WaitGroup
	for i := 0; i < len(texts); i += batch {
		j := min(i+batch, len(texts))
		in := make([]string, j-i)
		for k := range in {
			in[k] = h.cfg.DocumentPrefix + texts[i+k]
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i int, in []string) {
			defer wg.Done()
			defer func() { <-sem }()
			vs, err := h.call(ctx, in)
			if err != nil {
				cancel(err)
				return
			}
			copy(out[i:], vs)
		}(i, in)
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *httpEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vs, err := h.call(ctx, []string{h.cfg.QueryPrefix + text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func (h *httpEmbedder) endpoint() *wire.Endpoint {
	h.once.Do(func() {
		h.ep = &wire.Endpoint{Name: h.kind + " embeddings", BaseURL: h.base, HTTP: h.hc, Secret: h.key, Timeout: 120 * time.Second}
		if h.key != "" {
			h.ep.Headers = map[string]string{"Authorization": "Bearer " + h.key}
		}
	})
	return h.ep
}

// call embeds one batch, retrying transient failures.
func (h *httpEmbedder) call(ctx context.Context, inputs []string) ([][]float32, error) {
	var vs [][]float32
	err := h.Retry.Do(ctx, func() (err error) {
		vs, err = h.callOnce(ctx, inputs)
		return err
	})
	return vs, err
}

func (h *httpEmbedder) callOnce(ctx context.Context, inputs []string) ([][]float32, error) {
	path := "/embeddings"
	body := map[string]any{"model": h.cfg.Model, "input": inputs}
	if h.cfg.Dimensions > 0 {
		body["dimensions"] = h.cfg.Dimensions
	}
	if h.kind == "ollama" {
		path = "/api/embed"
		body["truncate"] = false // the default silently cuts long chunks
	}
	ep := h.endpoint()
	st, err := ep.Post(ctx, path, body)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	raw, err := st.ReadAll()
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return ep.Errorf(llm.KindBadResponse, false, format, args...)
	}
	var vs [][]float32
	tokens := 0
	if h.kind == "ollama" {
		var r struct {
			Embeddings      [][]float32 `json:"embeddings"`
			PromptEvalCount int         `json:"prompt_eval_count"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, bad("bad JSON: %v", err)
		}
		vs, tokens = r.Embeddings, r.PromptEvalCount
	} else {
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, bad("bad JSON: %v", err)
		}
		tokens = r.Usage.PromptTokens
		vs = make([][]float32, len(r.Data))
		for i, d := range r.Data {
			idx := d.Index
			if idx < 0 || idx >= len(vs) {
				idx = i
			}
			vs[idx] = d.Embedding
		}
	}
	if len(vs) != len(inputs) {
		return nil, bad("%d vectors for %d inputs", len(vs), len(inputs))
	}
	h.meter(ctx, inputs, tokens)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range vs {
		if len(v) == 0 {
			return nil, bad("an empty vector")
		}
		if h.dim == 0 {
			h.dim = len(v)
		}
		if len(v) != h.dim {
			return nil, bad("%d dimensions, expected %d", len(v), h.dim)
		}
		if !normalize(v) {
			return nil, bad("a zero or NaN vector")
		}
	}
	return vs, nil
}

// normalize scales v to unit length in place; false for zero/NaN vectors.
func normalize(v []float32) bool {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return true
}

// Probe resolves a provider's dimension (by embedding the canary) so its
// spec and fingerprint are complete before any vector is stored.
func Probe(ctx context.Context, e Embedder) ([]float32, error) {
	return e.EmbedQuery(ctx, CanaryText)
}

// Cosine of two unit vectors (their dot product).
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// meter records the batch in the usage ledger carried by ctx (tokens as
// the server reported them, else estimated).
func (h *httpEmbedder) meter(ctx context.Context, inputs []string, tokens int) {
	m := llm.MeterOf(ctx)
	if m == nil {
		return
	}
	c := llm.Call{Model: h.cfg.Model, Purpose: llm.PurposeEmbedding, Usage: llm.Usage{PromptTokens: tokens}}
	if tokens == 0 {
		c.Estimated = true
		for _, in := range inputs {
			c.Usage.PromptTokens += llm.EstimateTokens(in)
		}
	}
	m.Record(context.WithoutCancel(ctx), c)
}
