// ---------------------------------------------------------------------------
// attnmerge.cu: the kernels that merge the edge tiles of the attention
// kernels' heavy rows (attn.cuh's ATTN_ROWS), in the compute_70 module.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include "attn.cuh"

// attn_merge_softmax merges the edge tiles of each heavy row: tile t left
// its normalised output pout[t, h, :] and log-sum-exp plse[t, h]; the row's
// log-sum-exp is LSE = log Σ_t exp(plse_t) and its output Σ_t exp(plse_t -
// LSE)·pout_t (the online-softmax merge of two states, over all tiles at
// once), plus skip's row when skip is not null (the Transformer's root
// term). One warp per (heavy row, head); C channels a head.
// T is the output's type (and skip's); the tiles' partial states are
// float32 whatever T is. attn_merge_softmax_bf16 is the one of the _bf16
// kernels.
template <typename T>
__device__ void attn_merge_softmax_body(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy, int ntiles,
                                        int H, int C, const float* __restrict__ pout, const float* __restrict__ plse,
                                        T* __restrict__ out, float* __restrict__ lse, const T* __restrict__ skip, long long lds) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	const long long HC = (long long)H * C;
	for (long long p = warp; p < (long long)nheavy * H; p += nwarp) {
		const int j = p / H, h = p % H;
		const long long v = heavy[j];
		int first, last;
		attn_tiles_of(tiles, nheavy, ntiles, j, first, last);
		float m = -INFINITY;
		for (int t = first; t < last; t++) m = fmaxf(m, plse[(long long)t * H + h]);
		float l = 0.f;
		for (int t = first; t < last; t++) l += expf(plse[(long long)t * H + h] - m);
		const float L = m + logf(l);
		for (int c = lane; c < C; c += WARP) {
			float o = 0.f;
			for (int t = first; t < last; t++) o += expf(plse[(long long)t * H + h] - L) * pout[t * HC + h * C + c];
			if (skip != nullptr) o += ld1p(skip + v * lds + h * C + c);
			st1(out + v * HC + h * C + c, o);
		}
		if (lane == 0) lse[v * H + h] = L;
	}
}

extern "C" __global__ void attn_merge_softmax(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy, int ntiles,
                                              int H, int C, const float* __restrict__ pout, const float* __restrict__ plse,
                                              float* __restrict__ out, float* __restrict__ lse, const float* __restrict__ skip,
                                              long long lds) {
	attn_merge_softmax_body(heavy, tiles, nheavy, ntiles, H, C, pout, plse, out, lse, skip, lds);
}

extern "C" __global__ void attn_merge_softmax_bf16(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy,
                                                   int ntiles, int H, int C, const float* __restrict__ pout,
                                                   const float* __restrict__ plse, bf16* __restrict__ out,
                                                   float* __restrict__ lse, const bf16* __restrict__ skip, long long lds) {
	attn_merge_softmax_body(heavy, tiles, nheavy, ntiles, H, C, pout, plse, out, lse, skip, lds);
}

// attn_merge_sum adds the edge tiles' partial sums of each heavy row:
// dst[row, c] = Σ_t part[t, c] for c < W (a gradient row, or W = H
// per-head scalars). One thread per (heavy row, column). The parts are
// float32; attn_merge_sum_bf16 rounds the sum into a bfloat16 dst.
template <typename T>
__device__ void attn_merge_sum_body(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy, int ntiles, int W,
                                    const float* __restrict__ part, T* __restrict__ dst, long long ld) {
	GRID_LOOP(i, (long long)nheavy * W) {
		const int j = i / W, c = i % W;
		int first, last;
		attn_tiles_of(tiles, nheavy, ntiles, j, first, last);
		float s = 0.f;
		for (int t = first; t < last; t++) s += part[(long long)t * W + c];
		st1(dst + (long long)heavy[j] * ld + c, s);
	}
}

extern "C" __global__ void attn_merge_sum(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy, int ntiles, int W,
                                          const float* __restrict__ part, float* __restrict__ dst, long long ld) {
	attn_merge_sum_body(heavy, tiles, nheavy, ntiles, W, part, dst, ld);
}

extern "C" __global__ void attn_merge_sum_bf16(const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy, int ntiles,
                                               int W, const float* __restrict__ part, bf16* __restrict__ dst, long long ld) {
	attn_merge_sum_body(heavy, tiles, nheavy, ntiles, W, part, dst, ld);
}
