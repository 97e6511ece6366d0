// ---------------------------------------------------------------------------
// half.cu: 16-bit storage for mixed precision, in the compute_70 module (no
// sm_80 instruction is needed): float32 <-> bfloat16 conversion and the
// in-place rounding of float32 values to BF16 or FP16 that the Autocast
// emulation on the device uses. Rounding is to nearest, ties to even, with
// NaN kept a quiet NaN, exactly as gnnlib/internal/half on the CPU.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include <cuda_fp16.h>

// f32_to_bf16: y[i] = bf16(x[i]) for n values.
extern "C" __global__ void f32_to_bf16(const float* __restrict__ x, unsigned short* __restrict__ y, long long n) {
	GRID_LOOP(i, n) y[i] = f32_bf16_bits(x[i]);
}

// bf16_to_f32: y[i] = float(x[i]) for n values (exact).
extern "C" __global__ void bf16_to_f32(const unsigned short* __restrict__ x, float* __restrict__ y, long long n) {
	GRID_LOOP(i, n) y[i] = bf16_bits_f32(x[i]);
}

// round_half rounds n float32 values in place to BF16 (fp16 == 0) or FP16
// (fp16 == 1), keeping them float32: Autocast's rounding on store.
extern "C" __global__ void round_half(float* __restrict__ x, long long n, int fp16) {
	if (fp16) {
		GRID_LOOP(i, n) x[i] = __half2float(__float2half_rn(x[i]));
	} else {
		GRID_LOOP(i, n) x[i] = bf16_bits_f32(f32_bf16_bits(x[i]));
	}
}

// bias_act_bf16 is bias_act over bfloat16 storage: y = bf16(dropout(act(x +
// b))) with x and y bfloat16, b float32, the arithmetic float32 and the
// dropout mask bias_act's (the same (seed, index) hash), so that it equals
// bias_act on the widened input, rounded. In place allowed.
extern "C" __global__ void bias_act_bf16(const unsigned short* x, const float* b, unsigned short* y, long long total,
                                         int F, int relu, float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(i, total) y[i] = f32_bf16_bits(bias_act1(bf16_bits_f32(x[i]) + (b ? b[i % F] : 0.f), relu, p, keep, seed, i));
}

// bf16x8 holds 8 bfloat16 values read or written in 16 bytes.
struct bf16x8 {
	unsigned short h[8];
};

__device__ __forceinline__ bf16x8 ld_bf16x8(const unsigned short* p) {
	uint4 u = *(const uint4*)p;
	bf16x8 r;
	const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
	for (int k = 0; k < 4; k++) {
		r.h[2 * k] = (unsigned short)(w[k] & 0xffffu);
		r.h[2 * k + 1] = (unsigned short)(w[k] >> 16);
	}
	return r;
}

__device__ __forceinline__ void st_bf16x8(unsigned short* p, const bf16x8& v) {
	uint4 u;
	u.x = (unsigned)v.h[0] | (unsigned)v.h[1] << 16;
	u.y = (unsigned)v.h[2] | (unsigned)v.h[3] << 16;
	u.z = (unsigned)v.h[4] | (unsigned)v.h[5] << 16;
	u.w = (unsigned)v.h[6] | (unsigned)v.h[7] << 16;
	*(uint4*)p = u;
}

// f32_to_bf16_v8 is f32_to_bf16 for n a multiple of 8 and 16-byte aligned
// x and y: 8 values a thread, two 16-byte loads and one 16-byte store.
extern "C" __global__ void f32_to_bf16_v8(const float* __restrict__ x, unsigned short* __restrict__ y, long long n) {
	GRID_LOOP(j, n / 8) {
		const float4 a = ((const float4*)x)[2 * j], b = ((const float4*)x)[2 * j + 1];
		bf16x8 v;
		v.h[0] = f32_bf16_bits(a.x), v.h[1] = f32_bf16_bits(a.y), v.h[2] = f32_bf16_bits(a.z), v.h[3] = f32_bf16_bits(a.w);
		v.h[4] = f32_bf16_bits(b.x), v.h[5] = f32_bf16_bits(b.y), v.h[6] = f32_bf16_bits(b.z), v.h[7] = f32_bf16_bits(b.w);
		st_bf16x8(y + j * 8, v);
	}
}

// add_bf16: y[i] = bf16(float(a[i]) + float(b[i])), the sum of two
// bfloat16 tensors of one shape in float32, rounded once (Binary's add
// under Autocast, tune.BF16Add). In place allowed.
extern "C" __global__ void add_bf16(const unsigned short* a, const unsigned short* b, unsigned short* y, long long n) {
	GRID_LOOP(i, n) y[i] = f32_bf16_bits(bf16_bits_f32(a[i]) + bf16_bits_f32(b[i]));
}

// add_bf16_v8 is add_bf16 for n a multiple of 8 and 16-byte aligned a, b
// and y: 8 values a thread in 16-byte loads and stores.
extern "C" __global__ void add_bf16_v8(const unsigned short* a, const unsigned short* b, unsigned short* y, long long n) {
	GRID_LOOP(j, n / 8) {
		bf16x8 u = ld_bf16x8(a + j * 8);
		const bf16x8 v = ld_bf16x8(b + j * 8);
#pragma unroll
		for (int k = 0; k < 8; k++) u.h[k] = f32_bf16_bits(bf16_bits_f32(u.h[k]) + bf16_bits_f32(v.h[k]));
		st_bf16x8(y + j * 8, u);
	}
}

// bias_act_bf16_v8 is bias_act_bf16 for F a multiple of 8 and 16-byte
// aligned x and y: 8 values a thread in 16-byte loads and stores, one
// column index a group (bias_act_bf16 divides the 64-bit index by F for
// every value); the values and the mask are bias_act_bf16's. In place
// allowed.
extern "C" __global__ void bias_act_bf16_v8(const unsigned short* x, const float* b, unsigned short* y, long long total,
                                            int F, int relu, float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(j, total / 8) {
		const long long i = j * 8;
		const int c = (int)(i % F);
		bf16x8 v = ld_bf16x8(x + i);
#pragma unroll
		for (int k = 0; k < 8; k++)
			v.h[k] = f32_bf16_bits(bias_act1(bf16_bits_f32(v.h[k]) + (b ? b[c + k] : 0.f), relu, p, keep, seed, i + k));
		st_bf16x8(y + i, v);
	}
}

// unbias_act_bf16_v8 is unbias_act_bf16 (gatv2.cu) out of place for F a
// multiple of 8 and 16-byte aligned rows: x rebuilt from y =
// dropout(relu(x + b)) in float32 and rounded once, 8 values a thread,
// instead of a copy of y and a pass over the copy, 2 bytes a thread.
extern "C" __global__ void unbias_act_bf16_v8(const unsigned short* y, const float* b, unsigned short* x, long long total,
                                              int F, int relu, float p) {
	GRID_LOOP(j, total / 8) {
		const long long i = j * 8;
		const int c = (int)(i % F);
		bf16x8 v = ld_bf16x8(y + i);
#pragma unroll
		for (int k = 0; k < 8; k++) {
			const float f = bf16_bits_f32(v.h[k]);
			const float bb = b ? b[c + k] : 0.f;
			v.h[k] = f32_bf16_bits((relu || p > 0.f) ? (f != 0.f ? f * (1.f - p) - bb : 0.f) : f - bb);
		}
		st_bf16x8(x + i, v);
	}
}

// act_backward_colsum_bf16_v8 is act_backward_colsum_bf16 for F a
// multiple of 8 and 16-byte aligned rows: a warp reads a row 256 columns
// at a time, each lane 8 columns in 16-byte loads (act_backward_colsum_bf16
// gives a thread one column, 2 bytes a load); the block's 8 warps take
// every 8th row of its chunk, add their column sums in shared memory and
// make one atomic add a column. dx is act_backward_bf16's bit for bit; the
// sums are of the same rounded values in another order. In place (dx ==
// g) allowed. Blocks of 256 threads, grid (ceil(F/256), row chunks).
extern "C" __global__ void __launch_bounds__(256) act_backward_colsum_bf16_v8(const unsigned short* y, const unsigned short* g,
                                                                             unsigned short* dx, float* out, int rows, int F,
                                                                             int chunk, int relu, float p) {
	__shared__ float part[8][256];
	const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
	const int c0 = blockIdx.x * 256 + lane * 8;
	const int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	const float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	const bool masked = relu || p > 0.f;
	float s[8];
#pragma unroll
	for (int k = 0; k < 8; k++) s[k] = 0.f;
	if (c0 < F) {
		for (int r = r0 + warp; r < r1; r += 8) {
			const long long i = (long long)r * F + c0;
			const bf16x8 yv = ld_bf16x8(y + i);
			bf16x8 v = ld_bf16x8(g + i);
#pragma unroll
			for (int k = 0; k < 8; k++) {
				const float m = masked ? ((yv.h[k] & 0x7fffu) != 0 ? keep : 0.f) : 1.f;
				v.h[k] = f32_bf16_bits(bf16_bits_f32(v.h[k]) * m);
				s[k] += bf16_bits_f32(v.h[k]);
			}
			st_bf16x8(dx + i, v);
		}
	}
#pragma unroll
	for (int k = 0; k < 8; k++) part[warp][lane * 8 + k] = s[k];
	__syncthreads();
	const int c = blockIdx.x * 256 + threadIdx.x;
	if (c < F) {
		float t = 0.f;
		for (int w = 0; w < 8; w++) t += part[w][threadIdx.x];
		atomicAdd(&out[c], t);
	}
}

// act_backward_bf16 is act_backward over bfloat16 storage: dx = bf16(g ·
// mask(y)).
extern "C" __global__ void act_backward_bf16(const unsigned short* y, const unsigned short* g, unsigned short* dx,
                                             long long total, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	GRID_LOOP(i, total) {
		float m = (relu || p > 0.f) ? ((y[i] & 0x7fffu) != 0 ? keep : 0.f) : 1.f;
		dx[i] = f32_bf16_bits(bf16_bits_f32(g[i]) * m);
	}
}

// act_backward_colsum_bf16 is act_backward_bf16 and col_sum_bf16 of its
// result in one pass (act_backward_colsum over bfloat16 storage): dx =
// bf16(g · mask(y)) and out[c] += sum_r float(dx[r,c]), the sums of the
// rounded values in col_sum_bf16's order (out zeroed first); blocks take
// row chunks. In place (dx == g) allowed.
extern "C" __global__ void act_backward_colsum_bf16(const unsigned short* y, const unsigned short* g, unsigned short* dx,
                                                    float* out, int rows, int F, int chunk, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < F; c += gridDim.x * blockDim.x) {
		float s = 0.f;
		for (int r = r0; r < r1; r++) {
			long long i = (long long)r * F + c;
			float m = (relu || p > 0.f) ? ((y[i] & 0x7fffu) != 0 ? keep : 0.f) : 1.f;
			unsigned short v = f32_bf16_bits(bf16_bits_f32(g[i]) * m);
			dx[i] = v;
			s += bf16_bits_f32(v);
		}
		atomicAdd(&out[c], s);
	}
}

// col_sum_bf16 is col_sum over bfloat16 x (a bias gradient under
// Autocast): out[c] += sum_r float(x[r,c]), float32 sums (out zeroed
// first); blocks take row chunks.
extern "C" __global__ void col_sum_bf16(const unsigned short* x, float* out, int rows, int F, int chunk) {
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < F; c += gridDim.x * blockDim.x) {
		float s = 0.f;
		for (int r = r0; r < r1; r++) s += bf16_bits_f32(x[(long long)r * F + c]);
		atomicAdd(&out[c], s);
	}
}
