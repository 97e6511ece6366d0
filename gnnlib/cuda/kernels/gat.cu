// ---------------------------------------------------------------------------
// gat.cu: the fused GAT (v1) attention and its per-node scores (head_dot).
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "attn.cuh"

// GAT (v1) attention, fused like GATv2's: per destination v and head k the
// logits lrelu(as[u,k] + ad[v,k]) of v's in-edges go through an online
// softmax (running max and sum in registers) and weight h[u,k,:]. One warp
// per (v, k), lanes over the head's F channels: lane l holds channels
// l + 32j for j < CPL, masked past F, so a kernel takes F <= 32·CPL. The
// kernels are instantiated for CPL 8 (F <= 256: gat_fwd, gat_bwd_dst,
// gat_bwd_src) and CPL 32 (F <= 1024: the same names with _w), which keeps
// the common widths at the register count they had. Only out and one
// log-sum-exp per (v, k) are stored; the backward passes recompute the
// attention from it.

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
	for (int o = WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

template <typename T, int GAT_CPL>
__device__ void gat_fwd_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS,
                                   const T* __restrict__ h, const float* __restrict__ as,
                                   const float* __restrict__ ad, T* __restrict__ out, float* __restrict__ lse,
                                   int n, int H, int F, float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const int HF = H * F;
	const attn_groups<WARP> g(n, H);
	for (long long p = g.grp0; p < g.total; p += g.ngrp) {
		const auto [p_, item, v, k, beg, end, live] = g.item(p, indptr, heavy, tiles, nheavy, tile);
		const float adv = ad[v * H + k];
		float m = -INFINITY, s = 0.f;
		float acc[GAT_CPL];
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) acc[j] = 0.f;
		for (int e = beg; e < end; e++) {
			const int u = __ldg(&indices[e]);
			const float z = lrelu(__ldg(&as[(long long)u * H + k]) + adv, slope);
			const T* hu = h + (long long)u * HF + k * F;
			float sc, q = osm_step<false>(m, s, z, sc);
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) acc[j] *= sc;
			// Attention dropout weighs the edge in the output only.
			q *= drop_keep(pdrop, keep, seed, (long long)e * H + k);
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) acc[j] += q * ld1(hu + c);
			}
		}
		const float inv = osm_inv(s);
		if (sizeof(T) == sizeof(float) || heavy != nullptr) {
			// float32 output, or a tile's float32 scratch (lane_store_item).
			float* o = reinterpret_cast<float*>(out) + item * HF + k * F;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) o[c] = acc[j] * inv;
			}
		} else {
			T* o = out + item * HF + k * F;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) st1(o + c, acc[j] * inv);
			}
		}
		if (lane == 0) lse[p] = osm_lse<false>(m, s);
	}
}

// gat_bwd_dst: per (v, k): D = dout[v,k,:]·out[v,k,:] (stored for the
// source pass) and dad[v,k] = Σ_u dz_vu, where dz = α(dout_v·h_u − D)
// times the LeakyReLU slope of the logit.
template <typename T, int GAT_CPL>
__device__ void gat_bwd_dst_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS,
                                       const T* __restrict__ h, const float* __restrict__ as,
                                       const float* __restrict__ ad, const T* __restrict__ out,
                                       const float* __restrict__ lse, const T* __restrict__ dout,
                                       float* __restrict__ dd, float* __restrict__ dad, int n, int H, int F,
                                       float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const int HF = H * F;
	const attn_groups<WARP> g(n, H);
	for (long long p = g.grp0; p < g.total; p += g.ngrp) {
		const auto [p_, item, v, k, beg, end, live] = g.item(p, indptr, heavy, tiles, nheavy, tile);
		float go[GAT_CPL];
		float D = 0.f;
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			go[j] = c < F ? ld1p(dout + v * HF + k * F + c) : 0.f;
			if (c < F) D += go[j] * ld1p(out + v * HF + k * F + c);
		}
		D = warp_sum(D);
		const float L = lse[v * H + k], adv = ad[v * H + k];
		float dsum = 0.f;
		for (int e = beg; e < end; e++) {
			const int u = __ldg(&indices[e]);
			const float z0 = __ldg(&as[(long long)u * H + k]) + adv;
			const T* hu = h + (long long)u * HF + k * F;
			float dot = 0.f;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) dot += go[j] * ld1(hu + c);
			}
			dot = warp_sum(dot);
			const float alpha = expf(lrelu(z0, slope) - L);
			const float kd = drop_keep(pdrop, keep, seed, (long long)e * H + k);
			dsum += alpha * (kd * dot - D) * dlrelu(z0, slope);
		}
		if (lane == 0) {
			if (dd != nullptr) dd[p] = D;  // the row pass only
			dad[p] = dsum;
		}
	}
}

// gat_bwd_src: per (u, k), over u's out-edges in the transposed CSR
// (tindices hold the destinations): dh[u,k,:] = Σ_v α_vu dout[v,k,:] and
// das[u,k] = Σ_v dz_vu, recomputing α and dz from lse and D (and, with
// attention dropout, the edge's factor from the CSR edge tperm[e]).
template <typename T, int GAT_CPL>
__device__ void gat_bwd_src_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS,
                                       const T* __restrict__ h, const float* __restrict__ as,
                                       const float* __restrict__ ad, const float* __restrict__ lse,
                                       const float* __restrict__ dd, const T* __restrict__ dout,
                                       T* __restrict__ dh, float* __restrict__ das, int nsrc, int H, int F,
                                       float slope, const int* __restrict__ tperm, float pdrop,
                                       unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const int HF = H * F;
	const attn_groups<WARP> g(nsrc, H);
	for (long long p = g.grp0; p < g.total; p += g.ngrp) {
		const auto [p_, item, u, k, beg, end, live] = g.item(p, tindptr, heavy, tiles, nheavy, tile);
		float hu[GAT_CPL], acc[GAT_CPL];
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			hu[j] = c < F ? ld1p(h + u * HF + k * F + c) : 0.f;
			acc[j] = 0.f;
		}
		const float asu = as[u * H + k];
		float dsum = 0.f;
		for (int e = beg; e < end; e++) {
			const long long v = __ldg(&tindices[e]);
			const long long q = v * H + k;
			const float z0 = asu + __ldg(&ad[q]);
			const float alpha = expf(lrelu(z0, slope) - __ldg(&lse[q]));
			// The dropout factor is drawn per CSR edge: tperm names it.
			const float kd = pdrop > 0.f ? drop_keep(pdrop, keep, seed, (long long)__ldg(&tperm[e]) * H + k) : 1.f;
			const T* gv = dout + v * HF + k * F;
			float g[GAT_CPL];
			float dot = 0.f;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				g[j] = c < F ? ld1(gv + c) : 0.f;
				dot += g[j] * hu[j];
				acc[j] += alpha * kd * g[j];
			}
			dot = warp_sum(dot);
			dsum += alpha * (kd * dot - __ldg(&dd[q])) * dlrelu(z0, slope);
		}
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			if (c < F) st1_item(dh, heavy != nullptr, item * HF + k * F + c, acc[j]);
		}
		if (lane == 0) das[p] = dsum;
	}
}

// GAT_V1_INST instantiates the three GAT kernels over features of type T
// (h, out, dout and dh; bfloat16 with T bf16, float32 scratch in the
// pass over heavy rows' tiles) with CPL channels a lane; the per-node
// scores as, ad, their gradients, lse and D are float32.
#define GAT_V1_INST(SUFFIX, T, CPL)                                                                                \
	extern "C" __global__ void gat_fwd##SUFFIX(const int* indptr, const int* indices, ATTN_ROWS, const T* h, const float* as, \
	                                           const float* ad, T* out, float* lse, int n, int H, int F,              \
	                                           float slope, float pdrop, unsigned long long seed) {                   \
		gat_fwd_body<T, CPL>(indptr, indices, heavy, tiles, nheavy, tile, h, as, ad, out, lse, n, H, F, slope, pdrop, seed);                    \
	}                                                                                                                \
	extern "C" __global__ void gat_bwd_dst##SUFFIX(const int* indptr, const int* indices, ATTN_ROWS, const T* h,                 \
	                                               const float* as, const float* ad, const T* out,                    \
	                                               const float* lse, const T* dout, float* dd, float* dad, int n,     \
	                                               int H, int F, float slope, float pdrop, unsigned long long seed) { \
		gat_bwd_dst_body<T, CPL>(indptr, indices, heavy, tiles, nheavy, tile, h, as, ad, out, lse, dout, dd, dad, n, H, F, slope, pdrop, seed); \
	}                                                                                                                \
	extern "C" __global__ void gat_bwd_src##SUFFIX(const int* tindptr, const int* tindices, ATTN_ROWS, const T* h,               \
	                                               const float* as, const float* ad, const float* lse,                \
	                                               const float* dd, const T* dout, T* dh, float* das,                 \
	                                               int nsrc, int H, int F, float slope, const int* tperm, float pdrop, \
	                                               unsigned long long seed) {                                         \
		gat_bwd_src_body<T, CPL>(tindptr, tindices, heavy, tiles, nheavy, tile, h, as, ad, lse, dd, dout, dh, das, nsrc, H, F, slope, tperm, pdrop, \
		                         seed);                                                                              \
	}

// F <= 256 (8 channels a lane) and F <= 1024 (32 a lane), and their
// bfloat16 versions (_bf16).
GAT_V1_INST(, float, 8)
GAT_V1_INST(_w, float, 32)
GAT_V1_INST(_bf16, bf16, 8)
GAT_V1_INST(_w_bf16, bf16, 32)

// head_dot: y[r,k] = Σ_j x[r,k,j]·att[k,j] (GAT's per-node attention
// logits), one warp per (r, k).
extern "C" __global__ void head_dot(const float* __restrict__ x, const float* __restrict__ att, float* __restrict__ y,
                                    int rows, int H, int F) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	for (long long p = warp; p < (long long)rows * H; p += nwarp) {
		const int k = p % H;
		const float* xr = x + p * F;
		float s = 0.f;
		for (int c = lane; c < F; c += WARP) s += xr[c] * att[k * F + c];
		s = warp_sum(s);
		if (lane == 0) y[p] = s;
	}
}

// head_dot_dx: dx[r,k,j] = g[r,k]·att[k,j].
extern "C" __global__ void head_dot_dx(const float* __restrict__ g, const float* __restrict__ att, float* __restrict__ dx,
                                       long long total, int H, int F) {
	GRID_LOOP(i, total) {
		const long long p = i / F;
		const int k = p % H, j = i % F;
		dx[i] = g[p] * att[k * F + j];
	}
}

// head_dot_datt: datt[k,j] += Σ_r g[r,k]·x[r,k,j] over a chunk of rows per
// block (datt zeroed first).
extern "C" __global__ void head_dot_datt(const float* __restrict__ g, const float* __restrict__ x, float* __restrict__ datt,
                                         int rows, int H, int F, int chunk) {
	const int HF = H * F;
	const int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < HF; c += gridDim.x * blockDim.x) {
		const int k = c / F;
		float s = 0.f;
		for (int r = r0; r < r1; r++) s += g[(long long)r * H + k] * x[(long long)r * HF + c];
		atomicAdd(&datt[c], s);
	}
}
