package research

// int8Kernels are the int8 kernels this CPU can run, for benchmarks:
// the best one (no suffix), then AVX2 alone where VNNI is there too.
func int8Kernels() []kernelChoice {
	ks := []kernelChoice{{"", func() func() { return func() {} }}}
	if hasVNNI {
		ks = append(ks, kernelChoice{"-avx2", func() func() {
			hasVNNI = false
			return func() { hasVNNI = true }
		}})
	}
	return ks
}
