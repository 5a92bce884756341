package research

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"
)

// HashV1Identity is the versioned identity of the builtin embedder. Any
// change to tokenisation, stopwords, features, hashing or dimension must
// bump the version (reference/embedder.md §4).
const HashV1Identity = "builtin/hash-v1;d=512;w1;c3-5;fnv1a64;tf=1+ln;stop=" + StopwordsVersion

// hashV1Dim is the vector dimension of hash-v1.
const hashV1Dim = 512

const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// HashV1 is the builtin offline embedder: signed feature hashing of word
// unigrams and character 3–5-grams with sublinear TF and no corpus
// statistics, so it never drifts and needs no model file. It is lexical and
// fuzzy, not semantic, and is always fused with BM25.
type HashV1 struct{}

// Spec describes the embedder for its fingerprint.
func (HashV1) Spec() Spec {
	return Spec{Provider: "builtin", Model: "hash-v1", Version: HashV1Identity, Dim: hashV1Dim, Normalized: true}
}

// EmbedDocuments embeds texts on all cores.
func (h HashV1) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(texts) {
		workers = len(texts)
	}
	if workers <= 1 {
		var st hashState
		for i, t := range texts {
			out[i] = st.embed(t)
		}
		return out, ctx.Err()
	}
	var wg sync.WaitGroup
	next := make(chan int, len(texts))
	for i := range texts {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st hashState
			for i := range next {
				out[i] = st.embed(texts[i])
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// EmbedQuery embeds one query (no prefix: hash-v1 is symmetric).
func (HashV1) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	var st hashState
	return st.embed(text), nil
}

// HashV1Vector embeds one text; exported for tests and benchmarks.
func HashV1Vector(text string) []float32 {
	var st hashState
	return st.embed(text)
}

// hashState holds reusable buffers. Features are accumulated by their
// FNV-1a-64 hash, which is what indexes them anyway; two distinct feature
// strings would have to collide in 64 bits to differ from a string-keyed
// sum.
type hashState struct {
	counts map[uint64]float64
	runes  []rune
	keys   []uint64
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

func fnvRunes(rs []rune) uint64 {
	h := uint64(fnvOffset64)
	var buf [utf8.UTFMax]byte
	for _, r := range rs {
		n := utf8.EncodeRune(buf[:], r)
		for i := 0; i < n; i++ {
			h ^= uint64(buf[i])
			h *= fnvPrime64
		}
	}
	return h
}

func (st *hashState) embed(text string) []float32 {
	if st.counts == nil {
		st.counts = make(map[uint64]float64, 256)
	}
	clear(st.counts)
	wPrefix := fnvString(fnvOffset64, "w:")
	for _, t := range Tokens(text) {
		if IsStopword(t) {
			continue
		}
		st.counts[fnvString(wPrefix, t)]++
		st.runes = append(st.runes[:0], '<')
		st.runes = append(st.runes, []rune(t)...)
		st.runes = append(st.runes, '>')
		l := len(st.runes)
		grams := 0
		for n := 3; n <= 5; n++ {
			if l >= n {
				grams += l - n + 1
			}
		}
		if grams == 0 {
			continue
		}
		wgt := 1 / math.Sqrt(float64(grams))
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= l; i++ {
				st.counts[fnvRunes(st.runes[i:i+n])] += wgt
			}
		}
	}
	// Sum in a fixed order so the float result never depends on map order.
	st.keys = st.keys[:0]
	for h := range st.counts {
		st.keys = append(st.keys, h)
	}
	slices.Sort(st.keys)
	var v [hashV1Dim]float64
	for _, h := range st.keys {
		c := st.counts[h]
		val := c
		if c >= 1 {
			val = 1 + math.Log(c)
		}
		idx := h % hashV1Dim
		if h>>63 == 1 {
			val = -val
		}
		v[idx] += val
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, hashV1Dim)
	if norm == 0 {
		return out // all-zero: a chunk of stopwords or punctuation
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
