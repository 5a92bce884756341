package research

import "golang.org/x/sys/cpu"

// The dense scan is memory-bound only with SIMD: the pure-Go loops run at
// 2–3× the memory-read floor on one core. AVX2 is on every x86-64 CPU of
// the last decade; others take the portable loops.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotI8I16AVX2(a *int8, q *int16, n int) int32

// dot is the float32 dot product of a and b (len(b) >= len(a)).
func dot(a, b []float32) float32 {
	if !hasAVX2 || len(a) < 16 {
		return dotGo(a, b)
	}
	b = b[:len(a)]
	n := len(a) &^ 15
	s := dotF32AVX2(&a[0], &b[0], n)
	if n < len(a) {
		s += dotGo(a[n:], b[n:])
	}
	return s
}

// dotI8 is the dot product of int8 codes with a query widened to int16
// (len(q) >= len(a)).
func dotI8(a []int8, q []int16) int32 {
	if !hasAVX2 || len(a) < 32 {
		return dotI8Go(a, q)
	}
	q = q[:len(a)]
	n := len(a) &^ 31
	s := dotI8I16AVX2(&a[0], &q[0], n)
	if n < len(a) {
		s += dotI8Go(a[n:], q[n:])
	}
	return s
}
