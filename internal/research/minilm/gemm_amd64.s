#include "textflag.h"

// The kernels compute a 6-row × 16-column tile per output panel: twelve
// YMM accumulators (Y0–Y11, two per row), the panel's 16 weights of one k
// in Y12/Y13 (int8 widened to float32 once, then used by all six rows) and
// a broadcast activation. Rows are lda floats apart (R8 bytes; SI and R9
// point at rows 0 and 3), output rows ldc floats apart (R10 bytes).

// PANEL_START points SI/R9 at the block's rows, CX at k, and zeroes the
// accumulators.
#define PANEL_START \
	MOVQ AX, SI \
	LEAQ (AX)(R8*2), R9 \
	ADDQ R8, R9 \
	MOVQ BX, CX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// FMA6 adds the six rows' activations at k times Y12/Y13, and steps k.
#define FMA6 \
	VBROADCASTSS (SI), Y14 \
	VFMADD231PS Y12, Y14, Y0 \
	VFMADD231PS Y13, Y14, Y1 \
	VBROADCASTSS (SI)(R8*1), Y15 \
	VFMADD231PS Y12, Y15, Y2 \
	VFMADD231PS Y13, Y15, Y3 \
	VBROADCASTSS (SI)(R8*2), Y14 \
	VFMADD231PS Y12, Y14, Y4 \
	VFMADD231PS Y13, Y14, Y5 \
	VBROADCASTSS (R9), Y15 \
	VFMADD231PS Y12, Y15, Y6 \
	VFMADD231PS Y13, Y15, Y7 \
	VBROADCASTSS (R9)(R8*1), Y14 \
	VFMADD231PS Y12, Y14, Y8 \
	VFMADD231PS Y13, Y14, Y9 \
	VBROADCASTSS (R9)(R8*2), Y15 \
	VFMADD231PS Y12, Y15, Y10 \
	VFMADD231PS Y13, Y15, Y11 \
	ADDQ $4, SI \
	ADDQ $4, R9

// STORE6 writes the tile to the output rows at DX and steps DX a panel.
#define STORE6 \
	MOVQ DX, SI \
	LEAQ (DX)(R10*2), R9 \
	ADDQ R10, R9 \
	VMOVUPS Y0, (SI) \
	VMOVUPS Y1, 32(SI) \
	VMOVUPS Y2, (SI)(R10*1) \
	VMOVUPS Y3, 32(SI)(R10*1) \
	VMOVUPS Y4, (SI)(R10*2) \
	VMOVUPS Y5, 32(SI)(R10*2) \
	VMOVUPS Y6, (R9) \
	VMOVUPS Y7, 32(R9) \
	VMOVUPS Y8, (R9)(R10*1) \
	VMOVUPS Y9, 32(R9)(R10*1) \
	VMOVUPS Y10, (R9)(R10*2) \
	VMOVUPS Y11, 32(R9)(R10*2) \
	ADDQ $64, DX

// func gemmI8Avx2(a *float32, lda int, w *int8, k int, c *float32, ldc int, scale, bias *float32, panels int)
TEXT ·gemmI8Avx2(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), AX
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ w+16(FP), DI
	MOVQ k+24(FP), BX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R10
	SHLQ $2, R10
	MOVQ scale+48(FP), R11
	MOVQ bias+56(FP), R12
	MOVQ panels+64(FP), R13
i8panel:
	PANEL_START
i8k:
	VPMOVSXBD (DI), Y12
	VPMOVSXBD 8(DI), Y13
	VCVTDQ2PS Y12, Y12
	VCVTDQ2PS Y13, Y13
	FMA6
	ADDQ $16, DI
	DECQ CX
	JNZ i8k
	VMOVUPS (R11), Y12
	VMOVUPS 32(R11), Y13
	VFMADD213PS (R12), Y12, Y0
	VFMADD213PS 32(R12), Y13, Y1
	VFMADD213PS (R12), Y12, Y2
	VFMADD213PS 32(R12), Y13, Y3
	VFMADD213PS (R12), Y12, Y4
	VFMADD213PS 32(R12), Y13, Y5
	VFMADD213PS (R12), Y12, Y6
	VFMADD213PS 32(R12), Y13, Y7
	VFMADD213PS (R12), Y12, Y8
	VFMADD213PS 32(R12), Y13, Y9
	VFMADD213PS (R12), Y12, Y10
	VFMADD213PS 32(R12), Y13, Y11
	STORE6
	ADDQ $64, R11
	ADDQ $64, R12
	DECQ R13
	JNZ i8panel
	VZEROUPPER
	RET

// func gemmF32Avx2(a *float32, lda int, b *float32, k int, c *float32, ldc int, panels int)
TEXT ·gemmF32Avx2(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), AX
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ b+16(FP), DI
	MOVQ k+24(FP), BX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R10
	SHLQ $2, R10
	MOVQ panels+48(FP), R13
f32panel:
	PANEL_START
f32k:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	FMA6
	ADDQ $64, DI
	DECQ CX
	JNZ f32k
	STORE6
	DECQ R13
	JNZ f32panel
	VZEROUPPER
	RET
