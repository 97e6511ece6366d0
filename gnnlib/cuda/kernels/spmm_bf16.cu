// ---------------------------------------------------------------------------
// spmm_bf16.cu: CSR SpMM over bfloat16 features with float32 sums,
// y[v,:] = Σ_{u→v} w_uv · x[u,:], y stored as float32 or bfloat16 (sm80
// module). x's rows are read 8 halves (16 bytes) at a time when the width
// is a multiple of 8: half the bytes of the float32 kernels' float4 reads
// for the same columns. Rows of more than tile edges (tile > 0: the
// graph has heavy rows, as the float32 kernels split them) are left to
// sm80_spmm_bf16_heavy, edge tiles of one block each summed into a float32
// scratch row, which sm80_spmm_bf16_heavy_store then writes into y: one
// hub no longer holds up its lane group, and a bfloat16 result is still
// rounded once.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

__device__ __forceinline__ unsigned short bf16_rn_s(float f) {
	unsigned int b = __float_as_uint(f);
	if ((b & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((b >> 16) | 0x0040u);
	b += 0x7fffu + ((b >> 16) & 1u);
	return (unsigned short)(b >> 16);
}

// sm80_spmm_bf16_vec8: groups of G lanes per row (G = min(32, F/8) rounded
// down to a power of two, passed in), each lane 8 columns per step.
extern "C" __global__ void sm80_spmm_bf16_vec8(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               const float* __restrict__ w, const unsigned short* __restrict__ x,
                                               void* __restrict__ y, int n, int F, int G, int outBF16, int tile) {
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long nthreads = (long long)gridDim.x * blockDim.x;
	const int sub = threadIdx.x % G;
	for (long long v = tid / G; v < n; v += nthreads / G) {
		const int beg = indptr[v], end = indptr[v + 1];
		if (tile > 0 && end - beg > tile) continue; // a heavy row
		for (int c = sub * 8; c < F; c += G * 8) {
			float acc[8];
#pragma unroll
			for (int j = 0; j < 8; j++) acc[j] = 0.f;
			for (int e = beg; e < end; e++) {
				const int u = __ldg(&indices[e]);
				const float wv = w ? __ldg(&w[e]) : 1.f;
				uint4 q = __ldg(reinterpret_cast<const uint4*>(x + (long long)u * F + c));
				const unsigned int* h = reinterpret_cast<const unsigned int*>(&q);
#pragma unroll
				for (int j = 0; j < 4; j++) {
					acc[2 * j] += wv * __uint_as_float(h[j] << 16);
					acc[2 * j + 1] += wv * __uint_as_float(h[j] & 0xffff0000u);
				}
			}
			const long long o = v * F + c;
			if (outBF16) {
				uint4 r;
				unsigned int* rh = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
				for (int j = 0; j < 4; j++) rh[j] = (unsigned int)bf16_rn_s(acc[2 * j]) | ((unsigned int)bf16_rn_s(acc[2 * j + 1]) << 16);
				*reinterpret_cast<uint4*>(reinterpret_cast<unsigned short*>(y) + o) = r;
			} else {
				float* yf = reinterpret_cast<float*>(y);
				st4(yf + o, make_float4(acc[0], acc[1], acc[2], acc[3]));
				st4(yf + o + 4, make_float4(acc[4], acc[5], acc[6], acc[7]));
			}
		}
	}
}

// sm80_spmm_bf16_warp: any width; a warp per row, a lane per column.
extern "C" __global__ void sm80_spmm_bf16_warp(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               const float* __restrict__ w, const unsigned short* __restrict__ x,
                                               void* __restrict__ y, int n, int F, int outBF16, int tile) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	for (long long v = warp; v < n; v += nwarp) {
		const int beg = indptr[v], end = indptr[v + 1];
		if (tile > 0 && end - beg > tile) continue; // a heavy row
		for (int c = lane; c < F; c += WARP) {
			float acc = 0.f;
			for (int e = beg; e < end; e++) {
				const float wv = w ? __ldg(&w[e]) : 1.f;
				acc += wv * __uint_as_float((unsigned int)__ldg(&x[(long long)__ldg(&indices[e]) * F + c]) << 16);
			}
			if (outBF16) {
				reinterpret_cast<unsigned short*>(y)[v * F + c] = bf16_rn_s(acc);
			} else {
				reinterpret_cast<float*>(y)[v * F + c] = acc;
			}
		}
	}
}

// sm80_spmm_bf16_heavy: one block per edge tile of a heavy row (heavy
// lists the rows, tiles[i] the first tile of heavy row i, as for the
// float32 spmm_heavy_*); each thread sums 8 columns (vec: F a multiple of
// 8, 16-byte loads) or one over the tile in float32 and adds them to the
// row's float32 scratch row acc[i,:] by atomics.
extern "C" __global__ void sm80_spmm_bf16_heavy(const int* __restrict__ indptr, const int* __restrict__ indices,
                                                const float* __restrict__ w, const unsigned short* __restrict__ x,
                                                float* __restrict__ acc, const int* __restrict__ heavy,
                                                const int* __restrict__ tiles, int nheavy, int F, int tile, int vec) {
	const int b = blockIdx.x;
	int lo = 0, hi = nheavy - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tiles[mid] <= b) lo = mid; else hi = mid - 1;
	}
	const int v = heavy[lo];
	const int beg = indptr[v] + (b - tiles[lo]) * tile;
	const int end = min(indptr[v + 1], beg + tile);
	float* out = acc + (long long)lo * F;
	if (vec) {
		for (int c = threadIdx.x * 8; c < F; c += blockDim.x * 8) {
			float s[8];
#pragma unroll
			for (int j = 0; j < 8; j++) s[j] = 0.f;
			for (int e = beg; e < end; e++) {
				const int u = __ldg(&indices[e]);
				const float wv = w ? __ldg(&w[e]) : 1.f;
				uint4 q = __ldg(reinterpret_cast<const uint4*>(x + (long long)u * F + c));
				const unsigned int* h = reinterpret_cast<const unsigned int*>(&q);
#pragma unroll
				for (int j = 0; j < 4; j++) {
					s[2 * j] += wv * __uint_as_float(h[j] << 16);
					s[2 * j + 1] += wv * __uint_as_float(h[j] & 0xffff0000u);
				}
			}
#pragma unroll
			for (int j = 0; j < 8; j++) atomicAdd(out + c + j, s[j]);
		}
	} else {
		for (int c = threadIdx.x; c < F; c += blockDim.x) {
			float s = 0.f;
			for (int e = beg; e < end; e++) {
				const float wv = w ? __ldg(&w[e]) : 1.f;
				s += wv * __uint_as_float((unsigned int)__ldg(&x[(long long)__ldg(&indices[e]) * F + c]) << 16);
			}
			atomicAdd(out + c, s);
		}
	}
}

// sm80_spmm_bf16_heavy_store writes the heavy rows' float32 sums acc[i,:]
// into row heavy[i] of y, as float32 or rounded once to bfloat16.
extern "C" __global__ void sm80_spmm_bf16_heavy_store(const float* __restrict__ acc, const int* __restrict__ heavy,
                                                      void* __restrict__ y, int nheavy, int F, int outBF16) {
	const long long total = (long long)nheavy * F;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long o = (long long)heavy[i / F] * F + i % F;
		if (outBF16) {
			reinterpret_cast<unsigned short*>(y)[o] = bf16_rn_s(acc[i]);
		} else {
			reinterpret_cast<float*>(y)[o] = acc[i];
		}
	}
}
