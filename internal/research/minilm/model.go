// Package minilm is asky's compiled-in transformer encoder: all-MiniLM-L6-v2
// (a 6-layer BERT, hidden 384, 12 heads) with int8 weights, run in pure Go
// with AVX2/FMA kernels on amd64. It gives the vectors sentence-transformers
// gives (mean pooling over the tokens, L2-normalised; at most 256 word
// pieces), at a few hundred ms per full chunk instead of the static
// table's microseconds, which is why it fills a deep tier in the background
// rather than blocking ingest.
//
// The weights (data/model.safetensors, Apache-2.0, see data/NOTICE) are
// written by convert/convert.py; the tokenizer is staticemb's, the same
// vocabulary file.
package minilm

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/askygo/asky/internal/research/staticemb"
)

// Model shape (all-MiniLM-L6-v2).
const (
	Dim     = 384
	Layers  = 6
	Heads   = 12
	HeadDim = Dim / Heads
	FFN     = 1536
	// MaxTokens is sentence-transformers' max_seq_length for the model,
	// [CLS] and [SEP] included; longer texts are truncated.
	MaxTokens = 256
	panel     = 16 // output columns per packed weight panel (the kernel's width)
	wordBytes = Dim / 8 * 7
)

// linear is an int8 weight matrix packed in panels of 16 output columns
// ([out/16][in][16]), with a per-output scale and a bias.
type linear struct {
	q           []int8
	scale, bias []float32
	in, out     int
}

type layerNorm struct{ w, b []float32 }

type layer struct {
	qkv, ao, fi, fo linear
	ln1, ln2        layerNorm
}

// Model is a loaded encoder. It is read-only and safe for concurrent use;
// per-goroutine buffers live in an Encoder.
type Model struct {
	// SHA256 of the weights file: part of the embedder's identity.
	SHA256 string

	vocabRow []int32 // vocabulary id → row of word (−1: never produced)
	// word is read-only (it aliases the embedded weights).
	word      []byte // 7-bit codes, eight in 7 bytes: wordBytes a row
	wordScale []float32
	pos       []float32 // [MaxTokens][Dim], token type 0 folded in
	embLN     layerNorm
	layers    [Layers]layer
	wp        *staticemb.WordPiece
	cls, sep  int32
	unkRow    int32
}

// weights is never written: the int8 tensors alias it.
//
//go:embed data/model.safetensors
var weights []byte

//go:embed data/SHA256SUM
var weightsSum string

// Builtin is the compiled-in model, loaded once on first use. Loading maps
// the int8 weights in place (no copy) and parses the shared vocabulary.
var Builtin = sync.OnceValues(func() (*Model, error) {
	tokens, err := staticemb.BuiltinTokens()
	if err != nil {
		return nil, fmt.Errorf("builtin tokenizer: %w", err)
	}
	m, err := load(weights, tokens)
	if err != nil {
		return nil, fmt.Errorf("builtin minilm weights: %w", err)
	}
	m.SHA256 = WeightsSHA256()
	return m, nil
})

type tensors map[string]staticemb.Tensor

// get returns the named tensor's bytes after checking its dtype and shape.
func (ts tensors) get(name, dtype string, shape ...int) ([]byte, error) {
	t, ok := ts[name]
	if !ok {
		return nil, fmt.Errorf("no tensor %q", name)
	}
	if t.DType != dtype || !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("tensor %q is %s %v, want %s %v", name, t.DType, t.Shape, dtype, shape)
	}
	return t.Bytes(), nil
}

func (ts tensors) f32s(name string, shape ...int) ([]float32, error) {
	b, err := ts.get(name, "F32", shape...)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	for i, x := range out {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("tensor %q: non-finite value at %d", name, i)
		}
	}
	return out, nil
}

// i8s views an int8 tensor in place: the embedded weights are read-only
// and never copied, so loading costs no time for the 20 MB of weights.
func (ts tensors) i8s(name string, shape ...int) ([]int8, error) {
	b, err := ts.get(name, "I8", shape...)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b)), nil
}

func loadLinear(ts tensors, name string, in, out int) (linear, error) {
	l := linear{in: in, out: out}
	var err error
	if l.q, err = ts.i8s(name+".q", out/panel, in, panel); err != nil {
		return l, err
	}
	if l.scale, err = ts.f32s(name+".scale", out); err != nil {
		return l, err
	}
	l.bias, err = ts.f32s(name+".b", out)
	return l, err
}

func loadLN(ts tensors, name string) (layerNorm, error) {
	w, err := ts.f32s(name+".w", Dim)
	if err != nil {
		return layerNorm{}, err
	}
	b, err := ts.f32s(name+".b", Dim)
	return layerNorm{w, b}, err
}

// load builds a model from a weights file and the tokenizer's vocabulary.
func load(b []byte, tokens []string) (*Model, error) {
	raw, err := staticemb.ReadSafetensors(b)
	if err != nil {
		return nil, err
	}
	ts := tensors(raw)
	m := &Model{wp: staticemb.NewWordPiece(tokens), cls: -1, sep: -1, unkRow: -1}
	vr, err := ts.get("vocab.rows", "I16", len(tokens))
	if err != nil {
		return nil, fmt.Errorf("%w (weights and tokenizer do not match)", err)
	}
	wr, ok := ts["word.q7"]
	if !ok || len(wr.Shape) != 2 {
		return nil, fmt.Errorf("no [rows, %d] tensor \"word.q7\"", wordBytes)
	}
	rows := wr.Shape[0]
	m.vocabRow = make([]int32, len(tokens))
	for i := range m.vocabRow {
		r := int32(int16(binary.LittleEndian.Uint16(vr[i*2:])))
		if r >= int32(rows) || r < -1 {
			return nil, fmt.Errorf("vocab.rows[%d] = %d is out of range", i, r)
		}
		m.vocabRow[i] = r
	}
	for i, t := range tokens {
		switch t {
		case "[CLS]":
			m.cls = int32(i)
		case "[SEP]":
			m.sep = int32(i)
		case "[UNK]":
			m.unkRow = m.vocabRow[i]
		}
	}
	if m.cls < 0 || m.sep < 0 || m.unkRow < 0 || m.vocabRow[m.cls] < 0 || m.vocabRow[m.sep] < 0 {
		return nil, fmt.Errorf("the vocabulary lacks [CLS], [SEP] or [UNK]")
	}
	if m.word, err = ts.get("word.q7", "U8", rows, wordBytes); err != nil {
		return nil, err
	}
	if m.wordScale, err = ts.f32s("word.scale", rows); err != nil {
		return nil, err
	}
	if m.pos, err = ts.f32s("pos", MaxTokens, Dim); err != nil {
		return nil, err
	}
	if m.embLN, err = loadLN(ts, "emb.ln"); err != nil {
		return nil, err
	}
	for i := range m.layers {
		l, p := &m.layers[i], fmt.Sprintf("%d.", i)
		for _, x := range []struct {
			dst     *linear
			name    string
			in, out int
		}{{&l.qkv, "qkv", Dim, 3 * Dim}, {&l.ao, "ao", Dim, Dim}, {&l.fi, "fi", Dim, FFN}, {&l.fo, "fo", FFN, Dim}} {
			if *x.dst, err = loadLinear(ts, p+x.name, x.in, x.out); err != nil {
				return nil, err
			}
		}
		if l.ln1, err = loadLN(ts, p+"ln1"); err != nil {
			return nil, err
		}
		if l.ln2, err = loadLN(ts, p+"ln2"); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Tokens returns the ids the model sees for text: [CLS], at most
// MaxTokens−2 word pieces, [SEP].
func (m *Model) Tokens(dst []int32, text string) []int32 {
	dst = append(dst[:0], m.cls)
	dst = m.wp.Tokenize(dst, text)
	if len(dst) > MaxTokens-1 {
		dst = dst[:MaxTokens-1]
	}
	return append(dst, m.sep)
}

// WeightsSHA256 is the compiled-in weights' sha256 (as convert.py printed
// it; a test checks it), known without loading the model.
func WeightsSHA256() string { return strings.TrimSpace(weightsSum) }

// wordRow writes word-embedding row r, dequantised, plus pos into x.
func (m *Model) wordRow(x []float32, r int32, pos []float32) {
	b := m.word[int(r)*wordBytes : int(r+1)*wordBytes]
	sc := m.wordScale[r]
	x, pos = x[:Dim], pos[:Dim]
	for g := range Dim / 8 {
		c := b[g*7 : g*7+7]
		bits := uint64(c[0]) | uint64(c[1])<<8 | uint64(c[2])<<16 | uint64(c[3])<<24 |
			uint64(c[4])<<32 | uint64(c[5])<<40 | uint64(c[6])<<48
		for i := range 8 {
			v := int8(uint8(bits>>(7*i))<<1) >> 1 // sign-extend 7 bits
			x[g*8+i] = float32(v)*sc + pos[g*8+i]
		}
	}
}
