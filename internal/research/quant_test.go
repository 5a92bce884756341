package research

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestI8QueryBound checks the rescoring bound against the real error of
// the approximate score, on rows coded as the snapshot codes them.
func TestI8QueryBound(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, dim := range []int{64, 384, 512} {
		qv := make([]float32, dim)
		for i := range qv {
			qv[i] = float32(r.NormFloat64())
		}
		normalize(qv)
		q := newI8Query(qv)
		worst := 0.0
		for trial := 0; trial < 2000; trial++ {
			x := make([]float32, dim)
			for i := range x {
				x[i] = float32(r.NormFloat64())
				if trial%3 == 0 {
					x[i] = float32(r.Intn(3)) // coarse values round to codes exactly or at .5
				}
			}
			normalize(x)
			raw := make([]byte, 4*dim)
			for i, v := range x {
				binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
			}
			codes := make([]int8, dim)
			s := codeRow(unsafe.Slice((*byte)(unsafe.Pointer(&codes[0])), dim), raw)
			d := dotI8Go(codes, q.q16)
			err := math.Abs(float64(dot(x, qv)) - q.score(d, s))
			bound := q.errPerScale * float64(s)
			if err > bound {
				t.Fatalf("dim %d: error %g above bound %g", dim, err, bound)
			}
			worst = max(worst, err/bound)
		}
		t.Logf("dim %d: worst error %.2f of the bound", dim, worst)
	}
}
