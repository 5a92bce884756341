//go:build !amd64

package research

// int8Kernels is the portable loop only here.
func int8Kernels() []kernelChoice {
	return []kernelChoice{{"", func() func() { return func() {} }}}
}

// maskKernels is the portable loop only here.
func maskKernels() []kernelChoice { return int8Kernels() }
