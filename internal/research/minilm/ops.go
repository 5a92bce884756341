package minilm

import "math"

// lnEps is BERT's LayerNorm epsilon.
const lnEps = 1e-12

// layerNormRow normalises one row in place.
func layerNormRow(x []float32, ln layerNorm) {
	var s float32
	for _, v := range x {
		s += v
	}
	mean := s / float32(len(x))
	var q float32
	for _, v := range x {
		d := v - mean
		q += d * d
	}
	inv := float32(1 / math.Sqrt(float64(q/float32(len(x)))+lnEps))
	w, b := ln.w[:len(x)], ln.b[:len(x)]
	for i, v := range x {
		x[i] = (v-mean)*inv*w[i] + b[i]
	}
}

// addNorm is x = LayerNorm(x + y), row by row.
func addNorm(x, y []float32, ln layerNorm) {
	for i := 0; i+Dim <= len(x); i += Dim {
		r, d := x[i:i+Dim], y[i:i+Dim]
		for j := range r {
			r[j] += d[j]
		}
		layerNormRow(r, ln)
	}
}

// gelu is BERT's exact GELU, x·Φ(x), in place.
func gelu(x []float32) {
	if useAsm && len(x) >= 8 && len(x)%8 == 0 {
		geluAvx2(&x[0], len(x))
		return
	}
	for i, v := range x {
		x[i] = 0.5 * v * (1 + erf(v*math.Sqrt2/2))
	}
}

// softmax in place (−Inf entries get 0).
func softmax(x []float32) {
	if useAsm && len(x) >= 8 && len(x)%8 == 0 {
		softmaxAvx2(&x[0], len(x))
		return
	}
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	var s float32
	for i, v := range x {
		e := expf(v - m)
		x[i] = e
		s += e
	}
	inv := 1 / s
	for i := range x {
		x[i] *= inv
	}
}

// expf is e^x in float32 (Cephes' expf: relative error ~1e-7), several
// times faster than math.Exp, which dominates softmax and GELU otherwise.
func expf(x float32) float32 {
	switch {
	case x < -87:
		return 0
	case x > 88:
		return float32(math.Inf(1))
	}
	const log2e, ln2hi, ln2lo = 1.44269504088896341, 0.693359375, -2.12194440e-4
	t := x * log2e
	if t < 0 {
		t -= 0.5
	} else {
		t += 0.5
	}
	n := int32(t)
	fn := float32(n)
	r := x - fn*ln2hi - fn*ln2lo
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	y := p*r*r + r + 1
	if n < -126 {
		return y * math.Float32frombits(uint32(n+126+127)<<23) * math.Float32frombits(1<<23)
	}
	return y * math.Float32frombits(uint32(n+127)<<23)
}

// erf (Abramowitz–Stegun 7.1.26, absolute error < 1.5e-7).
func erf(x float32) float32 {
	s := float32(1)
	if x < 0 {
		s, x = -1, -x
	}
	t := 1 / (1 + 0.3275911*x)
	y := 1 - ((((1.061405429*t-1.453152027)*t+1.421413741)*t-0.284496736)*t+0.254829592)*t*expf(-x*x)
	return s * y
}
