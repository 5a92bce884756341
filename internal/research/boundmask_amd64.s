#include "textflag.h"

// BOUND_UB loads the dot products and scales of the rows at AX and leaves
// their upper bounds in ub: float32(d)·scale·qs + errPerScale·scale, in
// boundSelect's order of operations (qs, e: the broadcast factors; s, t:
// scratch). One macro for both register widths.
#define BOUND_UB(ub, s, t, qs, e) \
	VCVTDQ2PS (SI)(AX*4), ub \
	VMOVUPS (DI)(AX*4), s \
	VMULPS s, ub, ub \
	VMULPS qs, ub, ub \
	VMULPS s, e, t \
	VADDPS t, ub, ub

// func boundMaskAVX512(scores *int32, scales *float32, n int, qs, errPerScale, thr float32, mask *uint16)
// n is a multiple of 16; one mask word per 16 rows.
TEXT ·boundMaskAVX512(SB), NOSPLIT, $0-48
	MOVQ scores+0(FP), SI
	MOVQ scales+8(FP), DI
	MOVQ n+16(FP), CX
	VBROADCASTSS qs+24(FP), Z1
	VBROADCASTSS errPerScale+28(FP), Z2
	VBROADCASTSS thr+32(FP), Z3
	MOVQ mask+40(FP), DX
	XORQ AX, AX
	TESTQ CX, CX
	JZ avx512Done
avx512Loop:
	BOUND_UB(Z4, Z5, Z6, Z1, Z2)
	VCMPPS $0x1d, Z3, Z4, K1
	KMOVW K1, BX
	MOVW BX, (DX)
	ADDQ $2, DX
	ADDQ $16, AX
	CMPQ AX, CX
	JLT avx512Loop
avx512Done:
	VZEROUPPER
	RET

// func boundMaskAVX2(scores *int32, scales *float32, n int, qs, errPerScale, thr float32, mask *uint8)
// n is a multiple of 8; one mask byte per 8 rows.
TEXT ·boundMaskAVX2(SB), NOSPLIT, $0-48
	MOVQ scores+0(FP), SI
	MOVQ scales+8(FP), DI
	MOVQ n+16(FP), CX
	VBROADCASTSS qs+24(FP), Y1
	VBROADCASTSS errPerScale+28(FP), Y2
	VBROADCASTSS thr+32(FP), Y3
	MOVQ mask+40(FP), DX
	XORQ AX, AX
	TESTQ CX, CX
	JZ avx2Done
avx2Loop:
	BOUND_UB(Y4, Y5, Y6, Y1, Y2)
	VCMPPS $0x1d, Y3, Y4, Y4
	VMOVMSKPS Y4, BX
	MOVB BX, (DX)
	INCQ DX
	ADDQ $8, AX
	CMPQ AX, CX
	JLT avx2Loop
avx2Done:
	VZEROUPPER
	RET
