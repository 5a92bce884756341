package research

import (
	"math"
	"math/rand"
	"testing"
)

// TestBoundMask checks the vector masks against the scalar one on blocks
// of every tail length, with thresholds below, inside and above the
// spread of bounds (and -Inf, which a scan starts with).
func TestBoundMask(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, rows := range []int{0, 1, 7, 8, 15, 16, 17, 100, 255, 256} {
		scores := make([]int32, rows)
		scales := make([]float32, rows)
		var maxScale float32
		for i := range scores {
			scores[i] = int32(r.Intn(2_000_000) - 1_000_000)
			scales[i] = r.Float32() * 0.02
			maxScale = max(maxScale, scales[i])
		}
		const qs, errPerScale = 1e-4, 3.5
		for _, thr := range []float32{float32(math.Inf(-1)), -1, 0, 0.5, 1, 3} {
			var want blockMask
			boundMaskGo(scores, scales, 0, qs, errPerScale, thr, maxScale, &want)
			for _, k := range maskKernels() {
				var got blockMask
				restore := k.use()
				boundMask(scores, scales, qs, errPerScale, thr, maxScale, &got)
				restore()
				if got != want {
					t.Fatalf("kernel %q, rows %d thr %v: mask %x, want %x", k.name, rows, thr, got, want)
				}
			}
			for i := range scores {
				in := want[i/64]&(1<<(i%64)) != 0
				if ub := float32(scores[i])*scales[i]*qs + errPerScale*scales[i]; in != (ub >= thr) {
					t.Fatalf("rows %d thr %v: row %d (bound %v) in mask: %v", rows, thr, i, ub, in)
				}
			}
		}
	}
}
