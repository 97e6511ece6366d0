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
//
// Each value is split once, as it goes to shared memory, into a big and
// a small tile: a block's 4 warps along n read the same A fragments and
// its 2 along m the same B fragments, and splitting at every fragment
// read (the first version) spent about 9 instructions a split, 24 splits
// a warp for 48 mma. At most 128 registers a thread, for 2 blocks an SM.
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

// tf32_split splits x into big = tf32(x) and small = tf32(x − big).
__device__ __forceinline__ void tf32_split(float x, unsigned& big, unsigned& small) {
	asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
	const float rest = x - __uint_as_float(big);
	asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
}

// gt_store splits a stage and puts it into its big and small tiles:
// s[row][k] (direct) or s[k][col].
__device__ __forceinline__ void gt_store(unsigned* big, unsigned* small, const gt_stage& s, int direct) {
#pragma unroll
	for (int q = 0; q < 2; q++) {
		const int v = threadIdx.x + q * 256;
		const int o = direct ? (v >> 2) * GT_LDD + (v & 3) * 4 : (v >> 5) * GT_LDK + (v & 31) * 4;
		uint4 b, l;
		tf32_split(s.v[q].x, b.x, l.x);
		tf32_split(s.v[q].y, b.y, l.y);
		tf32_split(s.v[q].z, b.z, l.z);
		tf32_split(s.v[q].w, b.w, l.w);
		*reinterpret_cast<uint4*>(big + o) = b;
		*reinterpret_cast<uint4*>(small + o) = l;
	}
}

// gt_at is element (row r along m or n, k) of a tile.
__device__ __forceinline__ unsigned gt_at(const unsigned* sm, int direct, int r, int k) {
	return direct ? sm[r * GT_LDD + k] : sm[k * GT_LDK + r];
}

__device__ __forceinline__ void mma_tf32(float* c, const unsigned* a, const unsigned* b) {
	asm volatile(
	    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// gemm_tf32x3 computes C[m,n] = op(A)·op(B), float32 in and out. A is
// m x k (k x m when transA), B is k x n (n x k when transB); the operands'
// orientations are template parameters, so that each form's kernel holds
// only its own addressing. Block z sums k in [z*chunk, min(k,
// (z+1)*chunk)), chunk a multiple of 16; with atomic set the sums are
// added to C. vecA, vecB: float4 loads allowed (the operand's leading
// dimension a multiple of 4, its base 16-byte aligned).
template <bool TA, bool TB>
__device__ __forceinline__ void gemm_tf32x3(const float* __restrict__ A, const float* __restrict__ B,
                                            float* __restrict__ C, int m, int n, int k, int chunk, int atomic,
                                            int vecA, int vecB) {
	__shared__ __align__(16) unsigned sA[2][GT_TILE];  // big, small
	__shared__ __align__(16) unsigned sB[2][GT_TILE];
	const int m0 = blockIdx.y * GT_BM, n0 = blockIdx.x * GT_BM;
	const int kbeg = blockIdx.z * chunk, kend = min(k, kbeg + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
	constexpr int dirA = !TA, dirB = TB;
	const long long lda = TA ? m : k, ldb = TB ? k : n;

	float acc[4][4][4];
	gemm_acc_zero(acc);

	gt_stage ra = gt_load(A, lda, dirA, m, kend, m0, kbeg, vecA);
	gt_stage rb = gt_load(B, ldb, dirB, n, kend, n0, kbeg, vecB);
	for (int kc = kbeg; kc < kend; kc += GT_BK) {
		__syncthreads();
		gt_store(sA[0], sA[1], ra, dirA);
		gt_store(sB[0], sB[1], rb, dirB);
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
#pragma unroll
				for (int h = 0; h < 2; h++) {
					bb[j][h] = gt_at(sB[0], dirB, c, ks + t + h * 4);
					bs[j][h] = gt_at(sB[1], dirB, c, ks + t + h * 4);
				}
			}
#pragma unroll
			for (int i = 0; i < 4; i++) {
				const int r = wm + i * 16 + g;
				unsigned ab[4], as[4];
#pragma unroll
				for (int q = 0; q < 4; q++) {
					// a0..a3: rows r, r+8 at k = ks+t, then ks+t+4.
					ab[q] = gt_at(sA[0], dirA, r + (q & 1) * 8, ks + t + (q >> 1) * 4);
					as[q] = gt_at(sA[1], dirA, r + (q & 1) * 8, ks + t + (q >> 1) * 4);
				}
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

// sm80_gemm_tf32x3_nn, _tn and _nt are gemm_tf32x3's three forms (nn: A·B,
// tn: Aᵀ·B, nt: A·Bᵀ), at most 128 registers a thread for 2 blocks an SM.
#define GEMM_TF32X3(form, ta, tb)                                                                              \
	extern "C" __global__ void __launch_bounds__(256, 2)                                                      \
	    sm80_gemm_tf32x3_##form(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, \
	                            int m, int n, int k, int chunk, int atomic, int vecA, int vecB) {               \
		gemm_tf32x3<ta, tb>(A, B, C, m, n, k, chunk, atomic, vecA, vecB);                                   \
	}
GEMM_TF32X3(nn, false, false)
GEMM_TF32X3(tn, true, false)
GEMM_TF32X3(nt, false, true)
