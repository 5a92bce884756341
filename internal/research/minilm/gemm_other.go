//go:build !amd64

package minilm

// useAsm is a variable, as on amd64, so tests can set it.
var useAsm = false

func gemmI8Avx2(a *float32, lda int, w *int8, k int, c *float32, ldc int, scale, bias *float32, panels int) {
	panic("unreachable")
}

func gemmF32Avx2(a *float32, lda int, b *float32, k int, c *float32, ldc int, panels int) {
	panic("unreachable")
}

func softmaxAvx2(x *float32, n int) { panic("unreachable") }

func geluAvx2(x *float32, n int) { panic("unreachable") }
