package research

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAVX512 selects the 16-lane bound mask (the VNNI CPUs have it).
var hasAVX512 = cpu.X86.HasAVX512F

//go:noescape
func boundMaskAVX512(scores *int32, scales *float32, n int, qs, errPerScale, thr float32, mask *uint16)

//go:noescape
func boundMaskAVX2(scores *int32, scales *float32, n int, qs, errPerScale, thr float32, mask *uint8)

// boundMask sets bit r of mask for each row r whose upper bound reaches
// thr (see boundMaskGo): 16 or 8 rows per instruction sequence, so the
// ~99% of rows a scan drops cost no branch and no scalar load.
func boundMask(scores []int32, scales []float32, qs, errPerScale, thr, maxScale float32, mask *blockMask) {
	n := len(scores)
	done := 0
	switch {
	case n == 0:
	case hasAVX512 && hasAVX2:
		done = n &^ 15
		if done > 0 {
			boundMaskAVX512(&scores[0], &scales[0], done, qs, errPerScale, thr, (*uint16)(unsafe.Pointer(&mask[0])))
		}
	case hasAVX2:
		done = n &^ 7
		if done > 0 {
			boundMaskAVX2(&scores[0], &scales[0], done, qs, errPerScale, thr, (*uint8)(unsafe.Pointer(&mask[0])))
		}
	}
	boundMaskGo(scores, scales, done, qs, errPerScale, thr, maxScale, mask)
}
