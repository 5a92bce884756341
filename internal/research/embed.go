package research

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/askygo/asky/internal/config"
)

// ChunkerVersion is part of every embedder fingerprint: a chunking change
// changes what the stored vectors mean for retrieval.
const ChunkerVersion = "chunk-v1;256/48;sections"

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

// NewEmbedder builds the configured embedder. hc is the plain client for
// configured endpoints; getenv resolves api_key_env.
func NewEmbedder(e config.Embedding, hc *http.Client, getenv func(string) string) (Embedder, error) {
	switch strings.ToLower(e.Provider) {
	case "", "builtin":
		if e.Model != "" && e.Model != "hash-v1" {
			return nil, fmt.Errorf("unknown builtin embedder %q (available: hash-v1)", e.Model)
		}
		return HashV1{}, nil
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
		return &httpEmbedder{kind: "openai", base: base, key: key, cfg: e, hc: hc}, nil
	case "ollama":
		if e.Model == "" {
			return nil, errors.New("research.embedding.model is required for provider ollama")
		}
		base := strings.TrimRight(e.BaseURL, "/")
		if base == "" {
			base = "http://localhost:11434"
		}
		base = strings.TrimSuffix(base, "/api")
		return &httpEmbedder{kind: "ollama", base: base, cfg: e, hc: hc}, nil
	}
	return nil, fmt.Errorf("unknown embedding provider %q (use builtin, openai or ollama)", e.Provider)
}

// httpEmbedder calls an OpenAI-compatible /embeddings or Ollama /api/embed
// endpoint with batches of inputs.
type httpEmbedder struct {
	kind string
	base string
	key  string
	cfg  config.Embedding
	hc   *http.Client
	dim  int
}

func (h *httpEmbedder) Spec() Spec {
	return Spec{Provider: h.kind, Model: h.cfg.Model, BaseURL: h.base, Dim: h.dim, Dimensions: h.cfg.Dimensions,
		DocumentPrefix: h.cfg.DocumentPrefix, QueryPrefix: h.cfg.QueryPrefix, Normalized: true}
}

func (h *httpEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	batch := h.cfg.BatchSize
	if batch <= 0 {
		batch = 32
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += batch {
		j := min(i+batch, len(texts))
		in := make([]string, j-i)
		for k := range in {
			in[k] = h.cfg.DocumentPrefix + texts[i+k]
		}
		vs, err := h.call(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
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

func (h *httpEmbedder) call(ctx context.Context, inputs []string) ([][]float32, error) {
	var url string
	body := map[string]any{"model": h.cfg.Model, "input": inputs}
	if h.cfg.Dimensions > 0 {
		body["dimensions"] = h.cfg.Dimensions
	}
	if h.kind == "ollama" {
		url = h.base + "/api/embed"
		body["truncate"] = false // the default silently cuts long chunks
	} else {
		url = h.base + "/embeddings"
	}
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	hc := h.hc
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embedding endpoint %s unreachable: %w", h.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embedding endpoint %s: HTTP %d: %s", url, resp.StatusCode, firstN(string(raw), 200))
	}
	var vs [][]float32
	if h.kind == "ollama" {
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("embedding endpoint %s: bad JSON: %w", url, err)
		}
		vs = r.Embeddings
	} else {
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("embedding endpoint %s: bad JSON: %w", url, err)
		}
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
		return nil, fmt.Errorf("embedding endpoint %s returned %d vectors for %d inputs", url, len(vs), len(inputs))
	}
	for _, v := range vs {
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding endpoint %s returned an empty vector", url)
		}
		if h.dim == 0 {
			h.dim = len(v)
		}
		if len(v) != h.dim {
			return nil, fmt.Errorf("embedding endpoint %s returned %d dimensions, expected %d", url, len(v), h.dim)
		}
		if !normalize(v) {
			return nil, fmt.Errorf("embedding endpoint %s returned a zero or NaN vector", url)
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

func firstN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
