//go:build !amd64

package research

// boundMask sets bit r of mask for each row r whose upper bound reaches
// thr (see boundMaskGo).
func boundMask(scores []int32, scales []float32, qs, errPerScale, thr, maxScale float32, mask *blockMask) {
	boundMaskGo(scores, scales, 0, qs, errPerScale, thr, maxScale, mask)
}
