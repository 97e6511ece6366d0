// ---------------------------------------------------------------------------
// gemm_tf32.cu: C = op(A)·op(B) in float32 on the tensor cores, three TF32
// products a term (3xTF32, mma.sync.m16n8k8, sm_80 and later): each
// operand x is split into big = tf32(x) and small = tf32(x − big), and
// a·b is summed as big·small + small·big + big·big in float32, which
// leaves out small·small (about 2⁻²² of a·b) and so keeps close to a
// float32 FMA product's accuracy, where one TF32 product (10 bits of
// mantissa) would not. In the sm80 module (sm80.cu).
//
// The tiling is gemm_bf16.cu's first kernel's: a 128x128 block tile of 8
// warps (2x4, each 64x32 = 4x4 mma tiles), k-tiles of 16 floats, the next
// k-tile read into registers while the current one is multiplied; split-K
// (gridDim.z > 1) adds float32 partial sums into C atomically. Each
// operand's tile goes to shared memory in its global orientation, so that
// every global read and shared store is a whole float4: "direct" (rows
// along m or n, k contiguous: nn's and nt's A, nt's B) as s[128][20], or
// k-major (tn's A, nn's and tn's B) as s[16][136]. Both paddings put the
// 32 lanes' fragment reads (row g, column t of a 8x4 lane grid) in 32
// distinct banks.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include "gemm_acc.cuh"

#define GT_BM 128
#define GT_BK 16
#define GT_LDD (GT_BK + 4)  // a direct tile's row, in floats
#define GT_LDK (GT_BM + 8)  // a k-major tile's row, in floats
#define GT_TILE (GT_BM * GT_LDD)

// gt_fetch4 returns floats c..c+3 of row r of a rows x cols matrix with
// leading dimension ld, zero outside it; one 16-byte load when vec (ld a
// multiple of 4, a 16-byte aligned base) and the four lie inside.
__device__ __forceinline__ float4 gt_fetch4(const float* __restrict__ src, long long ld, int rows, int cols, int r,
                                            int c, int vec) {
	if (vec && r < rows && c + 4 <= cols) return __ldg(reinterpret_cast<const float4*>(src + (long long)r * ld + c));
	float o[4];
#pragma unroll
	for (int j = 0; j < 4; j++) o[j] = (r < rows && c + j < cols) ? __ldg(src + (long long)r * ld + c + j) : 0.f;
	return make_float4(o[0], o[1], o[2], o[3]);
}

// gt_stage holds one thread's share (2 float4) of a k-tile of A or B.
struct gt_stage {
	float4 v[2];
};

// gt_load reads this thread's share of a 128 x 16 tile: direct, its 128
// rows are rows r0.. of src (k along columns, from kc); otherwise its 16
// k-rows are rows kc.. of src and its 128 columns start at r0.
__device__ __forceinline__ gt_stage gt_load(const float* __restrict__ src, long long ld, int direct, int lim, int kend,
                                            int r0, int kc, int vec) {
	gt_stage s;
#pragma unroll
	for (int q = 0; q < 2; q++) {
		const int v = threadIdx.x + q * 256;
		s.v[q] = direct ? gt_fetch4(src, ld, lim, kend, r0 + (v >> 2), kc + (v & 3) * 4, vec)
		                : gt_fetch4(src, ld, kend, lim, kc + (v >> 5), r0 + (v & 31) * 4, vec);
	}
	return s;
}

// gt_store puts a stage into its tile: s[row][k] (direct) or s[k][col].
__device__ __forceinline__ void gt_store(float* sm, const gt_stage& s, int direct) {
#pragma unroll
	for (int q = 0; q < 2; q++) {
		const int v = threadIdx.x + q * 256;
		const int o = direct ? (v >> 2) * GT_LDD + (v & 3) * 4 : (v >> 5) * GT_LDK + (v & 31) * 4;
		*reinterpret_cast<float4*>(sm + o) = s.v[q];
	}
}

// gt_at is element (row r along m or n, k) of a tile.
__device__ __forceinline__ float gt_at(const float* sm, int direct, int r, int k) {
	return direct ? sm[r * GT_LDD + k] : sm[k * GT_LDK + r];
}

// tf32_split splits x into big = tf32(x) and small = tf32(x − big).
__device__ __forceinline__ void tf32_split(float x, unsigned& big, unsigned& small) {
	asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
	const float rest = x - __uint_as_float(big);
	asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
}

__device__ __forceinline__ void mma_tf32(float* c, const unsigned* a, const unsigned* b) {
	asm volatile(
	    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// sm80_gemm_tf32x3: C[m,n] = op(A)·op(B), float32 in and out. A is m x k
// (k x m when transA), B is k x n (n x k when transB). Block z sums k in
// [z*chunk, min(k, (z+1)*chunk)), chunk a multiple of 16; with atomic set
// the sums are added to C. vecA, vecB: float4 loads allowed (the
// operand's leading dimension a multiple of 4, its base 16-byte aligned).
extern "C" __global__ void __launch_bounds__(256) sm80_gemm_tf32x3(const float* __restrict__ A,
                                                                   const float* __restrict__ B, float* __restrict__ C,
                                                                   int m, int n, int k, int transA, int transB,
                                                                   int chunk, int atomic, int vecA, int vecB) {
	__shared__ __align__(16) float sA[GT_TILE];
	__shared__ __align__(16) float sB[GT_TILE];
	const int m0 = blockIdx.y * GT_BM, n0 = blockIdx.x * GT_BM;
	const int kbeg = blockIdx.z * chunk, kend = min(k, kbeg + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
	const int dirA = !transA, dirB = transB;
	const long long lda = transA ? m : k, ldb = transB ? k : n;

	float acc[4][4][4];
	gemm_acc_zero(acc);

	gt_stage ra = gt_load(A, lda, dirA, m, kend, m0, kbeg, vecA);
	gt_stage rb = gt_load(B, ldb, dirB, n, kend, n0, kbeg, vecB);
	for (int kc = kbeg; kc < kend; kc += GT_BK) {
		__syncthreads();
		gt_store(sA, ra, dirA);
		gt_store(sB, rb, dirB);
		__syncthreads();
		if (kc + GT_BK < kend) {
			ra = gt_load(A, lda, dirA, m, kend, m0, kc + GT_BK, vecA);
			rb = gt_load(B, ldb, dirB, n, kend, n0, kc + GT_BK, vecB);
		}
#pragma unroll
		for (int ks = 0; ks < GT_BK; ks += 8) {
			unsigned bb[4][2], bs[4][2];
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const int c = wn + j * 8 + g;
				tf32_split(gt_at(sB, dirB, c, ks + t), bb[j][0], bs[j][0]);
				tf32_split(gt_at(sB, dirB, c, ks + t + 4), bb[j][1], bs[j][1]);
			}
#pragma unroll
			for (int i = 0; i < 4; i++) {
				const int r = wm + i * 16 + g;
				unsigned ab[4], as[4];
				tf32_split(gt_at(sA, dirA, r, ks + t), ab[0], as[0]);
				tf32_split(gt_at(sA, dirA, r + 8, ks + t), ab[1], as[1]);
				tf32_split(gt_at(sA, dirA, r, ks + t + 4), ab[2], as[2]);
				tf32_split(gt_at(sA, dirA, r + 8, ks + t + 4), ab[3], as[3]);
#pragma unroll
				for (int j = 0; j < 4; j++) {
					mma_tf32(acc[i][j], ab, bs[j]);
					mma_tf32(acc[i][j], as, bb[j]);
					mma_tf32(acc[i][j], ab, bb[j]);
				}
			}
		}
	}

	gemm_acc_store(C, acc, m, n, m0, n0, wm, wn, g, t, atomic, 0);
}
