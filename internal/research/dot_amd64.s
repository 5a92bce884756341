#include "textflag.h"

// VNNI_ROW_OUT stores one row's dot product from the VNNI kernels'
// accumulators (Z0/Z2 the high-byte sums, Z1/Z3 the low): 256·hi + lo,
// its 16 lanes added up, less the bias in R11, to (R12); then the next
// output slot and one row fewer in BX.
#define VNNI_ROW_OUT \
	VPADDD Z2, Z0, Z0 \
	VPADDD Z3, Z1, Z1 \
	VPSLLD $8, Z0, Z0 \
	VPADDD Z1, Z0, Z0 \
	VEXTRACTI64X4 $1, Z0, Y1 \
	VPADDD Y1, Y0, Y0 \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD X1, X0, X0 \
	VPSHUFD $0x4e, X0, X1 \
	VPADDD X1, X0, X0 \
	VPSHUFD $0xb1, X0, X1 \
	VPADDD X1, X0, X0 \
	VMOVD X0, AX \
	SUBL R11, AX \
	MOVL AX, (R12) \
	ADDQ $4, R12 \
	DECQ BX


// func dotF32AVX2(a, b *float32, n int) float32
// n is a multiple of 16.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
f32loop32:
	CMPQ CX, $32
	JL f32loop16
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP f32loop32
f32loop16:
	CMPQ CX, $16
	JL f32reduce
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP f32loop16
f32reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotI8RowsVNNI(codes *int8, q8 *int8, dim, rows int, corr int32, out *int32)
// out[r] = Σ codes[r·dim+i]·q16[i] for each row r, exactly: q8 holds the
// query split into signed bytes qh (dim of them) then ql (dim), q16 =
// 256·qh + ql. VPDPBUSD multiplies unsigned by signed bytes, so each code
// is biased to c+128 (XOR 0x80) and corr = 128·Σq16 takes the bias back
// off. Sums wrap; the exact result fits int32. Rows are read one after
// the other, a single stream for the prefetcher (four rows interleaved
// ran at half the speed from memory). dim is a multiple of 64.
TEXT ·dotI8RowsVNNI(SB), NOSPLIT, $0-48
	MOVQ codes+0(FP), SI
	MOVQ q8+8(FP), DX
	MOVQ dim+16(FP), R8
	MOVQ rows+24(FP), BX
	MOVL corr+32(FP), R11
	MOVQ out+40(FP), R12
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z31
vnniRow:
	TESTQ BX, BX
	JZ vnniDone
	MOVQ DX, DI
	MOVQ R8, CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
vnni128:
	CMPQ CX, $128
	JL vnni64
	VPXORQ (SI), Z31, Z10
	VPXORQ 64(SI), Z31, Z11
	VPDPBUSD (DI), Z10, Z0
	VPDPBUSD (DI)(R8*1), Z10, Z1
	VPDPBUSD 64(DI), Z11, Z2
	VPDPBUSD 64(DI)(R8*1), Z11, Z3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $128, CX
	JMP vnni128
vnni64:
	TESTQ CX, CX
	JZ vnniSum
	VPXORQ (SI), Z31, Z10
	VPDPBUSD (DI), Z10, Z0
	VPDPBUSD (DI)(R8*1), Z10, Z1
	ADDQ $64, SI
vnniSum:
	VNNI_ROW_OUT
	JMP vnniRow
vnniDone:
	VZEROUPPER
	RET

// func dotI8RowsAVX2(codes *int8, q *int16, n, stride, rows int, out *int32)
// out[r] = Σ codes[r·stride+i]·q[i] for i < n, for each row r, rows read
// one after the other; n is a multiple of 32 (dotI8Rows adds the rest of
// a row past n).
TEXT ·dotI8RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ codes+0(FP), SI
	MOVQ q+8(FP), DX
	MOVQ n+16(FP), R8
	MOVQ stride+24(FP), R13
	SUBQ R8, R13 // bytes to skip from a row's n-th code to the next row
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R12
avx2Row:
	TESTQ BX, BX
	JZ avx2Done
	MOVQ DX, DI
	MOVQ R8, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
avx2Cols64:
	CMPQ CX, $64
	JL avx2Cols32
	VPMOVSXBW (SI), Y4
	VPMOVSXBW 16(SI), Y5
	VPMOVSXBW 32(SI), Y6
	VPMOVSXBW 48(SI), Y7
	VPMADDWD (DI), Y4, Y4
	VPMADDWD 32(DI), Y5, Y5
	VPMADDWD 64(DI), Y6, Y6
	VPMADDWD 96(DI), Y7, Y7
	VPADDD Y4, Y0, Y0
	VPADDD Y5, Y1, Y1
	VPADDD Y6, Y2, Y2
	VPADDD Y7, Y3, Y3
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $64, CX
	JMP avx2Cols64
avx2Cols32:
	TESTQ CX, CX
	JZ avx2Sum
	VPMOVSXBW (SI), Y4
	VPMOVSXBW 16(SI), Y5
	VPMADDWD (DI), Y4, Y4
	VPMADDWD 32(DI), Y5, Y5
	VPADDD Y4, Y0, Y0
	VPADDD Y5, Y1, Y1
	ADDQ $32, SI
avx2Sum:
	ADDQ R13, SI
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, (R12)
	ADDQ $4, R12
	DECQ BX
	JMP avx2Row
avx2Done:
	VZEROUPPER
	RET

// func dotI8RowsVNNIRegs(codes *int8, q8 *int8, dim, rows int, corr int32, out *int32)
// dotI8RowsVNNI with the whole query held in registers, for dim ≤ 768
// (a multiple of 64): Z8–Z19 the high bytes, Z20–Z31 the low ones. Each
// 64 bytes of codes then costs one load and two VPDPBUSD, ~15% faster
// from cache than reading the query beside the codes. q8 must have room
// for 768 bytes past dim (the loads of unused registers read padding).
TEXT ·dotI8RowsVNNIRegs(SB), NOSPLIT, $0-48
	MOVQ codes+0(FP), SI
	MOVQ q8+8(FP), DX
	MOVQ dim+16(FP), R8
	MOVQ rows+24(FP), BX
	MOVL corr+32(FP), R11
	MOVQ out+40(FP), R12
	LEAQ (DX)(R8*1), R9
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z6
	VMOVDQU64 0(DX), Z8
	VMOVDQU64 64(DX), Z9
	VMOVDQU64 128(DX), Z10
	VMOVDQU64 192(DX), Z11
	VMOVDQU64 256(DX), Z12
	VMOVDQU64 320(DX), Z13
	VMOVDQU64 384(DX), Z14
	VMOVDQU64 448(DX), Z15
	VMOVDQU64 512(DX), Z16
	VMOVDQU64 576(DX), Z17
	VMOVDQU64 640(DX), Z18
	VMOVDQU64 704(DX), Z19
	VMOVDQU64 0(R9), Z20
	VMOVDQU64 64(R9), Z21
	VMOVDQU64 128(R9), Z22
	VMOVDQU64 192(R9), Z23
	VMOVDQU64 256(R9), Z24
	VMOVDQU64 320(R9), Z25
	VMOVDQU64 384(R9), Z26
	VMOVDQU64 448(R9), Z27
	VMOVDQU64 512(R9), Z28
	VMOVDQU64 576(R9), Z29
	VMOVDQU64 640(R9), Z30
	VMOVDQU64 704(R9), Z31
regsRow:
	TESTQ BX, BX
	JZ regsDone
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ 0(SI), Z6, Z4
	VPDPBUSD Z8, Z4, Z0
	VPDPBUSD Z20, Z4, Z1
	CMPQ R8, $64
	JEQ regsSum
	VPXORQ 64(SI), Z6, Z5
	VPDPBUSD Z9, Z5, Z2
	VPDPBUSD Z21, Z5, Z3
	CMPQ R8, $128
	JEQ regsSum
	VPXORQ 128(SI), Z6, Z4
	VPDPBUSD Z10, Z4, Z0
	VPDPBUSD Z22, Z4, Z1
	CMPQ R8, $192
	JEQ regsSum
	VPXORQ 192(SI), Z6, Z5
	VPDPBUSD Z11, Z5, Z2
	VPDPBUSD Z23, Z5, Z3
	CMPQ R8, $256
	JEQ regsSum
	VPXORQ 256(SI), Z6, Z4
	VPDPBUSD Z12, Z4, Z0
	VPDPBUSD Z24, Z4, Z1
	CMPQ R8, $320
	JEQ regsSum
	VPXORQ 320(SI), Z6, Z5
	VPDPBUSD Z13, Z5, Z2
	VPDPBUSD Z25, Z5, Z3
	CMPQ R8, $384
	JEQ regsSum
	VPXORQ 384(SI), Z6, Z4
	VPDPBUSD Z14, Z4, Z0
	VPDPBUSD Z26, Z4, Z1
	CMPQ R8, $448
	JEQ regsSum
	VPXORQ 448(SI), Z6, Z5
	VPDPBUSD Z15, Z5, Z2
	VPDPBUSD Z27, Z5, Z3
	CMPQ R8, $512
	JEQ regsSum
	VPXORQ 512(SI), Z6, Z4
	VPDPBUSD Z16, Z4, Z0
	VPDPBUSD Z28, Z4, Z1
	CMPQ R8, $576
	JEQ regsSum
	VPXORQ 576(SI), Z6, Z5
	VPDPBUSD Z17, Z5, Z2
	VPDPBUSD Z29, Z5, Z3
	CMPQ R8, $640
	JEQ regsSum
	VPXORQ 640(SI), Z6, Z4
	VPDPBUSD Z18, Z4, Z0
	VPDPBUSD Z30, Z4, Z1
	CMPQ R8, $704
	JEQ regsSum
	VPXORQ 704(SI), Z6, Z5
	VPDPBUSD Z19, Z5, Z2
	VPDPBUSD Z31, Z5, Z3
regsSum:
	ADDQ R8, SI
	VNNI_ROW_OUT
	JMP regsRow
regsDone:
	VZEROUPPER
	RET
