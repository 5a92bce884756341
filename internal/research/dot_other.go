//go:build !amd64

package research

func dot(a, b []float32) float32 { return dotGo(a, b) }

func dotI8(a []int8, q []int16) int32 { return dotI8Go(a, q) }

// dotI8RowsSIMD has no kernel here: dotI8Rows scores every row itself.
func dotI8RowsSIMD([]int8, int, *i8Query, []int32) int { return 0 }
