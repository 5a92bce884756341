#include "textflag.h"

// Vector exp (Cephes expf, as expf in ops.go) for softmax and GELU: these
// run over every attention score and every feed-forward activation and
// cost more than the matrix products when done one float at a time.

DATA vc<>+0(SB)/4, $0x3fb8aa3b
DATA vc<>+4(SB)/4, $0x3fb8aa3b
DATA vc<>+8(SB)/4, $0x3fb8aa3b
DATA vc<>+12(SB)/4, $0x3fb8aa3b
DATA vc<>+16(SB)/4, $0x3fb8aa3b
DATA vc<>+20(SB)/4, $0x3fb8aa3b
DATA vc<>+24(SB)/4, $0x3fb8aa3b
DATA vc<>+28(SB)/4, $0x3fb8aa3b
DATA vc<>+32(SB)/4, $0x3f318000
DATA vc<>+36(SB)/4, $0x3f318000
DATA vc<>+40(SB)/4, $0x3f318000
DATA vc<>+44(SB)/4, $0x3f318000
DATA vc<>+48(SB)/4, $0x3f318000
DATA vc<>+52(SB)/4, $0x3f318000
DATA vc<>+56(SB)/4, $0x3f318000
DATA vc<>+60(SB)/4, $0x3f318000
DATA vc<>+64(SB)/4, $0xb95e8083
DATA vc<>+68(SB)/4, $0xb95e8083
DATA vc<>+72(SB)/4, $0xb95e8083
DATA vc<>+76(SB)/4, $0xb95e8083
DATA vc<>+80(SB)/4, $0xb95e8083
DATA vc<>+84(SB)/4, $0xb95e8083
DATA vc<>+88(SB)/4, $0xb95e8083
DATA vc<>+92(SB)/4, $0xb95e8083
DATA vc<>+96(SB)/4, $0x39506967
DATA vc<>+100(SB)/4, $0x39506967
DATA vc<>+104(SB)/4, $0x39506967
DATA vc<>+108(SB)/4, $0x39506967
DATA vc<>+112(SB)/4, $0x39506967
DATA vc<>+116(SB)/4, $0x39506967
DATA vc<>+120(SB)/4, $0x39506967
DATA vc<>+124(SB)/4, $0x39506967
DATA vc<>+128(SB)/4, $0x3ab743ce
DATA vc<>+132(SB)/4, $0x3ab743ce
DATA vc<>+136(SB)/4, $0x3ab743ce
DATA vc<>+140(SB)/4, $0x3ab743ce
DATA vc<>+144(SB)/4, $0x3ab743ce
DATA vc<>+148(SB)/4, $0x3ab743ce
DATA vc<>+152(SB)/4, $0x3ab743ce
DATA vc<>+156(SB)/4, $0x3ab743ce
DATA vc<>+160(SB)/4, $0x3c088908
DATA vc<>+164(SB)/4, $0x3c088908
DATA vc<>+168(SB)/4, $0x3c088908
DATA vc<>+172(SB)/4, $0x3c088908
DATA vc<>+176(SB)/4, $0x3c088908
DATA vc<>+180(SB)/4, $0x3c088908
DATA vc<>+184(SB)/4, $0x3c088908
DATA vc<>+188(SB)/4, $0x3c088908
DATA vc<>+192(SB)/4, $0x3d2aa9c1
DATA vc<>+196(SB)/4, $0x3d2aa9c1
DATA vc<>+200(SB)/4, $0x3d2aa9c1
DATA vc<>+204(SB)/4, $0x3d2aa9c1
DATA vc<>+208(SB)/4, $0x3d2aa9c1
DATA vc<>+212(SB)/4, $0x3d2aa9c1
DATA vc<>+216(SB)/4, $0x3d2aa9c1
DATA vc<>+220(SB)/4, $0x3d2aa9c1
DATA vc<>+224(SB)/4, $0x3e2aaaaa
DATA vc<>+228(SB)/4, $0x3e2aaaaa
DATA vc<>+232(SB)/4, $0x3e2aaaaa
DATA vc<>+236(SB)/4, $0x3e2aaaaa
DATA vc<>+240(SB)/4, $0x3e2aaaaa
DATA vc<>+244(SB)/4, $0x3e2aaaaa
DATA vc<>+248(SB)/4, $0x3e2aaaaa
DATA vc<>+252(SB)/4, $0x3e2aaaaa
DATA vc<>+256(SB)/4, $0x3f000000
DATA vc<>+260(SB)/4, $0x3f000000
DATA vc<>+264(SB)/4, $0x3f000000
DATA vc<>+268(SB)/4, $0x3f000000
DATA vc<>+272(SB)/4, $0x3f000000
DATA vc<>+276(SB)/4, $0x3f000000
DATA vc<>+280(SB)/4, $0x3f000000
DATA vc<>+284(SB)/4, $0x3f000000
DATA vc<>+288(SB)/4, $0x3f800000
DATA vc<>+292(SB)/4, $0x3f800000
DATA vc<>+296(SB)/4, $0x3f800000
DATA vc<>+300(SB)/4, $0x3f800000
DATA vc<>+304(SB)/4, $0x3f800000
DATA vc<>+308(SB)/4, $0x3f800000
DATA vc<>+312(SB)/4, $0x3f800000
DATA vc<>+316(SB)/4, $0x3f800000
DATA vc<>+320(SB)/4, $0xc2ae0000
DATA vc<>+324(SB)/4, $0xc2ae0000
DATA vc<>+328(SB)/4, $0xc2ae0000
DATA vc<>+332(SB)/4, $0xc2ae0000
DATA vc<>+336(SB)/4, $0xc2ae0000
DATA vc<>+340(SB)/4, $0xc2ae0000
DATA vc<>+344(SB)/4, $0xc2ae0000
DATA vc<>+348(SB)/4, $0xc2ae0000
DATA vc<>+352(SB)/4, $0x0000007f
DATA vc<>+356(SB)/4, $0x0000007f
DATA vc<>+360(SB)/4, $0x0000007f
DATA vc<>+364(SB)/4, $0x0000007f
DATA vc<>+368(SB)/4, $0x0000007f
DATA vc<>+372(SB)/4, $0x0000007f
DATA vc<>+376(SB)/4, $0x0000007f
DATA vc<>+380(SB)/4, $0x0000007f
DATA vc<>+384(SB)/4, $0x3f000000
DATA vc<>+388(SB)/4, $0x3f000000
DATA vc<>+392(SB)/4, $0x3f000000
DATA vc<>+396(SB)/4, $0x3f000000
DATA vc<>+400(SB)/4, $0x3f000000
DATA vc<>+404(SB)/4, $0x3f000000
DATA vc<>+408(SB)/4, $0x3f000000
DATA vc<>+412(SB)/4, $0x3f000000
DATA vc<>+416(SB)/4, $0x3f3504f3
DATA vc<>+420(SB)/4, $0x3f3504f3
DATA vc<>+424(SB)/4, $0x3f3504f3
DATA vc<>+428(SB)/4, $0x3f3504f3
DATA vc<>+432(SB)/4, $0x3f3504f3
DATA vc<>+436(SB)/4, $0x3f3504f3
DATA vc<>+440(SB)/4, $0x3f3504f3
DATA vc<>+444(SB)/4, $0x3f3504f3
DATA vc<>+448(SB)/4, $0x3ea7ba05
DATA vc<>+452(SB)/4, $0x3ea7ba05
DATA vc<>+456(SB)/4, $0x3ea7ba05
DATA vc<>+460(SB)/4, $0x3ea7ba05
DATA vc<>+464(SB)/4, $0x3ea7ba05
DATA vc<>+468(SB)/4, $0x3ea7ba05
DATA vc<>+472(SB)/4, $0x3ea7ba05
DATA vc<>+476(SB)/4, $0x3ea7ba05
DATA vc<>+480(SB)/4, $0x3f87dc22
DATA vc<>+484(SB)/4, $0x3f87dc22
DATA vc<>+488(SB)/4, $0x3f87dc22
DATA vc<>+492(SB)/4, $0x3f87dc22
DATA vc<>+496(SB)/4, $0x3f87dc22
DATA vc<>+500(SB)/4, $0x3f87dc22
DATA vc<>+504(SB)/4, $0x3f87dc22
DATA vc<>+508(SB)/4, $0x3f87dc22
DATA vc<>+512(SB)/4, $0xbfba00e3
DATA vc<>+516(SB)/4, $0xbfba00e3
DATA vc<>+520(SB)/4, $0xbfba00e3
DATA vc<>+524(SB)/4, $0xbfba00e3
DATA vc<>+528(SB)/4, $0xbfba00e3
DATA vc<>+532(SB)/4, $0xbfba00e3
DATA vc<>+536(SB)/4, $0xbfba00e3
DATA vc<>+540(SB)/4, $0xbfba00e3
DATA vc<>+544(SB)/4, $0x3fb5f0e3
DATA vc<>+548(SB)/4, $0x3fb5f0e3
DATA vc<>+552(SB)/4, $0x3fb5f0e3
DATA vc<>+556(SB)/4, $0x3fb5f0e3
DATA vc<>+560(SB)/4, $0x3fb5f0e3
DATA vc<>+564(SB)/4, $0x3fb5f0e3
DATA vc<>+568(SB)/4, $0x3fb5f0e3
DATA vc<>+572(SB)/4, $0x3fb5f0e3
DATA vc<>+576(SB)/4, $0xbe91a98e
DATA vc<>+580(SB)/4, $0xbe91a98e
DATA vc<>+584(SB)/4, $0xbe91a98e
DATA vc<>+588(SB)/4, $0xbe91a98e
DATA vc<>+592(SB)/4, $0xbe91a98e
DATA vc<>+596(SB)/4, $0xbe91a98e
DATA vc<>+600(SB)/4, $0xbe91a98e
DATA vc<>+604(SB)/4, $0xbe91a98e
DATA vc<>+608(SB)/4, $0x3e827906
DATA vc<>+612(SB)/4, $0x3e827906
DATA vc<>+616(SB)/4, $0x3e827906
DATA vc<>+620(SB)/4, $0x3e827906
DATA vc<>+624(SB)/4, $0x3e827906
DATA vc<>+628(SB)/4, $0x3e827906
DATA vc<>+632(SB)/4, $0x3e827906
DATA vc<>+636(SB)/4, $0x3e827906
DATA vc<>+640(SB)/4, $0x40000000
DATA vc<>+644(SB)/4, $0x40000000
DATA vc<>+648(SB)/4, $0x40000000
DATA vc<>+652(SB)/4, $0x40000000
DATA vc<>+656(SB)/4, $0x40000000
DATA vc<>+660(SB)/4, $0x40000000
DATA vc<>+664(SB)/4, $0x40000000
DATA vc<>+668(SB)/4, $0x40000000
DATA vc<>+672(SB)/4, $0x80000000
DATA vc<>+676(SB)/4, $0x80000000
DATA vc<>+680(SB)/4, $0x80000000
DATA vc<>+684(SB)/4, $0x80000000
DATA vc<>+688(SB)/4, $0x80000000
DATA vc<>+692(SB)/4, $0x80000000
DATA vc<>+696(SB)/4, $0x80000000
DATA vc<>+700(SB)/4, $0x80000000
DATA vc<>+704(SB)/4, $0x7fffffff
DATA vc<>+708(SB)/4, $0x7fffffff
DATA vc<>+712(SB)/4, $0x7fffffff
DATA vc<>+716(SB)/4, $0x7fffffff
DATA vc<>+720(SB)/4, $0x7fffffff
DATA vc<>+724(SB)/4, $0x7fffffff
DATA vc<>+728(SB)/4, $0x7fffffff
DATA vc<>+732(SB)/4, $0x7fffffff
GLOBL vc<>(SB), RODATA|NOPTR, $736

#define EXPY0 \
	VCMPPS $5, vc<>+320(SB), Y0, Y4 \
	VMAXPS vc<>+320(SB), Y0, Y0 \
	VMULPS vc<>+0(SB), Y0, Y1 \
	VROUNDPS $0, Y1, Y1 \
	VFNMADD231PS vc<>+32(SB), Y1, Y0 \
	VFNMADD231PS vc<>+64(SB), Y1, Y0 \
	VMOVUPS vc<>+96(SB), Y2 \
	VFMADD213PS vc<>+128(SB), Y0, Y2 \
	VFMADD213PS vc<>+160(SB), Y0, Y2 \
	VFMADD213PS vc<>+192(SB), Y0, Y2 \
	VFMADD213PS vc<>+224(SB), Y0, Y2 \
	VFMADD213PS vc<>+256(SB), Y0, Y2 \
	VMULPS Y0, Y0, Y3 \
	VFMADD213PS Y0, Y3, Y2 \
	VADDPS vc<>+288(SB), Y2, Y2 \
	VCVTPS2DQ Y1, Y1 \
	VPADDD vc<>+352(SB), Y1, Y1 \
	VPSLLD $23, Y1, Y1 \
	VMULPS Y1, Y2, Y2 \
	VANDPS Y4, Y2, Y0

// func softmaxAvx2(x *float32, n int)
// n is a positive multiple of 8; -Inf entries get probability 0.
TEXT ·softmaxAvx2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VMOVUPS (SI), Y5
	MOVQ SI, DI
	MOVQ CX, DX
smax:
	VMAXPS (DI), Y5, Y5
	ADDQ $32, DI
	SUBQ $8, DX
	JNZ smax
	VEXTRACTF128 $1, Y5, X6
	VMAXPS X6, X5, X5
	VPERMILPS $0x4E, X5, X6
	VMAXPS X6, X5, X5
	VPERMILPS $0xB1, X5, X6
	VMAXPS X6, X5, X5
	VBROADCASTSS X5, Y5
	VXORPS Y6, Y6, Y6
	MOVQ SI, DI
	MOVQ CX, DX
sexp:
	VMOVUPS (DI), Y0
	VSUBPS Y5, Y0, Y0
	EXPY0
	VMOVUPS Y0, (DI)
	VADDPS Y0, Y6, Y6
	ADDQ $32, DI
	SUBQ $8, DX
	JNZ sexp
	VEXTRACTF128 $1, Y6, X7
	VADDPS X7, X6, X6
	VHADDPS X6, X6, X6
	VHADDPS X6, X6, X6
	VBROADCASTSS X6, Y6
	VMOVUPS vc<>+288(SB), Y7
	VDIVPS Y6, Y7, Y7
	MOVQ SI, DI
	MOVQ CX, DX
sscale:
	VMULPS (DI), Y7, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	SUBQ $8, DX
	JNZ sscale
	VZEROUPPER
	RET

// func geluAvx2(x *float32, n int)
// x·Φ(x) with erf by Abramowitz–Stegun 7.1.26, as gelu in ops.go; n is a
// positive multiple of 8.
TEXT ·geluAvx2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
gloop:
	VMOVUPS (SI), Y8
	VANDPS vc<>+704(SB), Y8, Y9
	VMULPS vc<>+416(SB), Y9, Y9
	VMOVUPS vc<>+288(SB), Y10
	VFMADD231PS vc<>+448(SB), Y9, Y10
	VMOVUPS vc<>+288(SB), Y11
	VDIVPS Y10, Y11, Y10
	VMOVUPS vc<>+480(SB), Y11
	VFMADD213PS vc<>+512(SB), Y10, Y11
	VFMADD213PS vc<>+544(SB), Y10, Y11
	VFMADD213PS vc<>+576(SB), Y10, Y11
	VFMADD213PS vc<>+608(SB), Y10, Y11
	VMULPS Y10, Y11, Y11
	VMULPS Y9, Y9, Y0
	VXORPS vc<>+672(SB), Y0, Y0
	EXPY0
	VMULPS Y0, Y11, Y11
	VMOVUPS vc<>+640(SB), Y12
	VSUBPS Y11, Y12, Y12
	VBLENDVPS Y8, Y11, Y12, Y12
	VMULPS vc<>+384(SB), Y8, Y8
	VMULPS Y12, Y8, Y8
	VMOVUPS Y8, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ gloop
	VZEROUPPER
	RET
