// ---------------------------------------------------------------------------
// aggregate.cu: degree-aware max aggregation and its backward pass.
// ---------------------------------------------------------------------------

#include "common.cuh"

// Degree-aware max aggregation: y[v,c] = max over in-edges of x[u,c] (0 for
// an isolated node), arg[v,c] = the winning source (-1 if none). Light rows
// (degree <= tile) are reduced by one lane per feature; heavy rows are cut
// into edge tiles reduced in parallel and combined by a 64-bit atomicMax on
// a packed (ordered value, source) key, then unpacked by agg_max_finish.

__device__ __forceinline__ unsigned int ordered(float f) {
	unsigned int u = __float_as_uint(f);
	return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float unordered(unsigned int u) {
	return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

extern "C" __global__ void agg_max_light(const int* __restrict__ indptr, const int* __restrict__ indices,
                                         const float* __restrict__ x, float* __restrict__ y, int* __restrict__ arg,
                                         unsigned long long* __restrict__ key, int n, int F, int tile) {
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long total = (long long)n * F;
	for (; t < total; t += (long long)gridDim.x * blockDim.x) {
		int v = t / F, c = t % F;
		int beg = indptr[v], end = indptr[v + 1];
		if (end - beg > tile) {
			key[t] = 0ull;  // heavy: filled by agg_max_heavy
			continue;
		}
		float best = 0.f;
		int who = -1;
		for (int e = beg; e < end; e++) {
			int u = indices[e];
			float val = x[(long long)u * F + c];
			if (who < 0 || val > best) { best = val; who = u; }
		}
		y[t] = best;
		arg[t] = who;
	}
}

// agg_max_heavy: one block per (heavy row, edge tile); heavy lists the heavy
// rows, tiles[i] is the first tile index of heavy row i (prefix sum).
extern "C" __global__ void agg_max_heavy(const int* __restrict__ indptr, const int* __restrict__ indices,
                                         const float* __restrict__ x, unsigned long long* __restrict__ key,
                                         const int* __restrict__ heavy, const int* __restrict__ tiles, int nheavy,
                                         int F, int tile) {
	int b = blockIdx.x;
	// Binary search for the heavy row that owns tile b.
	int lo = 0, hi = nheavy - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tiles[mid] <= b) lo = mid; else hi = mid - 1;
	}
	int v = heavy[lo];
	int beg = indptr[v] + (b - tiles[lo]) * tile;
	int end = min(indptr[v + 1], beg + tile);
	for (int c = threadIdx.x; c < F; c += blockDim.x) {
		unsigned long long best = 0ull;
		for (int e = beg; e < end; e++) {
			int u = indices[e];
			unsigned long long k = ((unsigned long long)ordered(x[(long long)u * F + c]) << 32) | (unsigned int)(~u);
			best = k > best ? k : best;
		}
		atomicMax(&key[(long long)v * F + c], best);
	}
}

extern "C" __global__ void agg_max_finish(const int* __restrict__ heavy, int nheavy, const unsigned long long* __restrict__ key,
                                          float* __restrict__ y, int* __restrict__ arg, int F) {
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (; t < (long long)nheavy * F; t += (long long)gridDim.x * blockDim.x) {
		int v = heavy[t / F], c = t % F;
		long long i = (long long)v * F + c;
		unsigned long long k = key[i];
		y[i] = unordered((unsigned int)(k >> 32));
		arg[i] = (int)(~(unsigned int)k);
	}
}

// scatter_arg: dx[arg[i], c] += g[i] with c = i % F, for arg[i] >= 0 (dx
// zeroed first): the backward pass of agg_max_* (gnn.cu), whose arg holds
// the winning source of each output element.
extern "C" __global__ void scatter_arg(const int* arg, const float* g, float* dx, long long total, int F) {
	GRID_LOOP(i, total) {
		int u = arg[i];
		if (u >= 0) atomicAdd(&dx[(long long)u * F + i % F], g[i]);
	}
}
