package research

// dotGo is a 4-accumulator unrolled dot product (≈2.5× a naive loop).
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// dotI8Go is the portable int8 × int16 dot product.
func dotI8Go(a []int8, q []int16) int32 {
	q = q[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(q[i])
		s1 += int32(a[i+1]) * int32(q[i+1])
		s2 += int32(a[i+2]) * int32(q[i+2])
		s3 += int32(a[i+3]) * int32(q[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(q[i])
	}
	return s0 + s1 + s2 + s3
}
