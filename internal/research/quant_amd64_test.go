package research

import (
	"math/rand"
	"testing"
)

// TestDotI8RowsKernels checks every int8 row kernel this CPU has against
// the portable loop, at the extremes of codes and query and at dims and
// row counts around the kernels' widths.
func TestDotI8RowsKernels(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	kernels := []struct {
		name       string
		vnni, avx2 bool
	}{{"vnni", true, true}, {"avx2", false, true}, {"go", false, false}}
	// dims past vnniRegsMaxDim take the VNNI kernel that reads the query
	// from memory.
	for _, k := range kernels {
		if (k.vnni && !hasVNNI) || (k.avx2 && !hasAVX2) {
			t.Logf("%s: not on this CPU", k.name)
			continue
		}
		setKernels(t, k.vnni, k.avx2)
		for _, dim := range []int{16, 48, 64, 100, 128, 320, 384, 512, 704, 768, 832, 1536} {
			for _, rows := range []int{0, 1, 3, 4, 5, 8, 9, 13} {
				for _, mode := range []string{"random", "max", "min", "mixed"} {
					qv := make([]float32, dim)
					codes := make([]int8, rows*dim)
					for i := range qv {
						qv[i] = r.Float32()*2 - 1
					}
					for i := range codes {
						switch mode {
						case "random":
							codes[i] = int8(r.Intn(255) - 127)
						case "max":
							codes[i], qv[i%dim] = 127, 1
						case "min":
							codes[i], qv[i%dim] = -127, 1
						case "mixed":
							codes[i], qv[i%dim] = -127, -1
						}
					}
					q := newI8Query(qv)
					out := make([]int32, rows)
					dotI8Rows(codes, dim, q, out)
					for row := range out {
						if want := dotI8Go(codes[row*dim:(row+1)*dim], q.q16); out[row] != want {
							t.Fatalf("%s dim=%d rows=%d %s row %d: %d, want %d", k.name, dim, rows, mode, row, out[row], want)
						}
					}
				}
			}
		}
	}
}

// setKernels switches kernels off for a test, restoring them after.
func setKernels(t *testing.T, vnni, avx2 bool) {
	oldV, oldA := hasVNNI, hasAVX2
	hasVNNI, hasAVX2 = vnni, avx2
	t.Cleanup(func() { hasVNNI, hasAVX2 = oldV, oldA })
}
