package research

import (
	"math"
)

// i8Query is a query prepared for scoring a snapshot's int8 codes. The
// products are exact: the query is widened to int16 (q16), and for the
// VNNI kernel also split into two signed bytes per element (q8: the high
// bytes, then the low ones; q16 = 256·high + low).
type i8Query struct {
	f32   []float32
	q16   []int16
	q8    []int8
	corr  int32   // 128·Σq16, wrapping: the VNNI kernel's bias on codes
	scale float32 // q16 back to the query's scale
	// errPerScale bounds |float32 score − approximate score| for a row,
	// per unit of the row's code scale (see newI8Query).
	errPerScale float64
}

// q16Limit keeps every int16 element splittable into two signed bytes.
const q16Limit = 127*256 + 127

// newI8Query quantizes qv at the largest scale whose products with int8
// codes cannot overflow int32, and derives the rescoring bound.
//
// A row x is stored as codes c = round(x/s) with s = max|x|/127, so each
// element is off by at most s/2. With q' = scale·q16 the dequantized
// query, the approximate score s·dot(c, q') differs from the real dot
// product by at most
//
//	s·(‖q‖₁/2 + 127·‖q − q'‖₁)
//
// (the code error against q, then the query error against codes of at
// most 127). Floating point adds at most dim·2⁻²⁴·Σ|xᵢqᵢ| to the float32
// rescoring of any summation order, and ~2⁻²² relative to the
// approximate score; both are below s·128·‖q‖₁·dim·2⁻²³, which is added.
// The whole is widened by 0.1% for the rounding of the bound itself.
func newI8Query(qv []float32) *i8Query {
	dim := len(qv)
	// q8 has room past its end for kernels that load whole registers.
	q := &i8Query{f32: qv, q16: make([]int16, dim), q8: make([]int8, 2*dim, dim+max(dim, 768))}
	maxAbs := float32(0)
	for _, x := range qv {
		maxAbs = max(maxAbs, abs32(x))
	}
	if maxAbs == 0 {
		return q
	}
	limit := min(q16Limit, float64(math.MaxInt32)/(127*float64(max(1, dim))))
	scale := float32(limit) / maxAbs
	q.scale = 1 / scale
	var sum int64
	var l1, qerr float64
	for i, x := range qv {
		v := int16(math.Round(float64(x * scale)))
		q.q16[i] = v
		hi := (int32(v) + 128) >> 8
		q.q8[i], q.q8[dim+i] = int8(hi), int8(int32(v)-256*hi)
		sum += int64(v)
		l1 += math.Abs(float64(x))
		qerr += math.Abs(float64(x) - float64(v)*float64(q.scale))
	}
	q.corr = int32(128 * sum)
	q.errPerScale = (l1/2 + 127*qerr + 128*l1*float64(dim)*0x1p-23) * 1.001
	return q
}

// score is the approximate score of a row whose codes' dot product with
// q16 is d, at code scale s.
func (q *i8Query) score(d int32, s float32) float64 {
	return float64(float32(d) * s * q.scale)
}

// dotI8Rows sets out[r] to the dot product of row r of codes (dim int8s
// each) with q.q16, for the len(out) rows: four rows at a time share each
// read of the query.
func dotI8Rows(codes []int8, dim int, q *i8Query, out []int32) {
	rows := len(out)
	done := dotI8RowsSIMD(codes, dim, q, out[:rows&^3])
	for r := done; r < rows; r++ {
		out[r] = dotI8(codes[r*dim:(r+1)*dim], q.q16)
	}
}
