// ---------------------------------------------------------------------------
// gemm_acc.cuh: the accumulators of the 128x128 tensor-core GEMM kernels
// (gemm_bf16.cu's sm80_gemm_bf16, gemm_tf32.cu's sm80_gemm_tf32x3): 8
// warps (2x4) of 64x32, each lane holding 4x4 mma tiles' four float32
// sums, and their store into C; and the quad transpose of an mma
// fragment's columns that gemm_bf16.cu's pipelined kernels and
// gemm_wg.cu's warp-group kernel store 16 bytes a lane with.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

// gemm_acc_zero zeroes a lane's accumulators.
__device__ __forceinline__ void gemm_acc_zero(float (&acc)[4][4][4]) {
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
#pragma unroll
			for (int q = 0; q < 4; q++) acc[i][j][q] = 0.f;
}

// gemm_acc_store stores a lane's accumulators into C (m x n, row-major),
// the warp's tile at (m0 + wm, n0 + wn), the lane at (g, t) of the mma
// tiles' 8x4 grid: as bfloat16 (outBF16), added to C's float32 values
// (atomic), or stored as float32.
__device__ __forceinline__ void gemm_acc_store(void* __restrict__ C, const float (&acc)[4][4][4], int m, int n, int m0,
                                               int n0, int wm, int wn, int g, int t, int atomic, int outBF16) {
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
						*reinterpret_cast<unsigned int*>(y + o) = (unsigned int)f32_bf16_bits(v0) | ((unsigned int)f32_bf16_bits(v1) << 16);
					} else {
						if (c < n) y[o] = f32_bf16_bits(v0);
						if (c + 1 < n) y[o + 1] = f32_bf16_bits(v1);
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

// sel4 returns p[i] for a runtime i without local memory.
__device__ __forceinline__ unsigned sel4(const unsigned* p, int i) {
	return (i & 2) ? ((i & 1) ? p[3] : p[2]) : ((i & 1) ? p[1] : p[0]);
}

// quad_transpose: lane t of a quad holds p[j], its two columns of n8
// tile j; afterwards p[q] holds lane q's two columns of tile t, so the
// lane has tile t's 8 consecutive columns.
__device__ __forceinline__ void quad_transpose(unsigned* p, int t) {
	unsigned v[4];
	v[0] = sel4(p, t);
	v[1] = __shfl_xor_sync(0xffffffffu, sel4(p, t ^ 1), 1);
	v[2] = __shfl_xor_sync(0xffffffffu, sel4(p, t ^ 2), 2);
	v[3] = __shfl_xor_sync(0xffffffffu, sel4(p, t ^ 3), 3);
#pragma unroll
	for (int q = 0; q < 4; q++) p[q] = sel4(v, q ^ t);
}

// gemm_quad_store stores a lane's share of four n8 blocks of C's row r
// (v(j, e): its column e, 0 or 1, of block j), which the quad transposes
// (quad_transpose) so that lane t writes block t's 8 columns, the first
// c: 16 bytes of bfloat16 (outBF16) or 32 of float32 where vec and the
// row holds all 8, else element by element; with atomic (float32) it
// adds them. Rows r >= m write nothing. Every lane of the warp calls it.
template <typename V>
__device__ __forceinline__ void gemm_quad_store(void* __restrict__ C, int m, int n, int r, int c, int t, int outBF16,
                                                int atomic, bool vec, V v) {
	const long long o = (long long)r * n + c;
	if (outBF16) {
		unsigned p[4];
#pragma unroll
		for (int j = 0; j < 4; j++) p[j] = (unsigned)f32_bf16_bits(v(j, 0)) | ((unsigned)f32_bf16_bits(v(j, 1)) << 16);
		quad_transpose(p, t);
		if (r < m) {
			unsigned short* y = reinterpret_cast<unsigned short*>(C) + o;
			if (vec && c + 8 <= n) {
				*reinterpret_cast<uint4*>(y) = make_uint4(p[0], p[1], p[2], p[3]);
			} else {
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (c + e < n) y[e] = (unsigned short)(p[e >> 1] >> ((e & 1) * 16));
			}
		}
	} else {
		unsigned lo[4], hi[4];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			lo[j] = __float_as_uint(v(j, 0));
			hi[j] = __float_as_uint(v(j, 1));
		}
		quad_transpose(lo, t);
		quad_transpose(hi, t);
		if (r < m) {
			float* y = reinterpret_cast<float*>(C) + o;
			if (atomic) {
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (c + e < n) atomicAdd(y + e, __uint_as_float((e & 1) ? hi[e >> 1] : lo[e >> 1]));
			} else if (vec && c + 8 <= n) {
				st4(y, make_float4(__uint_as_float(lo[0]), __uint_as_float(hi[0]), __uint_as_float(lo[1]), __uint_as_float(hi[1])));
				st4(y + 4, make_float4(__uint_as_float(lo[2]), __uint_as_float(hi[2]), __uint_as_float(lo[3]), __uint_as_float(hi[3])));
			} else {
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (c + e < n) y[e] = __uint_as_float((e & 1) ? hi[e >> 1] : lo[e >> 1]);
			}
		}
	}
}
