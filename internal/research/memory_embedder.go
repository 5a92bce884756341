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

// Fingerprint names the vector space of stored memory embeddings.
func (m *MemoryEmbedder) Fingerprint() string { return m.e.Spec().Fingerprint() }

// Embed embeds memories and recall queries alike, so both sides of a
// comparison carry the same task prefix.
func (m *MemoryEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return m.e.EmbedDocuments(ctx, texts)
}

// ForMemory returns the embedder memory should use, or nil. Only real
// semantic providers (Ollama, OpenAI-compatible) are used: the builtin
// hash-v1 is lexical, and memory's own lexical measure is tuned for short
// facts and its similarity thresholds.
func ForMemory(e config.Embedding, hc func() *http.Client, getenv func(string) string) (*MemoryEmbedder, error) {
	switch strings.ToLower(e.Provider) {
	case "", "builtin":
		// Checked first: callers' HTTP client and environment are not
		// needed (or set) for the default.
		return nil, nil
	}
	emb, err := NewEmbedder(e, hc(), getenv)
	if err != nil {
		return nil, err
	}
	return &MemoryEmbedder{e: emb}, nil
}
