// ---------------------------------------------------------------------------
// attn.cuh: the building blocks of the fused attention kernels (gatv2.cu,
// transformer.cu, gat.cu): the lane-group helpers that keep a head's
// channels in registers, and the online-softmax step with the merge of two
// softmax states (the heavy rows' edge tiles). One copy, so that a new
// precision or a new attention family reuses them instead of copying.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

// bf16 is the feature element of the _bf16 attention kernels: a bfloat16
// value's 16 bits. Every kernel body is a template over its feature type
// T (float or bf16); it loads 4 channels as a float4 either way (16
// bytes of float, 8 of bfloat16, widened exactly), keeps its softmax
// statistics and sums in float32 and rounds once when it stores a T row.
typedef unsigned short bf16;

// ldg4 loads the j-th group of 4 values of row (16 bytes of float, 8 of
// bf16, widened exactly) as a float4 through the read-only cache.
__device__ __forceinline__ float4 ldg4(const float* __restrict__ row, int j) { return __ldg(reinterpret_cast<const float4*>(row) + j); }
__device__ __forceinline__ float4 ldg4(const bf16* __restrict__ row, int j) {
	const uint2 u = __ldg(reinterpret_cast<const uint2*>(row) + j);
	return make_float4(bf16_bits_f32((unsigned short)u.x), bf16_bits_f32((unsigned short)(u.x >> 16)),
	                   bf16_bits_f32((unsigned short)u.y), bf16_bits_f32((unsigned short)(u.y >> 16)));
}

// ldg8 loads the j-th group of 8 values of row as two float4s: one
// 16-byte load of bfloat16, two of float.
__device__ __forceinline__ void ldg8(const float* __restrict__ row, int j, float4& a, float4& b) {
	a = __ldg(reinterpret_cast<const float4*>(row) + 2 * j);
	b = __ldg(reinterpret_cast<const float4*>(row) + 2 * j + 1);
}
__device__ __forceinline__ void ldg8(const bf16* __restrict__ row, int j, float4& a, float4& b) {
	const uint4 u = __ldg(reinterpret_cast<const uint4*>(row) + j);
	a = make_float4(bf16_bits_f32((unsigned short)u.x), bf16_bits_f32((unsigned short)(u.x >> 16)),
	                bf16_bits_f32((unsigned short)u.y), bf16_bits_f32((unsigned short)(u.y >> 16)));
	b = make_float4(bf16_bits_f32((unsigned short)u.z), bf16_bits_f32((unsigned short)(u.z >> 16)),
	                bf16_bits_f32((unsigned short)u.w), bf16_bits_f32((unsigned short)(u.w >> 16)));
}

// st4 of a bf16 row rounds the 4 values to nearest even and stores 8 bytes
// (common.cuh has the float one).
__device__ __forceinline__ void st4(bf16* p, float4 v) {
	uint2 u;
	u.x = (unsigned)f32_bf16_bits(v.x) | (unsigned)f32_bf16_bits(v.y) << 16;
	u.y = (unsigned)f32_bf16_bits(v.z) | (unsigned)f32_bf16_bits(v.w) << 16;
	*reinterpret_cast<uint2*>(p) = u;
}

// st8 stores two float4s as 8 consecutive values (one 16-byte store of
// bfloat16, rounded).
__device__ __forceinline__ void st8(float* p, float4 a, float4 b) {
	st4(p, a);
	st4(p + 4, b);
}
__device__ __forceinline__ void st8(bf16* p, float4 a, float4 b) {
	uint4 u;
	u.x = (unsigned)f32_bf16_bits(a.x) | (unsigned)f32_bf16_bits(a.y) << 16;
	u.y = (unsigned)f32_bf16_bits(a.z) | (unsigned)f32_bf16_bits(a.w) << 16;
	u.z = (unsigned)f32_bf16_bits(b.x) | (unsigned)f32_bf16_bits(b.y) << 16;
	u.w = (unsigned)f32_bf16_bits(b.z) | (unsigned)f32_bf16_bits(b.w) << 16;
	*reinterpret_cast<uint4*>(p) = u;
}

// ld1 loads one value as float (GAT's lanes read single channels).
__device__ __forceinline__ float ld1(const float* __restrict__ p) { return __ldg(p); }
__device__ __forceinline__ float ld1(const bf16* __restrict__ p) { return bf16_bits_f32(__ldg(p)); }

// ld1p is ld1 through the ordinary load path (for the reads that the
// float32 kernels never routed through the read-only cache).
__device__ __forceinline__ float ld1p(const float* p) { return *p; }
__device__ __forceinline__ float ld1p(const bf16* p) { return bf16_bits_f32(*p); }

// st1 stores one value, rounded for bf16.
__device__ __forceinline__ void st1(float* p, float v) { *p = v; }
__device__ __forceinline__ void st1(bf16* p, float v) { *p = f32_bf16_bits(v); }

// A group of G lanes owns a (node, head) pair; each lane keeps VPL float4
// of the head's channels in registers (C == 4*G*VPL), lane l holding
// channels (i*G + l)*4 .. +3 for i < VPL.

// group_mask names the lanes of the calling lane's group of G.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
	return G == 32 ? FULL : (((1u << G) - 1u) << ((threadIdx.x % WARP) / G * G));
}

// group_sum adds v over the G lanes of a group. Groups of one warp may run
// different edge counts, so the shuffle names only the group's own lanes.
template <int G>
__device__ __forceinline__ float group_sum(float v) {
	const unsigned mask = group_mask<G>();
#pragma unroll
	for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, G);
	return v;
}

// group_sum2 and group_sum4 are group_sum over two and four values at once,
// interleaved so that their shuffles overlap.
template <int G>
__device__ __forceinline__ void group_sum2(float& a, float& b) {
	const unsigned mask = group_mask<G>();
#pragma unroll
	for (int o = G / 2; o > 0; o >>= 1) {
		a += __shfl_xor_sync(mask, a, o, G);
		b += __shfl_xor_sync(mask, b, o, G);
	}
}

template <int G>
__device__ __forceinline__ void group_sum4(float& a, float& b, float& c, float& d) {
	const unsigned mask = group_mask<G>();
#pragma unroll
	for (int o = G / 2; o > 0; o >>= 1) {
		a += __shfl_xor_sync(mask, a, o, G);
		b += __shfl_xor_sync(mask, b, o, G);
		c += __shfl_xor_sync(mask, c, o, G);
		d += __shfl_xor_sync(mask, d, o, G);
	}
}

// score4 is one lane's share of a GATv2 score over a float4 of channels:
// Σ a ⊙ leaky_relu(q + r).
__device__ __forceinline__ float score4(float4 a, float4 q, float4 r, float slope) {
	return a.x * lrelu(q.x + r.x, slope) + a.y * lrelu(q.y + r.y, slope) + a.z * lrelu(q.z + r.z, slope) +
	       a.w * lrelu(q.w + r.w, slope);
}

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

// lane_row loads a lane's share of a C-wide row: float4 i is columns
// (i*G + lane)*4 .. +3, the layout every GATv2 kernel keeps in registers.
// With MASK the row is C < 4*G*VPL wide (C a multiple of 4): the float4s
// past it read as zeros, which add nothing to a score, a dot product or a
// sum, so the kernels need no other masking in registers.
//
// The wide layout W (the _bf16w kernels: bfloat16, exact widths, VPL
// even) pairs a lane's float4s: 2j and 2j+1 are columns (j*G + lane)*8 ..
// +7, one 16-byte load of 8 bfloat16 instead of two of 4 (chan4 names a
// float4's first column in either layout). A kernel reads all its rows,
// float32 ones (GATv2's att) too, in its layout; the scores, dot products
// and sums do not depend on it.
template <int G, bool W>
__device__ __forceinline__ int chan4(int i, int lane) {
	return W ? ((i >> 1) * G + lane) * 8 + (i & 1) * 4 : (i * G + lane) * 4;
}

template <int G, int VPL, bool MASK, bool W = false, typename T>
__device__ __forceinline__ void lane_row(float4 (&x)[VPL], const T* __restrict__ row, int lane, int C) {
	static_assert(!W || (!MASK && VPL % 2 == 0), "the wide layout takes exact widths and pairs of float4s");
	if (W) {
#pragma unroll
		for (int j = 0; j < VPL / 2; j++) ldg8(row, j * G + lane, x[2 * j], x[2 * j + 1]);
	} else {
#pragma unroll
		for (int i = 0; i < VPL; i++) {
			if (!MASK || (i * G + lane) * 4 < C) {
				x[i] = ldg4(row, i * G + lane);
			} else {
				x[i] = make_float4(0.f, 0.f, 0.f, 0.f);
			}
		}
	}
}

// lane_store writes a lane's share of a row (with MASK, of its first C
// columns).
template <int G, int VPL, bool MASK, bool W = false, typename T>
__device__ __forceinline__ void lane_store(T* row, const float4 (&x)[VPL], int lane, int C) {
	if (W) {
#pragma unroll
		for (int j = 0; j < VPL / 2; j++) st8(row + (j * G + lane) * 8, x[2 * j], x[2 * j + 1]);
	} else {
#pragma unroll
		for (int i = 0; i < VPL; i++) {
			if (!MASK || (i * G + lane) * 4 < C) st4(row + (i * G + lane) * 4, x[i]);
		}
	}
}

// st1_item is lane_store_item for one value (GAT's lanes store single
// channels).
template <typename T>
__device__ __forceinline__ void st1_item(T* base, bool tiles, long long off, float v) {
	if (sizeof(T) == sizeof(float) || tiles) {
		reinterpret_cast<float*>(base)[off] = v;
	} else {
		st1(base + off, v);
	}
}

// lane_store_item writes a lane's share of work item item's output row at
// base + off (off in values). The pass over the rows stores T; the pass
// over the heavy rows' edge tiles (tiles: ATTN_ROWS' heavy != nullptr)
// stores float32 partial results into scratch, which attn_merge_softmax
// and attn_merge_sum combine in float32 before the one rounding: in a
// _bf16 kernel base then points to float32 scratch.
template <int G, int VPL, bool MASK, bool W = false, typename T>
__device__ __forceinline__ void lane_store_item(T* base, bool tiles, long long off, const float4 (&x)[VPL], int lane, int C) {
	if (sizeof(T) == sizeof(float) || tiles) {
		lane_store<G, VPL, MASK, W>(reinterpret_cast<float*>(base) + off, x, lane, C);
	} else {
		lane_store<G, VPL, MASK, W>(base + off, x, lane, C);
	}
}

// lane_score and lane_dot are a lane's shares of a GATv2 score and of a
// dot product over its VPL float4s.
template <int VPL>
__device__ __forceinline__ float lane_score(const float4 (&a)[VPL], const float4 (&q)[VPL], const float4 (&r)[VPL], float slope) {
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < VPL; i++) s += score4(a[i], q[i], r[i], slope);
	return s;
}

template <int VPL>
__device__ __forceinline__ float lane_dot(const float4 (&x)[VPL], const float4 (&y)[VPL]) {
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < VPL; i++) s += dot4(x[i], y[i]);
	return s;
}

template <int VPL>
__device__ __forceinline__ void zero4(float4 (&x)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) x[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}

// edge_pairs hands a loop over a row's edges, two a step, their source
// indices. With pf (every kernel's last argument, tune.AttnPrefetch) it
// loads the next step's two indices while the current step's rows are
// gathered and reduced, so that a step waits for one global load (the
// rows) instead of two in a chain (the indices, then the rows); without
// pf each step loads its own. pf is the same for every lane of a launch.
struct edge_pairs {
	const int* __restrict__ idx;
	int end, n0, n1;
	bool pf;

	__device__ __forceinline__ edge_pairs(const int* __restrict__ idx_, int beg, int end_, bool pf_)
	    : idx(idx_), end(end_), n0(0), n1(0), pf(pf_) {
		if (pf) {
			n0 = beg < end ? __ldg(&idx[beg]) : 0;
			n1 = beg + 1 < end ? __ldg(&idx[beg + 1]) : 0;
		}
	}

	// pair returns the sources of edges e and e + 1 (e + 1 < end).
	__device__ __forceinline__ void pair(int e, int& u0, int& u1) {
		if (!pf) {
			u0 = __ldg(&idx[e]);
			u1 = __ldg(&idx[e + 1]);
			return;
		}
		u0 = n0;
		u1 = n1;
		n0 = e + 2 < end ? __ldg(&idx[e + 2]) : 0;
		n1 = e + 3 < end ? __ldg(&idx[e + 3]) : 0;
	}

	// last returns the source of the odd last edge e (e == end - 1), after
	// the pairs.
	__device__ __forceinline__ int last(int e) { return pf ? n0 : __ldg(&idx[e]); }
};

// edge_next is edge_pairs for a loop over a row's edges one a step (the
// GATv2 source passes, the Transformer's backward passes): with pf, at(e)
// returns idx[e], loaded a step before, and loads idx[e + 1].
struct edge_next {
	const int* __restrict__ idx;
	int end, nx;
	bool pf;

	__device__ __forceinline__ edge_next(const int* __restrict__ idx_, int beg, int end_, bool pf_)
	    : idx(idx_), end(end_), nx(0), pf(pf_) {
		if (pf && beg < end) nx = __ldg(&idx[beg]);
	}

	__device__ __forceinline__ int at(int e) {
		if (!pf) return __ldg(&idx[e]);
		const int x = nx;
		nx = e + 1 < end ? __ldg(&idx[e + 1]) : 0;
		return x;
	}
};

// ---------------------------------------------------------------------------
// The online softmax. A pass over a row's edges keeps the running maximum m
// of the scores seen and the sum l of exp(s - m); when a score raises the
// maximum, what was summed so far (l and the weighted accumulator) is
// rescaled by exp(m_old - m_new). FAST picks __expf (the GATv2 and
// Transformer kernels) or expf (GAT's).
// ---------------------------------------------------------------------------

template <bool FAST>
__device__ __forceinline__ float osm_exp(float x) { return FAST ? __expf(x) : expf(x); }

// osm_step takes one score s into (m, l): it returns the edge's weight
// exp(s - m) at the new maximum and sets sc, the factor the accumulator is
// rescaled by before the weighted row is added.
template <bool FAST>
__device__ __forceinline__ float osm_step(float& m, float& l, float s, float& sc) {
	float mn = fmaxf(m, s);
	sc = osm_exp<FAST>(m - mn);
	float p = osm_exp<FAST>(s - mn);
	l = l * sc + p;
	m = mn;
	return p;
}

// osm_step2 takes two scores at once (two edges a step).
template <bool FAST>
__device__ __forceinline__ void osm_step2(float& m, float& l, float s0, float s1, float& sc, float& p0, float& p1) {
	float mn = fmaxf(m, fmaxf(s0, s1));
	sc = osm_exp<FAST>(m - mn);
	p0 = osm_exp<FAST>(s0 - mn);
	p1 = osm_exp<FAST>(s1 - mn);
	l = l * sc + p0 + p1;
	m = mn;
}

// lane_rescale_add is the accumulator's side of a step: acc = acc*sc + p*x.
template <int VPL>
__device__ __forceinline__ void lane_rescale_add(float4 (&acc)[VPL], float sc, float p, const float4 (&x)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		acc[i].x = acc[i].x * sc + p * x[i].x;
		acc[i].y = acc[i].y * sc + p * x[i].y;
		acc[i].z = acc[i].z * sc + p * x[i].z;
		acc[i].w = acc[i].w * sc + p * x[i].w;
	}
}

// lane_rescale_add2 is lane_rescale_add for two edges: acc*sc + p0*x0 + p1*x1.
template <int VPL>
__device__ __forceinline__ void lane_rescale_add2(float4 (&acc)[VPL], float sc, float p0, const float4 (&x0)[VPL], float p1,
                                                  const float4 (&x1)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		acc[i].x = acc[i].x * sc + p0 * x0[i].x + p1 * x1[i].x;
		acc[i].y = acc[i].y * sc + p0 * x0[i].y + p1 * x1[i].y;
		acc[i].z = acc[i].z * sc + p0 * x0[i].z + p1 * x1[i].z;
		acc[i].w = acc[i].w * sc + p0 * x0[i].w + p1 * x1[i].w;
	}
}

// osm_inv is the factor that normalises the accumulator: 1/l, or 0 for a
// row without edges (whose output is zero).
__device__ __forceinline__ float osm_inv(float l) { return l > 0.f ? 1.f / l : 0.f; }

// osm_lse is the row's log-sum-exp m + log l (0 for a row without edges),
// all that the backward passes keep of the softmax.
template <bool FAST>
__device__ __forceinline__ float osm_lse(float m, float l) {
	return l > 0.f ? m + (FAST ? __logf(l) : logf(l)) : 0.f;
}

// lane_scale multiplies a lane's share of a row by f.
template <int VPL>
__device__ __forceinline__ void lane_scale(float4 (&x)[VPL], float f) {
#pragma unroll
	for (int i = 0; i < VPL; i++) x[i] = make_float4(x[i].x * f, x[i].y * f, x[i].z * f, x[i].w * f);
}

// ---------------------------------------------------------------------------
// Heavy rows. On a power-law graph one row may hold 15k edges, which one
// lane group would walk alone while the rest of the GPU waits. The degree
// statistics taken at upload (gnnlib/cuda's Graph) list the rows of more
// than `tile` edges and the index of each one's first edge tile of `tile`
// edges; an attention pass then runs twice: once over the rows, heavy
// ones skipped, and once over the edge tiles, each writing its partial
// result (softmax state or sum) to scratch, merged per heavy row by
// attn_merge_softmax or attn_merge_sum. Every attention kernel takes the
// work-item arguments ATTN_ROWS.
// ---------------------------------------------------------------------------

// ATTN_ROWS: heavy == nullptr runs over the rows, skipping those of more
// than tile edges (tile INT_MAX: none); otherwise items are the nheavy
// heavy rows' edge tiles (tiles[j] is heavy row j's first).
#define ATTN_ROWS const int *__restrict__ heavy, const int *__restrict__ tiles, int nheavy, int tile

// attn_row resolves work item s to the row v whose inputs it reads and the
// edges beg..end it walks. Its outputs go to index s: the row itself, or
// the tile's scratch row.
__device__ __forceinline__ void attn_row(const int* __restrict__ indptr, ATTN_ROWS, long long s, long long& v, int& beg,
                                         int& end) {
	if (heavy == nullptr) {
		v = s;
		beg = indptr[s];
		end = indptr[s + 1];
		if (end - beg > tile) end = beg;  // a heavy row: its tiles are items of the other launch
		return;
	}
	int lo = 0, hi = nheavy - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tiles[mid] <= s) lo = mid; else hi = mid - 1;
	}
	v = heavy[lo];
	beg = indptr[v] + (int)(s - tiles[lo]) * tile;
	end = min(beg + tile, indptr[v + 1]);
}

// ---------------------------------------------------------------------------
// The (row, head) loop. Every attention kernel walks the n·H (row, head)
// work items in a grid-stride loop of lane groups of G lanes (a warp for
// GAT's): group grp0 takes items grp0, grp0 + ngrp, ... Item p is work item
// p / H of ATTN_ROWS (a row, or a heavy row's edge tile: attn_row) and
// head p % H.
// ---------------------------------------------------------------------------

// attn_work is work item p: item, the index its outputs go to; v, the row
// whose inputs it reads; its edges beg..end and head h. live is false for
// a p past the last item (attn_groups::at), where the others are 0.
struct attn_work {
	long long p, item, v;
	int h, beg, end;
	bool live;
};

template <int G>
struct attn_groups {
	long long grp0, ngrp, total;
	// iters bounds the loop that every lane of a warp runs the same number
	// of times, for the shuffles: it iterates to the warp's bound and masks
	// the work (attn_work::live).
	long long iters;
	int H;

	__device__ __forceinline__ attn_groups(long long n, int H_)
	    : grp0(((long long)blockIdx.x * blockDim.x + threadIdx.x) / G),
	      ngrp((long long)gridDim.x * blockDim.x / G),
	      total(n * H_),
	      iters((total + ngrp - 1) / ngrp),
	      H(H_) {}

	// at is iteration it of the loop to iters: item grp0 + it*ngrp.
	__device__ __forceinline__ attn_work at(long long it, const int* __restrict__ indptr, ATTN_ROWS) const {
		const long long p = grp0 + it * ngrp;
		const bool live = p < total;
		attn_work w{p, live ? p / H : 0, 0, (int)(live ? p % H : 0), 0, 0, live};
		if (live) attn_row(indptr, heavy, tiles, nheavy, tile, w.item, w.v, w.beg, w.end);
		return w;
	}

	// item is work item p < total, for a loop over p from grp0 by ngrp.
	__device__ __forceinline__ attn_work item(long long p, const int* __restrict__ indptr, ATTN_ROWS) const {
		attn_work w{p, p / H, 0, (int)(p % H), 0, 0, true};
		attn_row(indptr, heavy, tiles, nheavy, tile, w.item, w.v, w.beg, w.end);
		return w;
	}
};

// attn_tiles_of returns heavy row j's tiles, first..last (exclusive).
__device__ __forceinline__ void attn_tiles_of(const int* __restrict__ tiles, int nheavy, int ntiles, int j, int& first, int& last) {
	first = tiles[j];
	last = j + 1 < nheavy ? tiles[j + 1] : ntiles;
}

// ATTN_SHAPES instantiates an attention family's kernels for every group
// shape (G lanes a group, VPL float4s a lane; C = 4*G*VPL channels a head:
// 8 (2,1), 16 (4,1), 32 (8,1), 64 (16,1), 128 (32,1), 256 (32,2), 512
// (32,4), 1024 (32,8)) through INST(SFX, T, G, VPL, MASK, W): the exact
// kernels (_G_VPL) and the masked ones (_m_G_VPL, lanes past the head's
// width load zeros), each in float and in bfloat16 (_bf16), and for VPL
// even the bfloat16 kernels of the wide layout (_bf16w, 8 channels a
// lane). (32,3) has masked kernels only (up to 384 channels); (32,8) has
// no bfloat16 masked ones, since 513..1023 channels run padded to 1024.
#define ATTN_SHAPE(INST, G, VPL)                              \
	INST(_##G##_##VPL, float, G, VPL, false, false)       \
	INST(_m_##G##_##VPL, float, G, VPL, true, false)      \
	INST(_##G##_##VPL##_bf16, bf16, G, VPL, false, false) \
	INST(_m_##G##_##VPL##_bf16, bf16, G, VPL, true, false)
#define ATTN_SHAPE_W(INST, G, VPL) \
	ATTN_SHAPE(INST, G, VPL)       \
	INST(_##G##_##VPL##_bf16w, bf16, G, VPL, false, true)
#define ATTN_SHAPES(INST)                             \
	ATTN_SHAPE(INST, 2, 1)                        \
	ATTN_SHAPE(INST, 4, 1)                        \
	ATTN_SHAPE(INST, 8, 1)                        \
	ATTN_SHAPE(INST, 16, 1)                       \
	ATTN_SHAPE(INST, 32, 1)                       \
	ATTN_SHAPE_W(INST, 32, 2)                     \
	INST(_m_32_3, float, 32, 3, true, false)      \
	INST(_m_32_3_bf16, bf16, 32, 3, true, false)  \
	ATTN_SHAPE_W(INST, 32, 4)                     \
	INST(_32_8, float, 32, 8, false, false)       \
	INST(_m_32_8, float, 32, 8, true, false)      \
	INST(_32_8_bf16, bf16, 32, 8, false, false)   \
	INST(_32_8_bf16w, bf16, 32, 8, false, true)
