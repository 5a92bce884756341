package research

import (
	"context"
	"net/http"
	"strings"

	"github.com/askygo/asky/internal/config"
)

// MemoryEmbedder adapts a configured semantic embedder to user memory's
// small Embedder interface (Fingerprint + Embed).
type MemoryEmbedder struct{ e Embedder }

// staticRecallFloor is the static embedder's cosine for a paraphrased
// fact ("I cycle to work" / "how do I commute" scores 0.32, unrelated
// short facts 0.05–0.15): its scale is compressed against a transformer's.
const staticRecallFloor = 0.25

// StaticMemoryEmbedder is a MemoryEmbedder over the static embedder, with
// its own recall floor.
type StaticMemoryEmbedder struct{ MemoryEmbedder }

// RecallFloor is the dense cosine from which memories are recalled.
func (StaticMemoryEmbedder) RecallFloor() float64 { return staticRecallFloor }

// Fingerprint names the vector space of stored memory embeddings.
func (m *MemoryEmbedder) Fingerprint() string { return m.e.Spec().Fingerprint() }

// Embed embeds memories and recall queries alike, so both sides of a
// comparison carry the same task prefix.
func (m *MemoryEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return m.e.EmbedDocuments(ctx, texts)
}

// MemoryVectors is what user memory needs of an embedder (memory.Embedder).
type MemoryVectors interface {
	Fingerprint() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ForMemory returns the embedder memory should use, or nil. The builtin
// static embedder and real providers (Ollama, OpenAI-compatible) are
// used; hash-v1 is lexical, and memory's own lexical measure is tuned for
// short facts and its similarity thresholds, so it keeps that alone.
func ForMemory(e config.Embedding, hc func() *http.Client, getenv func(string) string) (MemoryVectors, error) {
	switch strings.ToLower(e.Provider) {
	case "", "builtin":
		// Checked first: callers' HTTP client and environment are not
		// needed (or set) for the defaults.
		if e.Model == "hash-v1" {
			return nil, nil
		}
		emb, err := NewEmbedder(e, nil, getenv)
		if err != nil {
			return nil, err
		}
		return &StaticMemoryEmbedder{MemoryEmbedder{e: emb}}, nil
	case "static":
		emb, err := NewStaticDir(e)
		if err != nil {
			return nil, err
		}
		return &StaticMemoryEmbedder{MemoryEmbedder{e: emb}}, nil
	}
	emb, err := NewEmbedder(e, hc(), getenv)
	if err != nil {
		return nil, err
	}
	return &MemoryEmbedder{e: emb}, nil
}
