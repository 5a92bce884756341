package research

import (
	"context"
	"math"
	"runtime"
	"sync"
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
// FNV-1a-64 hash, which is what indexes them anyway (two distinct feature
// strings would have to collide in 64 bits to differ from a string-keyed
// sum), in a small open-addressing table that remembers first-insertion
// order: summing in that order keeps the float result deterministic
// without sorting.
type hashState struct {
	slots  []hashSlot // power-of-two sized, key 0 = empty
	order  []int32    // slot indexes in first-insertion order
	buf    []byte
	bounds []int
	tz     tokenizer
}

type hashSlot struct {
	key uint64
	c   float64
}

func (st *hashState) reset(expect int) {
	size := 256
	for size < expect*2 {
		size *= 2
	}
	// Only the slots the previous text used are dirty: clearing those is
	// far cheaper than the whole table.
	for _, oi := range st.order {
		st.slots[oi] = hashSlot{}
	}
	st.order = st.order[:0]
	if cap(st.slots) >= size {
		st.slots = st.slots[:size]
	} else {
		st.slots = make([]hashSlot, size)
	}
}

func (st *hashState) add(key uint64, w float64) {
	if key == 0 {
		key = 1 // reserve 0 for empty; FNV-1a never yields 0 for our features in practice
	}
	if len(st.order)*2 >= len(st.slots) {
		st.grow()
	}
	mask := uint64(len(st.slots) - 1)
	i := (key ^ key>>29) & mask
	for {
		sl := &st.slots[i]
		if sl.key == key {
			sl.c += w
			return
		}
		if sl.key == 0 {
			sl.key, sl.c = key, w
			st.order = append(st.order, int32(i))
			return
		}
		i = (i + 1) & mask
	}
}

func (st *hashState) grow() {
	old := st.slots
	order := append([]int32(nil), st.order...)
	st.slots = make([]hashSlot, len(old)*2)
	st.order = st.order[:0]
	for _, oi := range order {
		st.add(old[oi].key, old[oi].c)
	}
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

func fnvAppend(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime64
	}
	return h
}

func fnvBytes(b []byte) uint64 {
	h := uint64(fnvOffset64)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime64
	}
	return h
}

func (st *hashState) embed(text string) []float32 {
	// About one distinct feature per 1–2 bytes of text; size the table so
	// it rarely grows.
	st.reset(len(text) * 2)
	wPrefix := fnvString(fnvOffset64, "w:")
	st.tz.each(text, func(t []byte) {
		if isStopwordBytes(t) {
			return
		}
		st.add(fnvAppend(wPrefix, t), 1)
		// "<"+t+">" as bytes, with the byte offset of every rune, so each
		// n-gram is hashed straight from a byte slice.
		st.buf = append(append(append(st.buf[:0], '<'), t...), '>')
		st.bounds = st.bounds[:0]
		for i := range string(st.buf) {
			st.bounds = append(st.bounds, i)
		}
		st.bounds = append(st.bounds, len(st.buf))
		l := len(st.bounds) - 1
		grams := 0
		for n := 3; n <= 5; n++ {
			if l >= n {
				grams += l - n + 1
			}
		}
		if grams == 0 {
			return
		}
		wgt := 1 / math.Sqrt(float64(grams))
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= l; i++ {
				st.add(fnvBytes(st.buf[st.bounds[i]:st.bounds[i+n]]), wgt)
			}
		}
	})
	var v [hashV1Dim]float64
	for _, oi := range st.order {
		h, c := st.slots[oi].key, st.slots[oi].c
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
