package research

import "golang.org/x/sys/cpu"

// The dense scan is memory-bound only with SIMD: the pure-Go loops run at
// 2–3× the memory-read floor on one core. AVX2 is on every x86-64 CPU of
// the last decade; others take the portable loops.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasVNNI selects the AVX-512 VNNI kernel for int8 codes: one VPDPBUSD
// multiplies and sums 64 bytes, against three AVX2 instructions per 16.
// x/sys/cpu sets the AVX-512 features only when the OS saves their state.
var hasVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotI8RowsVNNI(codes *int8, q8 *int8, dim, rows int, corr int32, out *int32)

//go:noescape
func dotI8RowsVNNIRegs(codes *int8, q8 *int8, dim, rows int, corr int32, out *int32)

//go:noescape
func dotI8RowsAVX2(codes *int8, q *int16, n, stride, rows int, out *int32)

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
	var s int32
	dotI8RowsAVX2(&a[0], &q[0], n, n, 1, &s)
	if n < len(a) {
		s += dotI8Go(a[n:], q[n:])
	}
	return s
}

// vnniRegsMaxDim is the largest dim whose query fits in registers.
const vnniRegsMaxDim = 768

// dotI8RowsSIMD scores the len(out) rows with a kernel
// when one fits dim, and returns how many rows it scored.
func dotI8RowsSIMD(codes []int8, dim int, q *i8Query, out []int32) int {
	rows := len(out)
	switch {
	case rows == 0:
		return 0
	case len(codes) < rows*dim || len(q.q16) < dim || cap(q.q8) < dim+vnniRegsMaxDim:
		panic("dotI8RowsSIMD: short codes or query")
	case hasVNNI && dim%64 == 0 && dim <= vnniRegsMaxDim:
		dotI8RowsVNNIRegs(&codes[0], &q.q8[0], dim, rows, q.corr, &out[0])
	case hasVNNI && dim%64 == 0:
		dotI8RowsVNNI(&codes[0], &q.q8[0], dim, rows, q.corr, &out[0])
	case hasAVX2 && dim >= 32:
		n := dim &^ 31
		dotI8RowsAVX2(&codes[0], &q.q16[0], n, dim, rows, &out[0])
		if n < dim {
			for r := range out {
				out[r] += dotI8Go(codes[r*dim+n:(r+1)*dim], q.q16[n:])
			}
		}
	default:
		return 0
	}
	return rows
}
