package research

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// staticHashShare is the share of the hash-v1 cosine in a static
// embedder's cosine. The token table knows meaning but not spelling: a
// typo, an identifier or a word split into rare subwords is what hash-v1's
// character n-grams still match. Chosen on the Go-docs eval corpus alone
// (0.85/0.15 over 0.7/0.3 and 1/0); the licences corpus was not consulted.
const staticHashShare = 0.15

// StaticEmbedder embeds with a static token table (staticemb) joined with
// hash-v1: semantic, offline, well under a millisecond per chunk. Its
// vector is [√0.85·static, √0.15·hash-v1], so its cosine is the weighted
// sum of both cosines. Its identity carries the table's sha256, so a
// different table never mixes with stored vectors.
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

// ModelLoadError means a local model directory could not be loaded. The
// index is not touched; keyword search still works without the model.
type ModelLoadError struct{ Err error }

func (e *ModelLoadError) Error() string { return "local embedding model: " + e.Err.Error() }
func (e *ModelLoadError) Unwrap() error { return e.Err }

// Hint says how to recover.
func (e *ModelLoadError) Hint() string {
	return "restore the model directory named in research.embedding.path, or set [research.embedding] provider = \"builtin\" and run `asky corpus reindex`"
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
		return nil, &ModelLoadError{Err: err}
	}
	if e.Dimensions > 0 && e.Dimensions != m.Dim {
		return nil, &ModelLoadError{Err: fmt.Errorf("weights %s: the model has %d dimensions, research.embedding.dimensions says %d",
			filepath.Join(dir, staticemb.WeightsFile), m.Dim, e.Dimensions)}
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
	return Spec{Provider: prov, Model: s.Name,
		Version: fmt.Sprintf("static;wordpiece-uncased;sum;sha256=%s|%s|share=%g", s.Model.SHA256[:16], HashV1Identity, staticHashShare),
		Dim:     s.Model.Dim + hashV1Dim, Normalized: true}
}

// EmbedDocuments embeds texts on all cores.
func (s *StaticEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 || len(texts) < 16 {
		var st staticemb.State
		var hs hashState
		for i, t := range texts {
			out[i] = s.join(st.Embed(s.Model, t), hs.embed(t))
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
			var hs hashState
			for i := a; i < b; i++ {
				out[i] = s.join(st.Embed(s.Model, texts[i]), hs.embed(texts[i]))
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// EmbedQuery embeds one query the same way as documents (symmetric).
func (s *StaticEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	var hs hashState
	return s.join(s.Model.Embed(text), hs.embed(text)), nil
}

// join concatenates the two unit vectors, weighted, into one unit vector
// (a zero part, such as a text of unknown tokens, leaves the other whole).
func (s *StaticEmbedder) join(sv, hv []float32) []float32 {
	ws, wh := float32(math.Sqrt(1-staticHashShare)), float32(math.Sqrt(staticHashShare))
	out := make([]float32, len(sv)+len(hv))
	for i, x := range sv {
		out[i] = x * ws
	}
	for i, x := range hv {
		out[len(sv)+i] = x * wh
	}
	var n float64
	for _, x := range out {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		inv := float32(1 / math.Sqrt(n))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}
