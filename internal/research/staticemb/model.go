// Package staticemb is asky's static sentence embedder: a table of one
// vector per WordPiece token, distilled from a real sentence-transformer
// (model2vec-style), summed over a text's tokens and normalised. It is
// pure Go, needs no model download and embeds a chunk in microseconds.
//
// A model is a directory in model2vec's layout: tokenizer.json (a BERT
// WordPiece tokenizer) and model.safetensors with an "embeddings" tensor
// [vocab, dim] in F32, F16 or I8 (I8 with a per-row F32 "scales" tensor),
// and optionally per-token F32 "weights".
package staticemb

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Files of a model directory.
const (
	TokenizerFile = "tokenizer.json"
	WeightsFile   = "model.safetensors"
)

// Model is a loaded static embedding table.
type Model struct {
	Tokens []string
	Dim    int
	SHA256 string // of tokenizer and weights: part of the embedder identity

	scale []float32 // per row; 0 drops the token
	rows  []int8
	wp    *WordPiece
}

// LoadDir loads a model directory. Errors name the offending file.
func LoadDir(dir string) (*Model, error) {
	return Load(os.DirFS(dir), dir)
}

// Load reads a model from fsys; name prefixes file names in errors.
func Load(fsys fs.FS, name string) (*Model, error) {
	tokPath, wPath := filepath.Join(name, TokenizerFile), filepath.Join(name, WeightsFile)
	tj, err := fs.ReadFile(fsys, TokenizerFile)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", tokPath, unwrapPath(err))
	}
	// The weights (read, decode, hash) and the tokenizer (JSON) take
	// about as long as each other: do them on two cores, since every cold
	// query with the builtin model waits for both.
	type weighed struct {
		m   *Model
		sum string
		err error
	}
	wc := make(chan weighed, 1)
	go func() {
		st, err := fs.ReadFile(fsys, WeightsFile)
		if err != nil {
			wc <- weighed{err: fmt.Errorf("weights %s: %w", wPath, unwrapPath(err))}
			return
		}
		m, err := parseWeights(st)
		if err != nil {
			wc <- weighed{err: fmt.Errorf("weights %s: %w", wPath, err)}
			return
		}
		h := sha256.New()
		h.Write(tj)
		h.Write(st)
		wc <- weighed{m: m, sum: hex.EncodeToString(h.Sum(nil))}
	}()
	tokens, tokErr := parseTokenizer(tj)
	w := <-wc
	if tokErr != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", tokPath, tokErr)
	}
	if w.err != nil {
		return nil, w.err
	}
	m := w.m
	if n := len(m.scale); n != len(tokens) {
		return nil, fmt.Errorf("weights %s: embeddings have %d rows but the tokenizer has %d tokens (mismatched files?)", wPath, n, len(tokens))
	}
	m.Tokens = tokens
	m.wp = NewWordPiece(tokens)
	if m.wp.unk < 0 {
		return nil, fmt.Errorf("tokenizer %s: vocabulary has no [UNK] token", tokPath)
	}
	m.SHA256 = w.sum
	return m, nil
}

// unwrapPath drops fs.PathError's own path (the caller names the file).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TokenIDs tokenises text as the model's WordPiece tokenizer does.
func (m *Model) TokenIDs(text string) []int32 { return m.wp.Tokenize(nil, text) }

// Embed returns text's unit vector: the sum of its token rows (each row
// already carries its frequency weight), normalised. A text with no
// known token gets the zero vector.
func (m *Model) Embed(text string) []float32 {
	var st State
	return st.Embed(m, text)
}

// State holds reusable buffers for one goroutine.
type State struct {
	ids []int32
	acc []float32
}

// Embed is Model.Embed reusing st's buffers; the result is freshly allocated.
func (st *State) Embed(m *Model, text string) []float32 {
	st.ids = m.wp.Tokenize(st.ids[:0], text)
	if cap(st.acc) < m.Dim {
		st.acc = make([]float32, m.Dim)
	}
	acc := st.acc[:m.Dim]
	clear(acc)
	// Repeated tokens are added once with their count: sorting ~200 ids
	// costs far less than the rows it saves.
	slices.Sort(st.ids)
	for i := 0; i < len(st.ids); {
		id := st.ids[i]
		j := i + 1
		for j < len(st.ids) && st.ids[j] == id {
			j++
		}
		s := m.scale[id] * float32(j-i)
		i = j
		if s == 0 {
			continue
		}
		row := m.rows[int(id)*m.Dim : int(id+1)*m.Dim]
		a := acc[:len(row)]
		k := 0
		for ; k+4 <= len(row); k += 4 {
			a[k] += s * float32(row[k])
			a[k+1] += s * float32(row[k+1])
			a[k+2] += s * float32(row[k+2])
			a[k+3] += s * float32(row[k+3])
		}
		for ; k < len(row); k++ {
			a[k] += s * float32(row[k])
		}
	}
	var n float64
	for _, x := range acc {
		n += float64(x) * float64(x)
	}
	out := make([]float32, m.Dim)
	if n == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(n))
	for j, x := range acc {
		out[j] = x * inv
	}
	return out
}

//go:embed data/tokenizer.json data/model.safetensors
var builtinFS embed.FS

var (
	builtinOnce  sync.Once
	builtinModel *Model
	builtinErr   error
)

// BuiltinTokens is the compiled-in tokenizer's vocabulary (token id =
// index): the BERT uncased WordPiece vocabulary all-MiniLM-L6-v2 was
// trained with, which the transformer encoder (package minilm) shares
// rather than embedding a second copy.
func BuiltinTokens() ([]string, error) {
	tj, err := builtinFS.ReadFile("data/" + TokenizerFile)
	if err != nil {
		return nil, err
	}
	return parseTokenizer(tj)
}

// Builtin is the compiled-in model, distilled from all-MiniLM-L6-v2
// (Apache-2.0; see data/NOTICE). It is parsed once, on first use, and
// never changed after.
func Builtin() (*Model, error) {
	builtinOnce.Do(func() {
		sub, _ := fs.Sub(builtinFS, "data")
		builtinModel, builtinErr = Load(sub, "builtin")
	})
	return builtinModel, builtinErr
}
