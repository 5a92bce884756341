package minilm

import "golang.org/x/sys/cpu"

// useAsm selects the AVX2/FMA kernels (every x86-64 CPU of the last
// decade); tests switch it off to check the portable loops against them.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func gemmI8Avx2(a *float32, lda int, w *int8, k int, c *float32, ldc int, scale, bias *float32, panels int)

//go:noescape
func gemmF32Avx2(a *float32, lda int, b *float32, k int, c *float32, ldc int, panels int)

//go:noescape
func softmaxAvx2(x *float32, n int)

//go:noescape
func geluAvx2(x *float32, n int)
