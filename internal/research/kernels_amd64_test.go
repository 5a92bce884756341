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

// maskKernels are the bound-mask kernels this CPU can run: the best, then
// the narrower ones down to the portable loop.
func maskKernels() []kernelChoice {
	ks := []kernelChoice{{"", func() func() { return func() {} }}}
	if hasAVX512 {
		ks = append(ks, kernelChoice{"-avx2", func() func() {
			hasAVX512 = false
			return func() { hasAVX512 = true }
		}})
	}
	if hasAVX2 {
		ks = append(ks, kernelChoice{"-go", func() func() {
			a, b := hasAVX512, hasAVX2
			hasAVX512, hasAVX2 = false, false
			return func() { hasAVX512, hasAVX2 = a, b }
		}})
	}
	return ks
}
