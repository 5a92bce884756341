package research

import (
	"context"
	"net/http"
	"strings"
	"sync"

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

// lazyStatic loads the compiled-in model the first time a memory is saved
// or recalled: listing, deleting or confirming memories never needs it,
// and loading it costs tens of milliseconds.
type lazyStatic struct {
	load func() (*StaticMemoryEmbedder, error)
}

// Fingerprint loads the model; the compiled-in model is checked by tests,
// so a load failure here means a broken build, named by Embed's error.
func (l *lazyStatic) Fingerprint() string {
	m, err := l.load()
	if err != nil {
		return "builtin/" + StaticModelName + ";unavailable"
	}
	return m.Fingerprint()
}

// Embed loads the model on first use.
func (l *lazyStatic) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := l.load()
	if err != nil {
		return nil, err
	}
	return m.Embed(ctx, texts)
}

// RecallFloor is the static embedder's own recall floor.
func (l *lazyStatic) RecallFloor() float64 { return staticRecallFloor }

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
		if e.Model == TransformerModelName {
			// The weights load on the first embed, so this stays cheap for
			// memory commands that never recall.
			return &MemoryEmbedder{e: TransformerEmbedder{}}, nil
		}
		if e.Model != "" && e.Model != StaticModelName {
			_, err := NewEmbedder(e, nil, getenv) // an unknown builtin name: its error, nothing loaded
			return nil, err
		}
		return &lazyStatic{load: sync.OnceValues(func() (*StaticMemoryEmbedder, error) {
			emb, err := NewBuiltinStatic()
			if err != nil {
				return nil, err
			}
			return &StaticMemoryEmbedder{MemoryEmbedder{e: emb}}, nil
		})}, nil
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
