//go:build !purego

#include "textflag.h"

// func convKernel6x16AVX2(kb int, a, b *float32, off *int32, c *float32, ldc int, bias *float32, relu bool)
//
// The 6×16 tile c = A·B (+ bias, rectified if relu) of a direct
// convolution: a is a packed micro-panel of six filter rows (6 values per
// step of k), and row k of B is the 16 floats at b + off[k], a shifted
// window of the zero-padded input (implicit im2col). Twelve YMM
// accumulators as in kernel6x16AVX2, started from the six biases; the tile
// is overwritten.
TEXT ·convKernel6x16AVX2(SB), NOSPLIT, $0-57
	MOVQ kb+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ off+24(FP), BX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	MOVQ bias+48(FP), AX

	VBROADCASTSS (AX), Y0
	VMOVAPS      Y0, Y1
	VBROADCASTSS 4(AX), Y2
	VMOVAPS      Y2, Y3
	VBROADCASTSS 8(AX), Y4
	VMOVAPS      Y4, Y5
	VBROADCASTSS 12(AX), Y6
	VMOVAPS      Y6, Y7
	VBROADCASTSS 16(AX), Y8
	VMOVAPS      Y8, Y9
	VBROADCASTSS 20(AX), Y10
	VMOVAPS      Y10, Y11

	TESTQ CX, CX
	JE    store

loop:
	MOVLQSX      (BX), R9
	VMOVUPS      (DI)(R9*4), Y12
	VMOVUPS      32(DI)(R9*4), Y13
	VBROADCASTSS (SI), Y14
	VBROADCASTSS 4(SI), Y15
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS 8(SI), Y14
	VBROADCASTSS 12(SI), Y15
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS 16(SI), Y14
	VBROADCASTSS 20(SI), Y15
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $24, SI
	ADDQ         $4, BX
	DECQ         CX
	JNE          loop

store:
	CMPB relu+56(FP), $0
	JE   write
	VXORPS Y12, Y12, Y12
	VMAXPS Y0, Y12, Y0
	VMAXPS Y1, Y12, Y1
	VMAXPS Y2, Y12, Y2
	VMAXPS Y3, Y12, Y3
	VMAXPS Y4, Y12, Y4
	VMAXPS Y5, Y12, Y5
	VMAXPS Y6, Y12, Y6
	VMAXPS Y7, Y12, Y7
	VMAXPS Y8, Y12, Y8
	VMAXPS Y9, Y12, Y9
	VMAXPS Y10, Y12, Y10
	VMAXPS Y11, Y12, Y11

write:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	VZEROUPPER
	RET

// func dotKernel4x3AVX2(n8, imgs int, a *float32, lda, astride int, b *float32, bstride int, off *int32, out *float32)
//
// Twelve dot products at once, for the weight gradient of a direct
// convolution: rows r < 4 of A start at a + r·lda, rows k < 3 of B at
// b + off[k]; both run over n8 vectors of 8 floats, and over imgs images
// whose A and B are astride and bstride floats apart. Each product is
// accumulated lane-wise in one YMM register (in the same order whatever the
// caller's threading) and the twelve vectors of 8 partial sums are stored
// to out[0:96], row-major by (r, k), for the caller to reduce.
TEXT ·dotKernel4x3AVX2(SB), NOSPLIT, $0-72
	MOVQ n8+0(FP), CX
	MOVQ imgs+8(FP), R13
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $2, R8
	MOVQ astride+32(FP), R11
	SHLQ $2, R11
	MOVQ b+40(FP), DI
	MOVQ bstride+48(FP), R12
	SHLQ $2, R12
	MOVQ off+56(FP), AX
	MOVLQSX (AX), BX
	MOVLQSX 4(AX), DX
	MOVLQSX 8(AX), R10
	SHLQ $2, BX
	SHLQ $2, DX
	SHLQ $2, R10
	LEAQ (R8)(R8*2), R9

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

	TESTQ CX, CX
	JE    dstore
	TESTQ R13, R13
	JE    dstore

dimg:
	// per image: walk pointers SI' (A) and DI' (B) over n8 vectors
	MOVQ SI, AX
	MOVQ DI, R15
	MOVQ CX, R14

dloop:
	VMOVUPS     (R15)(BX*1), Y12
	VMOVUPS     (R15)(DX*1), Y13
	VMOVUPS     (R15)(R10*1), Y14
	VMOVUPS     (AX), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS     (AX)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS     (AX)(R8*2), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS     (AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ        $32, AX
	ADDQ        $32, R15
	DECQ        R14
	JNE         dloop

	ADDQ R11, SI
	ADDQ R12, DI
	DECQ R13
	JNE  dimg

dstore:
	MOVQ    out+64(FP), AX
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 96(AX)
	VMOVUPS Y4, 128(AX)
	VMOVUPS Y5, 160(AX)
	VMOVUPS Y6, 192(AX)
	VMOVUPS Y7, 224(AX)
	VMOVUPS Y8, 256(AX)
	VMOVUPS Y9, 288(AX)
	VMOVUPS Y10, 320(AX)
	VMOVUPS Y11, 352(AX)
	VZEROUPPER
	RET

// func reluMaskAVX2(n8 int, dst, grad, y *float32)
//
// dst = grad where y > 0, else 0, over n8 vectors of 8 floats: the gradient
// through a rectifier, as a compare and a bitwise and.
TEXT ·reluMaskAVX2(SB), NOSPLIT, $0-32
	MOVQ   n8+0(FP), CX
	MOVQ   dst+8(FP), DI
	MOVQ   grad+16(FP), SI
	MOVQ   y+24(FP), DX
	VXORPS Y15, Y15, Y15
	TESTQ  CX, CX
	JE     rdone

rloop:
	VMOVUPS (DX), Y0
	VCMPPS  $0x0e, Y15, Y0, Y0 // y > 0 (GT_OS)
	VANDPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNE     rloop

rdone:
	VZEROUPPER
	RET
