// ---------------------------------------------------------------------------
// gemm_bf16.cu: C = op(A)·op(B) on the tensor cores, bfloat16 operands and
// float32 accumulation (mma.sync.m16n8k16, sm_80 and later), C stored as
// float32 or bfloat16. In the sm80 module (sm80.cu), compiled for
// compute_80: the driver loads it only on GPUs of compute capability 8.0
// or more.
//
// One kernel takes the three forms (nn, tn, nt): a 128x128 block tile of
// 8 warps (2x4, each 64x32 = 4x4 mma tiles), k-tiles of 32. Both operands
// go to shared memory with k contiguous (sA[i][p], sB[j][p], rows padded
// by 8 halves so that the fragment reads of a warp hit 32 distinct banks);
// an operand whose rows run along m or n in global memory (tn's A, nn's and
// tn's B) is read 8 halves at a time along its contiguous dimension and
// scattered into place. The next k-tile is read into registers while the
// current one is multiplied. Split-K (gridDim.z > 1) adds float32 partial
// sums into C atomically (C zeroed first).
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

#define GB_BM 128
#define GB_BN 128
#define GB_BK 32
#define GB_LD (GB_BK + 8)

// fetch8 returns the 8 halves of row r, columns c..c+7, of a rows x cols
// matrix with leading dimension ld, zero outside it; one 16-byte load when
// vec (ld a multiple of 8, 16-byte aligned base) and the 8 lie inside.
__device__ __forceinline__ uint4 fetch8(const unsigned short* __restrict__ src, long long ld, int rows, int cols,
                                        int r, int c, int vec) {
	if (vec && r < rows && c + 8 <= cols) return __ldg(reinterpret_cast<const uint4*>(src + (long long)r * ld + c));
	uint4 out;
	unsigned short* o = reinterpret_cast<unsigned short*>(&out);
#pragma unroll
	for (int j = 0; j < 8; j++) o[j] = (r < rows && c + j < cols) ? src[(long long)r * ld + c + j] : (unsigned short)0;
	return out;
}

// trans_p and trans_c place vector v (0..511) of a transposed tile (32
// k-rows of 128 halves) at k-row p, columns c..c+7: the two lanes of a
// pair read 32 contiguous bytes of one row (a whole sector) and a warp
// covers 16 rows, so that its scattered 2-byte stores into sm[c+j][p]
// fall in distinct banks but for the pair (2-way) — with 16 lanes on one
// row, as a row-major order would have, all 16 hit one bank.
__device__ __forceinline__ int trans_p(int v) { return (v >> 1) & 31; }
__device__ __forceinline__ int trans_c(int v) { return ((v >> 6) * 2 + (v & 1)) * 8; }

// stage holds one thread's share (2 x 8 halves) of a k-tile of A or B.
struct stage {
	uint4 v[2];
};

// load_tile reads this thread's share of a 128 x 32 tile. direct: the
// tile's 128 rows are rows of src (k along columns, from kc); otherwise
// its 32 k-rows are rows of src (from kc) and the 128 along columns.
__device__ __forceinline__ stage load_tile(const unsigned short* __restrict__ src, long long ld, int direct,
                                           int lim, int kend, int r0, int kc, int vec) {
	stage s;
#pragma unroll
	for (int q = 0; q < 2; q++) {
		int v = threadIdx.x + q * 256;
		if (direct) {
			s.v[q] = fetch8(src, ld, lim, kend, r0 + (v >> 2), kc + (v & 3) * 8, vec);
		} else {
			s.v[q] = fetch8(src, ld, kend, lim, kc + trans_p(v), r0 + trans_c(v), vec);
		}
	}
	return s;
}

__device__ __forceinline__ void store_tile(unsigned short (*sm)[GB_LD], const stage& s, int direct) {
#pragma unroll
	for (int q = 0; q < 2; q++) {
		int v = threadIdx.x + q * 256;
		if (direct) {
			*reinterpret_cast<uint4*>(&sm[v >> 2][(v & 3) * 8]) = s.v[q];
		} else {
			const unsigned short* o = reinterpret_cast<const unsigned short*>(&s.v[q]);
			int p = trans_p(v), c = trans_c(v);
#pragma unroll
			for (int j = 0; j < 8; j++) sm[c + j][p] = o[j];
		}
	}
}

__device__ __forceinline__ void mma_bf16(float* c, const unsigned int* a, const unsigned int* b) {
	asm volatile(
	    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ unsigned short bf16_rn(float f) {
	unsigned int b = __float_as_uint(f);
	if ((b & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((b >> 16) | 0x0040u);
	b += 0x7fffu + ((b >> 16) & 1u);
	return (unsigned short)(b >> 16);
}

// sm80_gemm_bf16: C[m,n] = op(A)·op(B). A is m x k (k x m when transA),
// B is k x n (n x k when transB), both bfloat16; C is float32 (outBF16 == 0)
// or bfloat16. Block z sums k in [z*chunk, min(k, (z+1)*chunk)); with
// atomic set the float32 sums are added to C.
extern "C" __global__ void __launch_bounds__(256) sm80_gemm_bf16(
    const unsigned short* __restrict__ A, const unsigned short* __restrict__ B, void* __restrict__ C, int m, int n,
    int k, int transA, int transB, int chunk, int atomic, int outBF16, int vecA, int vecB) {
	__shared__ __align__(16) unsigned short sA[GB_BM][GB_LD];
	__shared__ __align__(16) unsigned short sB[GB_BN][GB_LD];
	const int m0 = blockIdx.y * GB_BM, n0 = blockIdx.x * GB_BN;
	const int kbeg = blockIdx.z * chunk, kend = min(k, kbeg + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
	// A is direct (rows along m) unless transposed; B is direct (rows
	// along n) only when transposed.
	const int dirA = !transA, dirB = transB;
	const long long lda = transA ? m : k, ldb = transB ? k : n;

	float acc[4][4][4];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
#pragma unroll
			for (int q = 0; q < 4; q++) acc[i][j][q] = 0.f;

	stage ra = load_tile(A, lda, dirA, m, kend, m0, kbeg, vecA);
	stage rb = load_tile(B, ldb, dirB, n, kend, n0, kbeg, vecB);
	for (int kc = kbeg; kc < kend; kc += GB_BK) {
		__syncthreads();
		store_tile(sA, ra, dirA);
		store_tile(sB, rb, dirB);
		__syncthreads();
		if (kc + GB_BK < kend) {
			ra = load_tile(A, lda, dirA, m, kend, m0, kc + GB_BK, vecA);
			rb = load_tile(B, ldb, dirB, n, kend, n0, kc + GB_BK, vecB);
		}
#pragma unroll
		for (int ks = 0; ks < GB_BK; ks += 16) {
			unsigned int af[4][4], bfr[4][2];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				int r = wm + i * 16 + g;
				af[i][0] = *reinterpret_cast<const unsigned int*>(&sA[r][ks + t * 2]);
				af[i][1] = *reinterpret_cast<const unsigned int*>(&sA[r + 8][ks + t * 2]);
				af[i][2] = *reinterpret_cast<const unsigned int*>(&sA[r][ks + t * 2 + 8]);
				af[i][3] = *reinterpret_cast<const unsigned int*>(&sA[r + 8][ks + t * 2 + 8]);
			}
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int c = wn + j * 8 + g;
				bfr[j][0] = *reinterpret_cast<const unsigned int*>(&sB[c][ks + t * 2]);
				bfr[j][1] = *reinterpret_cast<const unsigned int*>(&sB[c][ks + t * 2 + 8]);
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++) mma_bf16(acc[i][j], af[i], bfr[j]);
		}
	}

#pragma unroll
	for (int i = 0; i < 4; i++) {
#pragma unroll
		for (int h = 0; h < 2; h++) {
			int r = m0 + wm + i * 16 + g + h * 8;
			if (r >= m) continue;
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int c = n0 + wn + j * 8 + t * 2;
				float v0 = acc[i][j][h * 2], v1 = acc[i][j][h * 2 + 1];
				long long o = (long long)r * n + c;
				if (outBF16) {
					unsigned short* y = reinterpret_cast<unsigned short*>(C);
					if (c + 1 < n && (o & 1) == 0) {
						*reinterpret_cast<unsigned int*>(y + o) = (unsigned int)bf16_rn(v0) | ((unsigned int)bf16_rn(v1) << 16);
					} else {
						if (c < n) y[o] = bf16_rn(v0);
						if (c + 1 < n) y[o + 1] = bf16_rn(v1);
					}
				} else {
					float* y = reinterpret_cast<float*>(C);
					if (atomic) {
						if (c < n) atomicAdd(y + o, v0);
						if (c + 1 < n) atomicAdd(y + o + 1, v1);
					} else if (c + 1 < n && (o & 1) == 0) {
						*reinterpret_cast<float2*>(y + o) = make_float2(v0, v1);
					} else {
						if (c < n) y[o] = v0;
						if (c + 1 < n) y[o + 1] = v1;
					}
				}
			}
		}
	}
}
