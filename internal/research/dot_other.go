//go:build !amd64

package research

func dot(a, b []float32) float32 { return dotGo(a, b) }

func dotI8(a []int8, q []int16) int32 { return dotI8Go(a, q) }
