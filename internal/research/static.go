package research

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research/staticemb"
)

// StaticModelName is the builtin semantic embedder: a static token table
// distilled from all-MiniLM-L6-v2 and compiled in.
const StaticModelName = "minilm-l6-static"

// StaticEmbedder embeds with a static token table (staticemb): semantic,
// offline, microseconds per chunk. Its identity carries the table's
// sha256, so a different table never mixes with stored vectors.
type StaticEmbedder struct {
	Name     string
	Model    *staticemb.Model
	Provider string // "builtin" when empty
}

// NewBuiltinStatic returns the compiled-in static embedder.
func NewBuiltinStatic() (*StaticEmbedder, error) {
	m, err := staticemb.Builtin()
	if err != nil {
		return nil, err
	}
	return &StaticEmbedder{Name: StaticModelName, Model: m}, nil
}

// NewStaticDir loads a user-supplied model directory (provider "static").
// Its identity is the files' sha256, so replacing them re-embeds.
func NewStaticDir(e config.Embedding) (*StaticEmbedder, error) {
	if e.Path == "" {
		return nil, errors.New("research.embedding.path (a model directory with tokenizer.json and model.safetensors) is required for provider static")
	}
	dir := e.Path
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, rest)
		}
	}
	m, err := staticemb.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	if e.Dimensions > 0 && e.Dimensions != m.Dim {
		return nil, fmt.Errorf("%s: the model has %d dimensions, research.embedding.dimensions says %d",
			filepath.Join(dir, staticemb.WeightsFile), m.Dim, e.Dimensions)
	}
	name := e.Model
	if name == "" {
		name = filepath.Base(filepath.Clean(e.Path))
	}
	return &StaticEmbedder{Name: name, Model: m, Provider: "static"}, nil
}

// Spec describes the embedder for its fingerprint.
func (s *StaticEmbedder) Spec() Spec {
	prov := s.Provider
	if prov == "" {
		prov = "builtin"
	}
	return Spec{Provider: prov, Model: s.Name, Version: "static;wordpiece-uncased;sum;sha256=" + s.Model.SHA256[:16],
		Dim: s.Model.Dim, Normalized: true}
}

// EmbedDocuments embeds texts on all cores.
func (s *StaticEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 || len(texts) < 16 {
		var st staticemb.State
		for i, t := range texts {
			out[i] = st.Embed(s.Model, t)
		}
		return out, ctx.Err()
	}
	var wg sync.WaitGroup
	per := (len(texts) + workers - 1) / workers
	for a := 0; a < len(texts); a += per {
		b := min(a+per, len(texts))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st staticemb.State
			for i := a; i < b; i++ {
				out[i] = st.Embed(s.Model, texts[i])
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// EmbedQuery embeds one query the same way as documents (symmetric).
func (s *StaticEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return s.Model.Embed(text), nil
}
