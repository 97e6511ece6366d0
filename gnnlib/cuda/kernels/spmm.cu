// ---------------------------------------------------------------------------
// spmm.cu: CSR SpMM in two thread mappings (a lane group moving
// float4s, and a warp per row), each with edge tiles for heavy rows, and the
// transpose permutation a device graph keeps for the backward passes.
// ---------------------------------------------------------------------------

#include "common.cuh"

// SpMM over CSR: y[v,:] = sum_e w[e] * x[indices[e],:] (w == NULL: weight 1).

// spmm_vec4: a group of G lanes (G = min(32, F/4), a power of two) owns one
// row; each lane moves float4s, so a warp reads whole 128-byte lines of the
// neighbour's row. Requires F % 4 == 0 and 16-byte aligned rows. The edge
// loop is unrolled by two so that two gathers are in flight per lane.
// Rows with more than tile edges (tile > 0) are only zeroed here and
// summed by spmm_heavy_vec4, so that one hub does not hold up a whole group.
extern "C" __global__ void spmm_vec4(const int* __restrict__ indptr, const int* __restrict__ indices,
                                     const float* __restrict__ w, const float* __restrict__ x,
                                     float* __restrict__ y, int n, int F, int G, int tile,
                                     const float* __restrict__ bias, int relu, float p, unsigned long long seed) {
	const int lane = threadIdx.x % G;
	const long long grp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	const int F4 = F / 4;
	for (long long v = grp; v < n; v += ngrp) {
		const int beg = indptr[v], end = tile > 0 && indptr[v + 1] - indptr[v] > tile ? indptr[v] : indptr[v + 1];
		for (int c = lane; c < F4; c += G) {
			float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
			int e = beg;
			for (; e + 1 < end; e += 2) {
				int u0 = __ldg(&indices[e]), u1 = __ldg(&indices[e + 1]);
				float w0 = w ? __ldg(&w[e]) : 1.f, w1 = w ? __ldg(&w[e + 1]) : 1.f;
				float4 a = __ldg(reinterpret_cast<const float4*>(x + (long long)u0 * F) + c);
				float4 b = __ldg(reinterpret_cast<const float4*>(x + (long long)u1 * F) + c);
				acc.x += w0 * a.x + w1 * b.x;
				acc.y += w0 * a.y + w1 * b.y;
				acc.z += w0 * a.z + w1 * b.z;
				acc.w += w0 * a.w + w1 * b.w;
			}
			if (e < end) {
				int u0 = __ldg(&indices[e]);
				float w0 = w ? __ldg(&w[e]) : 1.f;
				float4 a = __ldg(reinterpret_cast<const float4*>(x + (long long)u0 * F) + c);
				acc.x += w0 * a.x; acc.y += w0 * a.y; acc.z += w0 * a.z; acc.w += w0 * a.w;
			}
			if (bias || relu || p > 0.f) acc = bias_act4(acc, bias, c, v * F + c * 4, relu, p, seed);
			reinterpret_cast<float4*>(y + v * F)[c] = acc;
		}
	}
}

// spmm_heavy_vec4: one block per edge tile of a heavy row (heavy lists the
// rows, tiles[i] the first tile of heavy row i); each thread sums one float4
// column over the tile and adds it to y by atomics.
extern "C" __global__ void spmm_heavy_vec4(const int* __restrict__ indptr, const int* __restrict__ indices,
                                           const float* __restrict__ w, const float* __restrict__ x,
                                           float* __restrict__ y, const int* __restrict__ heavy,
                                           const int* __restrict__ tiles, int nheavy, int F, int tile) {
	int b = blockIdx.x;
	int lo = 0, hi = nheavy - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tiles[mid] <= b) lo = mid; else hi = mid - 1;
	}
	int v = heavy[lo];
	int beg = indptr[v] + (b - tiles[lo]) * tile;
	int end = min(indptr[v + 1], beg + tile);
	for (int c = threadIdx.x; c < F / 4; c += blockDim.x) {
		float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
		for (int e = beg; e < end; e++) {
			int u = __ldg(&indices[e]);
			float ww = w ? __ldg(&w[e]) : 1.f;
			float4 a = __ldg(reinterpret_cast<const float4*>(x + (long long)u * F) + c);
			acc.x += ww * a.x; acc.y += ww * a.y; acc.z += ww * a.z; acc.w += ww * a.w;
		}
		float* q = y + (long long)v * F + 4 * c;
		atomicAdd(q, acc.x); atomicAdd(q + 1, acc.y); atomicAdd(q + 2, acc.z); atomicAdd(q + 3, acc.w);
	}
}

// spmm_warp: the textbook mapping, one warp per row and one float per lane,
// the row's edge ids and weights read 32 at a time and broadcast by shuffle.
// Rows with more than tile edges (tile > 0) are only zeroed here and summed
// by spmm_heavy_warp, as spmm_vec4 leaves its heavy rows to spmm_heavy_vec4.
extern "C" __global__ void spmm_warp(const int* __restrict__ indptr, const int* __restrict__ indices,
                                     const float* __restrict__ w, const float* __restrict__ x,
                                     float* __restrict__ y, int n, int F, int tile) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	for (long long v = warp; v < n; v += nwarp) {
		const int beg = indptr[v], end = tile > 0 && indptr[v + 1] - indptr[v] > tile ? indptr[v] : indptr[v + 1];
		for (int c0 = 0; c0 < F; c0 += WARP) {
			int c = c0 + lane;
			float acc = 0.f;
			for (int eb = beg; eb < end; eb += WARP) {
				int my = eb + lane;
				int u = my < end ? indices[my] : 0;
				float ww = my < end ? (w ? w[my] : 1.f) : 0.f;
				int cnt = min(WARP, end - eb);
				for (int j = 0; j < cnt; j++) {
					int uj = __shfl_sync(FULL, u, j);
					float wj = __shfl_sync(FULL, ww, j);
					if (c < F) acc += wj * __ldg(&x[(long long)uj * F + c]);
				}
			}
			if (c < F) y[v * F + c] = acc;
		}
	}
}

// spmm_heavy_warp is spmm_heavy_vec4 for widths that are not a multiple of
// 4: one block per edge tile of a heavy row, each thread summing one column
// over the tile (consecutive threads read consecutive floats of a
// neighbour's row) and adding it to y by an atomic.
extern "C" __global__ void spmm_heavy_warp(const int* __restrict__ indptr, const int* __restrict__ indices,
                                           const float* __restrict__ w, const float* __restrict__ x,
                                           float* __restrict__ y, const int* __restrict__ heavy,
                                           const int* __restrict__ tiles, int nheavy, int F, int tile) {
	int b = blockIdx.x;
	int lo = 0, hi = nheavy - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tiles[mid] <= b) lo = mid; else hi = mid - 1;
	}
	int v = heavy[lo];
	int beg = indptr[v] + (b - tiles[lo]) * tile;
	int end = min(indptr[v + 1], beg + tile);
	for (int c = threadIdx.x; c < F; c += blockDim.x) {
		float acc = 0.f;
		for (int e = beg; e < end; e++) {
			int u = __ldg(&indices[e]);
			float ww = w ? __ldg(&w[e]) : 1.f;
			acc += ww * __ldg(&x[(long long)u * F + c]);
		}
		atomicAdd(&y[(long long)v * F + c], acc);
	}
}

// transpose_perm: tperm[t] = the CSR edge (u -> v, in v's row) at position
// t of the transposed CSR (u's row lists the v). A CSR row's k-th edge from
// u maps to the k-th entry v of u's transposed row, so multi-edges pair up
// in order whatever order the transpose keeps. One thread per row v; the
// scans cost the two rows' degrees per edge, once per graph. An edge
// missing from the transpose sets *bad.
extern "C" __global__ void transpose_perm(const int* __restrict__ indptr, const int* __restrict__ indices,
                                          const int* __restrict__ tindptr, const int* __restrict__ tindices,
                                          int* __restrict__ tperm, int* bad, int n) {
	GRID_LOOP(v, n) {
		int beg = indptr[v], end = indptr[v + 1];
		for (int e = beg; e < end; e++) {
			int u = indices[e], k = 0;
			for (int f = beg; f < e; f++) k += indices[f] == u;
			int pos = -1;
			for (int t = tindptr[u]; t < tindptr[u + 1]; t++) {
				if (tindices[t] == v && k-- == 0) {
					pos = t;
					break;
				}
			}
			if (pos < 0)
				*bad = 1;
			else
				tperm[pos] = e;
		}
	}
}
