//go:build !amd64

package research

// int8Kernels is the portable loop only here.
func int8Kernels() []kernelChoice {
	return []kernelChoice{{"", func() func() { return func() {} }}}
}
