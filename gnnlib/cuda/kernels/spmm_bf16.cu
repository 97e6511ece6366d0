// ---------------------------------------------------------------------------
// spmm_bf16.cu: CSR SpMM over bfloat16 features with float32 sums,
// y[v,:] = Σ_{u→v} w_uv · x[u,:], y stored as float32 or bfloat16 (sm80
// module). x's rows are read 8 halves (16 bytes) at a time when the width
// is a multiple of 8, 4 (8 bytes) when it is a multiple of 4: half the
// bytes of the float32 kernels' float4 reads for the same columns. Rows of more than tile edges (tile > 0: the
// graph has heavy rows, as the float32 kernels split them) are left to
// sm80_spmm_bf16_heavy, edge tiles of one block each summed into a float32
// scratch row, which sm80_spmm_bf16_heavy_store then writes into y: one
// hub no longer holds up its lane group, and a bfloat16 result is still
// rounded once.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

// bf16x holds VEC bfloat16 values (8: one 16-byte load, 4: one 8-byte).
template <int VEC>
struct bf16x;
template <>
struct bf16x<8> {
	uint4 q;
	__device__ __forceinline__ unsigned int h(int j) const { return j == 0 ? q.x : j == 1 ? q.y : j == 2 ? q.z : q.w; }
};
template <>
struct bf16x<4> {
	uint2 q;
	__device__ __forceinline__ unsigned int h(int j) const { return j == 0 ? q.x : q.y; }
};

template <int VEC>
__device__ __forceinline__ bf16x<VEC> ld_bf16x(const unsigned short* p) {
	bf16x<VEC> r;
	if (VEC == 8) {
		reinterpret_cast<bf16x<8>&>(r).q = __ldg(reinterpret_cast<const uint4*>(p));
	} else {
		reinterpret_cast<bf16x<4>&>(r).q = __ldg(reinterpret_cast<const uint2*>(p));
	}
	return r;
}

template <int VEC>
__device__ __forceinline__ void fma_bf16x(float* acc, float wv, const bf16x<VEC>& a) {
#pragma unroll
	for (int j = 0; j < VEC / 2; j++) {
		acc[2 * j] += wv * __uint_as_float(a.h(j) << 16);
		acc[2 * j + 1] += wv * __uint_as_float(a.h(j) & 0xffff0000u);
	}
}

// spmm_bf16_vec: groups of G lanes per row (a power of two, passed in),
// each lane VEC columns per step, the edge loop unrolled by two so that
// two gathers are in flight per lane (the sums still in edge order).
template <int VEC>
__device__ __forceinline__ void spmm_bf16_vec(const int* __restrict__ indptr, const int* __restrict__ indices,
                                              const float* __restrict__ w, const unsigned short* __restrict__ x,
                                              void* __restrict__ y, int n, int F, int G, int outBF16, int tile) {
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long nthreads = (long long)gridDim.x * blockDim.x;
	const int sub = threadIdx.x % G;
	for (long long v = tid / G; v < n; v += nthreads / G) {
		const int beg = indptr[v], end = indptr[v + 1];
		if (tile > 0 && end - beg > tile) continue; // a heavy row
		for (int c = sub * VEC; c < F; c += G * VEC) {
			float acc[VEC];
#pragma unroll
			for (int j = 0; j < VEC; j++) acc[j] = 0.f;
			int e = beg;
			for (; e + 1 < end; e += 2) {
				const int u0 = __ldg(&indices[e]), u1 = __ldg(&indices[e + 1]);
				const float w0 = w ? __ldg(&w[e]) : 1.f, w1 = w ? __ldg(&w[e + 1]) : 1.f;
				const bf16x<VEC> a = ld_bf16x<VEC>(x + (long long)u0 * F + c);
				const bf16x<VEC> b = ld_bf16x<VEC>(x + (long long)u1 * F + c);
				fma_bf16x<VEC>(acc, w0, a);
				fma_bf16x<VEC>(acc, w1, b);
			}
			if (e < end) {
				const int u0 = __ldg(&indices[e]);
				const float w0 = w ? __ldg(&w[e]) : 1.f;
				fma_bf16x<VEC>(acc, w0, ld_bf16x<VEC>(x + (long long)u0 * F + c));
			}
			const long long o = v * F + c;
			if (outBF16) {
				unsigned int rh[VEC / 2];
#pragma unroll
				for (int j = 0; j < VEC / 2; j++) rh[j] = (unsigned int)f32_bf16_bits(acc[2 * j]) | ((unsigned int)f32_bf16_bits(acc[2 * j + 1]) << 16);
				unsigned short* yo = reinterpret_cast<unsigned short*>(y) + o;
				if (VEC == 8) {
					*reinterpret_cast<uint4*>(yo) = make_uint4(rh[0], rh[VEC / 2 > 1 ? 1 : 0], rh[VEC / 2 > 2 ? 2 : 0], rh[VEC / 2 > 3 ? 3 : 0]);
				} else {
					*reinterpret_cast<uint2*>(yo) = make_uint2(rh[0], rh[VEC / 2 > 1 ? 1 : 0]);
				}
			} else {
				float* yf = reinterpret_cast<float*>(y) + o;
#pragma unroll
				for (int j = 0; j < VEC; j += 4) st4(yf + j, make_float4(acc[j], acc[j + 1], acc[j + 2], acc[j + 3]));
			}
		}
	}
}

// sm80_spmm_bf16_vec8: F a multiple of 8, 16-byte loads; sm80_spmm_bf16_vec4:
// F a multiple of 4, 8-byte loads.
extern "C" __global__ void sm80_spmm_bf16_vec8(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               const float* __restrict__ w, const unsigned short* __restrict__ x,
                                               void* __restrict__ y, int n, int F, int G, int outBF16, int tile) {
	spmm_bf16_vec<8>(indptr, indices, w, x, y, n, F, G, outBF16, tile);
}

extern "C" __global__ void sm80_spmm_bf16_vec4(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               const float* __restrict__ w, const unsigned short* __restrict__ x,
                                               void* __restrict__ y, int n, int F, int G, int outBF16, int tile) {
	spmm_bf16_vec<4>(indptr, indices, w, x, y, n, F, G, outBF16, tile);
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
				reinterpret_cast<unsigned short*>(y)[v * F + c] = f32_bf16_bits(acc);
			} else {
				reinterpret_cast<float*>(y)[v * F + c] = acc;
			}
		}
	}
}

// sm80_spmm_bf16_heavy: one block per edge tile of a heavy row (heavy
// lists the rows, tiles[i] the first tile of heavy row i, as for the
// float32 spmm_heavy_*); each thread sums its columns over the tile in
// float32 and adds them to the row's float32 scratch row acc[i,:] by
// atomics. vec: 8 or 4 columns a thread (F a multiple of it, 16- or
// 8-byte loads), else 0: one.
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
	if (vec == 8 || vec == 4) {
		for (int c = threadIdx.x * vec; c < F; c += blockDim.x * vec) {
			float s[8];
#pragma unroll
			for (int j = 0; j < 8; j++) s[j] = 0.f;
			for (int e = beg; e < end; e++) {
				const int u = __ldg(&indices[e]);
				const float wv = w ? __ldg(&w[e]) : 1.f;
				if (vec == 8) {
					fma_bf16x<8>(s, wv, ld_bf16x<8>(x + (long long)u * F + c));
				} else {
					fma_bf16x<4>(s, wv, ld_bf16x<4>(x + (long long)u * F + c));
				}
			}
			for (int j = 0; j < vec; j++) atomicAdd(out + c + j, s[j]);
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
			reinterpret_cast<unsigned short*>(y)[o] = f32_bf16_bits(acc[i]);
		} else {
			reinterpret_cast<float*>(y)[o] = acc[i];
		}
	}
}
