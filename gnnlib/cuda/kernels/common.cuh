// ---------------------------------------------------------------------------
// common.cuh: what every kernel family of gnnlib/cuda shares: the
// warp constants, float4 loads and stores, the grid-stride loop, the
// counter-based dropout masks, the rounding to bfloat16 and the small
// reductions. Included first
// by gnn.cu.
// ---------------------------------------------------------------------------

#pragma once

#include <cuda_runtime.h>

#define WARP 32
#define FULL 0xffffffffu

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

// hash01 is a counter-based uniform in [0,1): dropout masks are recomputed
// from (seed, index) instead of stored.
__device__ __forceinline__ float hash01(unsigned long long seed, long long i) {
	unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (unsigned long long)(i + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (z >> 40) * (1.0f / 16777216.0f);
}

// bias_act1 is bias_act's formula for one value at flat index i.
__device__ __forceinline__ float bias_act1(float v, int relu, float p, float keep, unsigned long long seed, long long i) {
	if (relu) v = fmaxf(v, 0.f);
	if (p > 0.f) v = hash01(seed, i) < p ? 0.f : v * keep;
	return v;
}

// bias_act4 applies bias_act to the float4 at column group c (columns
// 4c..4c+3) whose first element has flat index i: the fused epilogue of
// spmm_vec4, bit for bit what bias_act computes on SpMM's output.
__device__ __forceinline__ float4 bias_act4(float4 a, const float* __restrict__ b, int c, long long i, int relu, float p,
                                            unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	if (b) {
		float4 bb = __ldg(reinterpret_cast<const float4*>(b) + c);
		a.x += bb.x; a.y += bb.y; a.z += bb.z; a.w += bb.w;
	}
	return make_float4(bias_act1(a.x, relu, p, keep, seed, i), bias_act1(a.y, relu, p, keep, seed, i + 1),
	                   bias_act1(a.z, relu, p, keep, seed, i + 2), bias_act1(a.w, relu, p, keep, seed, i + 3));
}

// drop_keep is the factor attention dropout gives edge-and-head i: 0 with
// probability p, else keep = 1/(1-p); 1 when p is 0. The mask is a function
// of (seed, i), so the backward passes recompute it.
__device__ __forceinline__ float drop_keep(float p, float keep, unsigned long long seed, long long i) {
	return p > 0.f ? (hash01(seed, i) < p ? 0.f : keep) : 1.f;
}

__device__ __forceinline__ float lrelu(float z, float slope) { return z > 0.f ? z : slope * z; }
__device__ __forceinline__ float dlrelu(float z, float slope) { return z > 0.f ? 1.f : slope; }

// f32_bf16_bits rounds f to bfloat16 (to nearest, ties to even, a NaN
// kept a quiet NaN, as gnnlib/internal/half on the CPU) and returns its
// 16 bits.
__device__ __forceinline__ unsigned short f32_bf16_bits(float f) {
	unsigned int b = __float_as_uint(f);
	if ((b & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((b >> 16) | 0x0040u);
	b += 0x7fffu + ((b >> 16) & 1u);
	return (unsigned short)(b >> 16);
}

// bf16_bits_f32 widens a bfloat16 value (exact).
__device__ __forceinline__ float bf16_bits_f32(unsigned short h) { return __uint_as_float((unsigned int)h << 16); }

// ops_block_sum returns the sum of v over the block to every thread. All
// threads of the block must call it (blockDim.x a multiple of 32, at most
// 1024); it may be called several times in a row.
__device__ double ops_block_sum(double v) {
	__shared__ double part[32];
	__shared__ double total;
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	int lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
	__syncthreads();  // a previous call's readers are done with part and total
	if (lane == 0) part[w] = v;
	__syncthreads();
	if (w == 0) {
		v = lane < blockDim.x / WARP ? part[lane] : 0.0;
		for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
		if (lane == 0) total = v;
	}
	__syncthreads();
	return total;
}

__device__ __forceinline__ float ops_warp_sumf(float v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

__device__ __forceinline__ double ops_warp_sumd(double v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

__device__ __forceinline__ float ops_sigmoid(float v) {
	// split on the sign so that expf never overflows
	if (v >= 0.f) return 1.f / (1.f + expf(-v));
	float e = expf(v);
	return e / (1.f + e);
}
