package minilm

import (
	"math"
	"sync"
)

// rowBlock is the kernel's height: activations are allocated in multiples
// of it, so every kernel call is a full block (padding rows stay finite and
// are never read back).
const rowBlock = 6

// Encoder holds one goroutine's buffers. Texts given together are stacked
// into one matrix: the linear layers (nine tenths of the work) run over all
// their tokens at once, attention runs per text, so batching short texts
// costs no padding.
type Encoder struct {
	m *Model
	// Threads is how many goroutines one batch may use (≤1: the caller's
	// only). Parallel inside a batch pays for one long text; many texts
	// are better spread over Encoders.
	Threads int
	// Pause, when set, is called before each step of each layer: it may
	// block (a background pass giving way to foreground work, between
	// steps of a few tens of milliseconds for a batch of chunks) and
	// returns false to stop the batch, Encode then returning nil.
	Pause func() bool

	ids                      []int32
	x, qkv, ctx, tmp, hidden []float32
	att                      []attScratch
}

// attScratch is one attention worker's buffers.
type attScratch struct{ kp, vp, s, o []float32 }

// NewEncoder returns an encoder with its own buffers.
func (m *Model) NewEncoder(threads int) *Encoder { return &Encoder{m: m, Threads: threads} }

// Encode returns each text's unit vector (nil when Pause stopped it).
func (e *Encoder) Encode(texts []string) [][]float32 {
	m := e.m
	e.ids = e.ids[:0]
	seg := make([]int, 0, len(texts)+1) // token offsets of each text
	seg = append(seg, 0)
	for _, t := range texts {
		e.ids = append(e.ids, m.Tokens(nil, t)...)
		seg = append(seg, len(e.ids))
	}
	rows := len(e.ids)
	e.alloc(rows)

	// Embeddings: dequantised word row + position, then LayerNorm.
	for i, s := 0, 0; i < rows; i++ {
		for i >= seg[s+1] {
			s++
		}
		r := m.vocabRow[e.ids[i]]
		if r < 0 {
			r = m.unkRow
		}
		x := e.x[i*Dim : (i+1)*Dim]
		m.wordRow(x, r, m.pos[(i-seg[s])*Dim:])
		layerNormRow(x, m.embLN)
	}

	// A pause point before each step of a layer: the longest step (a
	// feed-forward half) is under a third of it.
	for li := range m.layers {
		l := &m.layers[li]
		if e.stopped() {
			return nil
		}
		e.linear(e.qkv, e.x, &l.qkv)
		if e.stopped() {
			return nil
		}
		e.attention(seg)
		if e.stopped() {
			return nil
		}
		e.linear(e.tmp, e.ctx, &l.ao)
		addNorm(e.x[:rows*Dim], e.tmp, l.ln1)
		if e.stopped() {
			return nil
		}
		e.linear(e.hidden, e.x, &l.fi)
		gelu(e.hidden[:rows*FFN])
		if e.stopped() {
			return nil
		}
		e.linear(e.tmp, e.hidden, &l.fo)
		addNorm(e.x[:rows*Dim], e.tmp, l.ln2)
	}

	out := make([][]float32, len(texts))
	for t := range texts {
		v := make([]float64, Dim)
		for i := seg[t]; i < seg[t+1]; i++ {
			for j, x := range e.x[i*Dim : (i+1)*Dim] {
				v[j] += float64(x)
			}
		}
		var n float64
		for _, x := range v {
			n += x * x
		}
		o := make([]float32, Dim)
		if n > 0 {
			inv := 1 / math.Sqrt(n)
			for j, x := range v {
				o[j] = float32(x * inv)
			}
		}
		out[t] = o
	}
	return out
}

// stopped asks Pause (if set) whether to go on, waiting as it says.
func (e *Encoder) stopped() bool { return e.Pause != nil && !e.Pause() }

// PausePoints is how often one Encode call asks Pause when it runs to
// the end (five steps per layer).
const PausePoints = Layers * 5

func (e *Encoder) alloc(rows int) {
	n := (rows+rowBlock-1)/rowBlock*rowBlock + rowBlock
	grow := func(b []float32, w int) []float32 {
		if cap(b) < n*w {
			return make([]float32, n*w)
		}
		return b[:n*w]
	}
	e.x, e.qkv, e.ctx, e.tmp, e.hidden = grow(e.x, Dim), grow(e.qkv, 3*Dim), grow(e.ctx, Dim), grow(e.tmp, Dim), grow(e.hidden, FFN)
}

func (e *Encoder) threads() int { return max(1, e.Threads) }

// linear computes dst = src·Wᵀ·scale + bias over the padded rows, the
// output panels split across threads: each core then streams only its
// share of the weights, which matters most for short inputs.
func (e *Encoder) linear(dst, src []float32, l *linear) {
	rows := len(src) / l.in
	panels := l.out / panel
	t := min(e.threads(), panels)
	if t <= 1 || rows*l.in*l.out < 1<<21 {
		gemmI8(dst, l.out, src, l.in, rows, l, 0, panels)
		return
	}
	var wg sync.WaitGroup
	per := (panels + t - 1) / t
	for p := 0; p < panels; p += per {
		wg.Add(1)
		go func(p0, p1 int) {
			defer wg.Done()
			gemmI8(dst, l.out, src, l.in, rows, l, p0, p1)
		}(p, min(p+per, panels))
	}
	wg.Wait()
}

// attention fills ctx from qkv, text by text and head by head.
func (e *Encoder) attention(seg []int) {
	type job struct{ s, h int }
	var jobs []job
	for s := 0; s+1 < len(seg); s++ {
		for h := range Heads {
			jobs = append(jobs, job{s, h})
		}
	}
	t := min(e.threads(), len(jobs))
	if seg[len(seg)-1] < 32 {
		t = 1
	}
	for len(e.att) < t {
		e.att = append(e.att, attScratch{})
	}
	if t <= 1 {
		for _, j := range jobs {
			e.head(&e.att[0], seg[j.s], seg[j.s+1], j.h)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range t {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(jobs); i += t {
				e.head(&e.att[w], seg[jobs[i].s], seg[jobs[i].s+1], jobs[i].h)
			}
		}()
	}
	wg.Wait()
}

// head is one attention head over tokens [a, b): softmax(q·kᵀ)·v (q is
// pre-scaled by 1/√32 in the weights).
func (e *Encoder) head(sc *attScratch, a, b, h int) {
	n := b - a
	np := (n + panel - 1) / panel * panel
	nr := (n + rowBlock - 1) / rowBlock * rowBlock
	sc.kp = growF(sc.kp, np*HeadDim)
	sc.vp = growF(sc.vp, HeadDim*n)
	sc.s = growF(sc.s, nr*np)
	sc.o = growF(sc.o, nr*HeadDim)
	const ld = 3 * Dim
	q := e.qkv[a*ld+h*HeadDim:]
	// K packed as the B of scores = q·kᵀ: [np/16][32][16], pad columns 0.
	clear(sc.kp)
	for j := range n {
		k := e.qkv[(a+j)*ld+Dim+h*HeadDim:][:HeadDim]
		base := j/panel*HeadDim*panel + j%panel
		for d, x := range k {
			sc.kp[base+d*panel] = x
		}
	}
	// V packed as the B of out = p·v: [2][n][16].
	for j := range n {
		v := e.qkv[(a+j)*ld+2*Dim+h*HeadDim:][:HeadDim]
		copy(sc.vp[j*panel:], v[:panel])
		copy(sc.vp[n*panel+j*panel:], v[panel:])
	}
	// The A rows past n read the next rows of qkv (or its padding): the
	// kernel computes them, nobody reads them.
	gemmF32(sc.s, np, q, ld, nr, sc.kp, HeadDim, np/panel)
	// Pad columns get −Inf, so each row is a whole number of vectors.
	inf := float32(math.Inf(-1))
	for i := range n {
		row := sc.s[i*np : (i+1)*np]
		for j := n; j < np; j++ {
			row[j] = inf
		}
		softmax(row)
	}
	gemmF32(sc.o, HeadDim, sc.s, np, nr, sc.vp, n, HeadDim/panel)
	for i := range n {
		copy(e.ctx[(a+i)*Dim+h*HeadDim:][:HeadDim], sc.o[i*HeadDim:(i+1)*HeadDim])
	}
}

func growF(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}
