// ---------------------------------------------------------------------------
// gatv2.cu: the fused GATv2 attention.
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "attn.cuh"
#include "gatv2.cuh"

// Fused GATv2 (Brody et al.), H heads of C channels. x_l (messages, source
// side) and x_r (target side) are N x HC matrices given as a pointer and a
// row stride each, so that they may be the two halves of one x·[W_l W_r]
// product (stride 2HC) or two separate tensors (stride HC). For an edge u->v
// and head h:
//   s = sum_c a[h,c] * leaky_relu(xl[u,h,c] + xr[v,h,c]),
//   alpha = softmax over v's in-edges, out[v,h,:] = sum_u alpha * xl[u,h,:].
// One group of G lanes owns a (node, head) pair; each lane keeps VPL float4
// of the channels in registers (C == 4*G*VPL), lane l holding channels
// (i*G + l)*4 .. +3 for i < VPL. The forward writes no per-edge tensor.

// The pointer arguments every GATv2 kernel takes for x_l and x_r.
#define GATV2_X(T) const T *__restrict__ xl, long long ldl, const T *__restrict__ xr, long long ldr

// gatv2_signs stores the signs of z = q + r of edge-and-head t, one bit a
// channel: four bits a lane and float4, an even lane joining its odd
// neighbour's into one byte, byte (i*G + lane)/2 of the edge's CP/8
// (CP = 4*G*VPL, masked channels included), low nibble from the even lane.
template <int G, int VPL>
__device__ __forceinline__ void gatv2_signs(const float4 (&q)[VPL], const float4 (&r)[VPL], long long t, int lane,
                                            unsigned char* __restrict__ esign) {
	const int CP = 4 * G * VPL;
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		unsigned nib = (q[i].x + r[i].x > 0.f) | (q[i].y + r[i].y > 0.f) << 1 | (q[i].z + r[i].z > 0.f) << 2 |
		               (q[i].w + r[i].w > 0.f) << 3;
		unsigned hi = __shfl_down_sync(group_mask<G>(), nib, 1, G);
		if ((lane & 1) == 0) esign[t * (CP / 8) + (i * G + lane) / 2] = (unsigned char)(nib | hi << 4);
	}
}

// gatv2_ballots gives every lane of a warp (G == 32; the _bal kernels,
// tune.GATv2EdgeVariant "bal") the same signs as ballot words: word 4i + j
// of the edge's 4·VPL 32-bit words (the same CP/8 bytes as gatv2_signs')
// holds in bit l the sign of channel chan4(i, l) + j. gatv2_ballots_store
// stores them from one lane, words 4i..4i+3 as one 16-byte store, so
// that an edge's bits leave in VPL stores of CP/8 contiguous bytes in all
// (a full 32-byte sector at 256 channels), with no per-lane choice of a
// word (which had cost about ten instructions an edge), instead of VPL
// stores of CP/16 bytes from every other lane, after VPL shuffles.
template <int VPL>
__device__ __forceinline__ void gatv2_ballots(const float4 (&q)[VPL], const float4 (&r)[VPL], uint4 (&w)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		w[i].x = __ballot_sync(FULL, q[i].x + r[i].x > 0.f);
		w[i].y = __ballot_sync(FULL, q[i].y + r[i].y > 0.f);
		w[i].z = __ballot_sync(FULL, q[i].z + r[i].z > 0.f);
		w[i].w = __ballot_sync(FULL, q[i].w + r[i].w > 0.f);
	}
}

template <int VPL>
__device__ __forceinline__ void gatv2_ballots_store(const uint4 (&w)[VPL], long long t, unsigned char* __restrict__ esign) {
	uint4* dst = reinterpret_cast<uint4*>(esign) + t * VPL;
#pragma unroll
	for (int i = 0; i < VPL; i++) dst[i] = w[i];
}

// With SAVE (gatv2_fwde, tune.GATv2EdgeCoef) the forward pass also
// stores each edge-and-head's score s at es[t] and the signs of z at
// esign (gatv2_signs, or gatv2_ballots with BAL), t = edge*H + head in
// CSR order: all that the edge-coefficient backward passes
// (gatv2_bwd_srce, gatv2_bwd_dste) read of an edge besides dOut's rows.
template <typename T, int G, int VPL, bool MASK, bool W, bool SAVE = false, bool BAL = false>
__device__ void gatv2_fwd_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS, GATV2_X(T),
                               const float* __restrict__ att, T* __restrict__ out, float* __restrict__ lse,
                               float* __restrict__ es, unsigned char* __restrict__ esign,
                               int n, int H, float slope, float pdrop, unsigned long long seed, int cw, int pf) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, v, h, beg, end, live] = g.at(it, indptr, heavy, tiles, nheavy, tile);
		float4 a[VPL], r[VPL], acc[VPL];
		lane_row<G, VPL, MASK, W>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(r, xr + v * ldr + h * C, lane, C);
		zero4(acc);
		float m = -INFINITY, l = 0.f;
		// Two edges a step, so that two gathers and their shuffles are in
		// flight at once; an odd last edge goes alone.
		edge_pairs ep(indices, beg, end, pf != 0);
		int e = beg;
		for (; e + 1 < end; e += 2) {
			float4 q0[VPL], q1[VPL];
			int u0, u1;
			ep.pair(e, u0, u1);
			lane_row<G, VPL, MASK, W>(q0, xl + (long long)u0 * ldl + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(q1, xl + (long long)u1 * ldl + h * C, lane, C);
			const long long t0 = (long long)e * H + h, t1 = t0 + H;
			float s0, s1;
			if constexpr (SAVE && BAL) {
				static_assert(G == 32, "ballot sign words need a warp a group");
				// Each edge's sign words right after its score, whose
				// leaky ReLU compares the same z with 0: after the group
				// sums the compiler kept a pair's 16 comparisons as bits
				// of a register (two LOP3 a bit to pack, one to unpack:
				// about 50 of the bfloat16 loop's 410 instructions a pair,
				// sm_90). One edge's words at a time (both edges' at once
				// spill at sm_90).
				uint4 w[VPL];
				s0 = lane_score(a, q0, r, slope);
				gatv2_ballots(q0, r, w);
				if (lane == 0) gatv2_ballots_store(w, t0, esign);
				s1 = lane_score(a, q1, r, slope);
				gatv2_ballots(q1, r, w);
				if (lane == 0) gatv2_ballots_store(w, t1, esign);
			} else {
				s0 = lane_score(a, q0, r, slope), s1 = lane_score(a, q1, r, slope);
			}
			group_sum2<G>(s0, s1);
			if (SAVE) {
				if (lane == 0) {
					es[t0] = s0;
					es[t1] = s1;
				}
				if constexpr (!BAL) {
					gatv2_signs<G, VPL>(q0, r, t0, lane, esign);
					gatv2_signs<G, VPL>(q1, r, t1, lane, esign);
				}
			}
			// Online softmax: rescale the running sum when the max moves.
			float scale, p0, p1;
			osm_step2<true>(m, l, s0, s1, scale, p0, p1);
			// Attention dropout scales an edge's weight in the output, not
			// in the softmax's sum.
			p0 *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
			p1 *= drop_keep(pdrop, keep, seed, (long long)(e + 1) * H + h);
			lane_rescale_add2(acc, scale, p0, q0, p1, q1);
		}
		if (e < end) {
			int u = ep.last(e);
			float4 q[VPL];
			lane_row<G, VPL, MASK, W>(q, xl + (long long)u * ldl + h * C, lane, C);
			float s = group_sum<G>(lane_score(a, q, r, slope));
			if (SAVE) {
				const long long t = (long long)e * H + h;
				if constexpr (BAL) {
					uint4 w[VPL];
					gatv2_ballots(q, r, w);
					if (lane == 0) {
						es[t] = s;
						gatv2_ballots_store(w, t, esign);
					}
				} else {
					if (lane == 0) es[t] = s;
					gatv2_signs<G, VPL>(q, r, t, lane, esign);
				}
			}
			float scale, pe = osm_step<true>(m, l, s, scale);
			pe *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
			lane_rescale_add(acc, scale, pe, q);
		}
		if (!live) continue;
		lane_scale(acc, osm_inv(l));
		lane_store_item<G, VPL, MASK, W>(out, heavy != nullptr, item * HC + h * C, acc, lane, C);
		if (lane == 0) lse[p] = osm_lse<true>(m, l);
	}
}

// gatv2_score_lp is lane_score in two sums with no per-channel select:
// Σ a ⊙ lrelu(z) = slope·Σ a ⊙ z + (1 − slope)·Σ a ⊙ max(z, 0), exact
// for any slope (their absolute terms add up to lane_score's for slope
// in [0, 1]). In the destination pass it keeps the comparisons z > 0
// out of the score, where the compiler otherwise held them in registers
// across the group sums for gatv2_dst_edge's lrelu' (P2R and ISETP: 45
// of the 341 instructions of a pair of edges, bfloat16, sm_90).
template <int VPL>
__device__ __forceinline__ float gatv2_score_lp(const float4 (&a)[VPL], const float4 (&q)[VPL], const float4 (&r)[VPL], float slope) {
	float lin = 0.f, pos = 0.f;
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		const float zx = q[i].x + r[i].x, zy = q[i].y + r[i].y, zz = q[i].z + r[i].z, zw = q[i].w + r[i].w;
		lin += a[i].x * zx + a[i].y * zy + a[i].z * zz + a[i].w * zw;
		pos += a[i].x * fmaxf(zx, 0.f) + a[i].y * fmaxf(zy, 0.f) + a[i].z * fmaxf(zz, 0.f) + a[i].w * fmaxf(zw, 0.f);
	}
	return slope * lin + (1.f - slope) * pos;
}

// gatv2_dst_edge adds one edge's share to the destination pass's running
// dxr (dr) and the lane's att gradient (da) and, with SAVE, stores its output weight
// alpha (times the dropout factor) and ds at eas[t] and its sign bits at
// esign[t*C/8 ...] (t = edge*H + head).
//
// With LP (the (32,2) kernels: GATV2_DST) it takes w = ds·lrelu'(z), one
// select a channel, and adds a·w and z·w (z·w is ds·lrelu(z)): two
// products a channel fewer than ds·a·lrelu'(z) and ds·lrelu(z), the same
// sums up to rounding.
template <int G, int VPL, bool SAVE, bool LP = false>
__device__ __forceinline__ void gatv2_dst_edge(const float4 (&q)[VPL], const float4 (&r)[VPL], const float4 (&a)[VPL],
                                               float4 (&dr)[VPL], float4 (&da)[VPL], float alpha, float ds,
                                               long long t, int lane, float slope, float2* __restrict__ eas,
                                               unsigned char* __restrict__ esign) {
	const int CP = 4 * G * VPL;  // sign bytes per edge and head: CP/8, masked channels included
	if (SAVE && lane == 0) eas[t] = make_float2(alpha, ds);
	const float dsl = ds * slope;
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		float zx = q[i].x + r[i].x, zy = q[i].y + r[i].y, zz = q[i].z + r[i].z, zw = q[i].w + r[i].w;
		if (LP) {
			const float wx = zx > 0.f ? ds : dsl, wy = zy > 0.f ? ds : dsl, wz = zz > 0.f ? ds : dsl, ww = zw > 0.f ? ds : dsl;
			dr[i].x += a[i].x * wx;
			dr[i].y += a[i].y * wy;
			dr[i].z += a[i].z * wz;
			dr[i].w += a[i].w * ww;
			da[i].x += zx * wx;
			da[i].y += zy * wy;
			da[i].z += zz * wz;
			da[i].w += zw * ww;
		} else {
			dr[i].x += ds * a[i].x * dlrelu(zx, slope);
			dr[i].y += ds * a[i].y * dlrelu(zy, slope);
			dr[i].z += ds * a[i].z * dlrelu(zz, slope);
			dr[i].w += ds * a[i].w * dlrelu(zw, slope);
			da[i].x += ds * lrelu(zx, slope);
			da[i].y += ds * lrelu(zy, slope);
			da[i].z += ds * lrelu(zz, slope);
			da[i].w += ds * lrelu(zw, slope);
		}
		if (SAVE) {
			// Four sign bits per lane; an even lane joins its odd
			// neighbour's into one byte: byte (i*G + lane)/2 of the
			// edge's C/8, low nibble from the even lane.
			unsigned nib = (zx > 0.f) | (zy > 0.f) << 1 | (zz > 0.f) << 2 | (zw > 0.f) << 3;
			unsigned hi = __shfl_down_sync(group_mask<G>(), nib, 1, G);
			if ((lane & 1) == 0) esign[t * (CP / 8) + (i * G + lane) / 2] = (unsigned char)(nib | hi << 4);
		}
	}
}

// gatv2_out_row loads a lane's share of the attention output's row (head
// h) for D = dOut·out. With ub null, out is the output itself. Otherwise
// out holds the activation over it, y = dropout(relu(o + ub)) (dropout
// probability up; with ur false and up 0, y = o + ub), and o is rebuilt
// from y as unbias_act does: y·(1 − up) − ub where y is not zero and 0
// where it is (relu or dropout), y − ub without either. The caller's dOut
// is the activation's gradient passed back through it, zero wherever y
// is, so the zeros change no D, and no rebuilt copy of the output is
// stored (GATv2.OutAct in gatv2.go).
template <int G, int VPL, bool MASK, bool W, typename T>
__device__ __forceinline__ void gatv2_out_row(float4 (&o)[VPL], const T* __restrict__ out, const float* __restrict__ ub,
                                              float up, int ur, int h, int lane, int C) {
	lane_row<G, VPL, MASK, W>(o, out, lane, C);
	if (ub == nullptr) return;
	float4 b[VPL];
	lane_row<G, VPL, MASK, W>(b, ub + h * C, lane, C);
	const bool gate = ur || up > 0.f;
	const float k = 1.f - up;
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		o[i].x = gate ? (o[i].x != 0.f ? o[i].x * k - b[i].x : 0.f) : o[i].x - b[i].x;
		o[i].y = gate ? (o[i].y != 0.f ? o[i].y * k - b[i].y : 0.f) : o[i].y - b[i].y;
		o[i].z = gate ? (o[i].z != 0.f ? o[i].z * k - b[i].z : 0.f) : o[i].z - b[i].z;
		o[i].w = gate ? (o[i].w != 0.f ? o[i].w * k - b[i].w : 0.f) : o[i].w - b[i].w;
	}
}

// gatv2_bwd_dst_body: for each (v,h), over v's in-edges, recompute
// alpha = exp(s - lse[v,h]), with D = dout[v,h]·out[v,h]
//   ds   = alpha * (dout[v,h]·xl[u,h] - D)
//   dxr[v,h] = sum_u ds * a ⊙ lrelu'(z),  da += ds * lrelu(z).
// da is summed per lane in registers, edge by edge, over the whole
// grid-stride loop and added to datt once per lane at the end (when a
// lane meets one head only; otherwise after each item). One array for it,
// not a per-item one beside it: at (32,2) the pass held 133 registers a
// thread, one block of 256 threads an SM at sm_90. What the source side then needs is either stored per
// edge (SAVE: (alpha, ds) and the signs of z, one bit per channel, in CSR
// order, so that the writes are contiguous and the source pass gathers
// nothing but dout beside them) or, without SAVE, D per (v,h) in dd, from
// which the source pass recomputes everything.
template <typename T, int G, int VPL, bool SAVE, bool MASK, bool W, bool LP = false>
__device__ void gatv2_bwd_dst_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS, GATV2_X(T),
                                   const float* __restrict__ att,
                                   const T* __restrict__ out, const float* __restrict__ lse,
                                   const T* __restrict__ dout, T* __restrict__ dxr, long long ldd,
                                   float* __restrict__ dd, float2* __restrict__ eas,
                                   unsigned char* __restrict__ esign, float* __restrict__ datt, int n, int H,
                                   float slope, float pdrop, unsigned long long seed, int cw, int pf,
                                   const float* __restrict__ ub, float up, int ur, int red) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	// With H > 1 a lane meets several heads; keep da per head only when the
	// head is fixed for the lane (ngrp % H == 0), else fall back to atomics.
	const bool fixedHead = (g.ngrp % H) == 0;
	float4 da[VPL];
	zero4(da);
	int hfix = g.grp0 % H;
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, v, h, beg, end, live] = g.at(it, indptr, heavy, tiles, nheavy, tile);
		float4 a[VPL], r[VPL], go[VPL], o[VPL], dr[VPL];
		lane_row<G, VPL, MASK, W>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(r, xr + v * ldr + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(go, dout + v * HC + h * C, lane, C);
		gatv2_out_row<G, VPL, MASK, W>(o, out + v * HC + h * C, ub, up, ur, h, lane, C);
		zero4(dr);
		float D = group_sum<G>(lane_dot(go, o));
		float L = live ? lse[v * H + h] : 0.f;
		// Two edges a step, as in the forward pass.
		edge_pairs ep(indices, beg, end, pf != 0);
		int e = beg;
		for (; e + 1 < end; e += 2) {
			int u0, u1;
			ep.pair(e, u0, u1);
			float4 q0[VPL], q1[VPL];
			lane_row<G, VPL, MASK, W>(q0, xl + (long long)u0 * ldl + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(q1, xl + (long long)u1 * ldl + h * C, lane, C);
			float s0 = LP ? gatv2_score_lp(a, q0, r, slope) : lane_score(a, q0, r, slope);
			float s1 = LP ? gatv2_score_lp(a, q1, r, slope) : lane_score(a, q1, r, slope);
			float g0 = lane_dot(go, q0), g1 = lane_dot(go, q1);
			group_sum4<G>(s0, s1, g0, g1);
			// With attention dropout the output weighs q by alpha·k: dalpha
			// = k·(dout·q), and D = dout·out is still Σ alpha·dalpha.
			long long t0 = (long long)e * H + h, t1 = (long long)(e + 1) * H + h;
			float k0 = drop_keep(pdrop, keep, seed, t0), k1 = drop_keep(pdrop, keep, seed, t1);
			float al0 = __expf(s0 - L), al1 = __expf(s1 - L);
			gatv2_dst_edge<G, VPL, SAVE, LP>(q0, r, a, dr, da, al0 * k0, al0 * (k0 * g0 - D), t0, lane, slope, eas, esign);
			gatv2_dst_edge<G, VPL, SAVE, LP>(q1, r, a, dr, da, al1 * k1, al1 * (k1 * g1 - D), t1, lane, slope, eas, esign);
		}
		if (e < end) {
			int u = ep.last(e);
			float4 q[VPL];
			lane_row<G, VPL, MASK, W>(q, xl + (long long)u * ldl + h * C, lane, C);
			float s = LP ? gatv2_score_lp(a, q, r, slope) : lane_score(a, q, r, slope), dalpha = lane_dot(go, q);
			group_sum2<G>(s, dalpha);
			long long t = (long long)e * H + h;
			float k = drop_keep(pdrop, keep, seed, t);
			float alpha = __expf(s - L);
			gatv2_dst_edge<G, VPL, SAVE, LP>(q, r, a, dr, da, alpha * k, alpha * (k * dalpha - D), t, lane, slope, eas, esign);
		}
		if (!live) continue;
		lane_store_item<G, VPL, MASK, W>(dxr, heavy != nullptr, item * ldd + h * C, dr, lane, C);
		if (!fixedHead) {
			gatv2_datt_add<G, VPL, MASK, W>(datt, h, C, lane, da);
			zero4(da);
		}
		if (!SAVE && dd != nullptr && lane == 0) dd[p] = D;  // the row pass only
	}
	if (fixedHead) gatv2_datt_flush<G, VPL, MASK, W>(datt, hfix, C, H, lane, da, red);
}

// gatv2_bwd_src_body: for each (u,h), over u's out-edges in the transposed
// CSR (tindices hold the destinations v), recompute alpha and ds and gather
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ lrelu'(z).
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void gatv2_bwd_src_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS, GATV2_X(T),
                                   const float* __restrict__ att, const float* __restrict__ lse,
                                   const float* __restrict__ dd, const T* __restrict__ dout,
                                   T* __restrict__ dxl, long long ldd, int n, int H, float slope, int cw, int pf) {
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, u, h, beg, end, live] = g.at(it, tindptr, heavy, tiles, nheavy, tile);
		float4 a[VPL], q[VPL], dq[VPL];
		lane_row<G, VPL, MASK, W>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(q, xl + u * ldl + h * C, lane, C);
		zero4(dq);
		edge_next en(tindices, beg, end, pf != 0);
		for (int e = beg; e < end; e++) {
			int v = en.at(e);
			float4 r[VPL], go[VPL];
			lane_row<G, VPL, MASK, W>(r, xr + (long long)v * ldr + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(go, dout + (long long)v * HC + h * C, lane, C);
			// lse[v] and D[v] loaded beside the rows, not after the
			// group sum (as in tf_bwd_src_body).
			const long long k = (long long)v * H + h;
			const float L = __ldg(&lse[k]), D = __ldg(&dd[k]);
			float s = lane_score(a, q, r, slope), dalpha = lane_dot(go, q);
			group_sum2<G>(s, dalpha);
			float alpha = __expf(s - L);
			float ds = alpha * (dalpha - D);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				dq[i].x += alpha * go[i].x + ds * a[i].x * dlrelu(q[i].x + r[i].x, slope);
				dq[i].y += alpha * go[i].y + ds * a[i].y * dlrelu(q[i].y + r[i].y, slope);
				dq[i].z += alpha * go[i].z + ds * a[i].z * dlrelu(q[i].z + r[i].z, slope);
				dq[i].w += alpha * go[i].w + ds * a[i].w * dlrelu(q[i].w + r[i].w, slope);
			}
		}
		if (!live) continue;
		lane_store_item<G, VPL, MASK, W>(dxl, heavy != nullptr, item * ldd + h * C, dq, lane, C);
	}
}

// gatv2_bwd_srcs_body: the source pass from the saved edges: for each
// (u,h), over u's out-edges in the transposed CSR (position t is CSR edge
// tperm[t], whose (alpha, ds) and sign bits the SAVE destination pass
// stored),
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ (z > 0 ? 1 : slope),
// gathering dout's rows and the edges' 40 bytes (at C = 256). No lane
// exchanges anything, so groups need not run in step.
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void gatv2_bwd_srcs_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS,
                                    const int* __restrict__ tperm, const float2* __restrict__ eas, const unsigned char* __restrict__ esign,
                                    const float* __restrict__ att, const T* __restrict__ dout,
                                    T* __restrict__ dxl, long long ldd, int n, int H, float slope, int cw, int pf) {
	// The saved sign bits take 4*G*VPL/8 bytes per edge and head (CP/8).
	const int CP = 4 * G * VPL, C = MASK ? cw : CP, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long p = g.grp0; p < g.total; p += g.ngrp) {
		auto [p_, item, u, h, beg, end, live] = g.item(p, tindptr, heavy, tiles, nheavy, tile);
		// a ⊙ lrelu' is a or slope·a per channel: keep both.
		float4 a[VPL], as[VPL], dq[VPL];
		lane_row<G, VPL, MASK, W>(a, att + h * C, lane, C);
#pragma unroll
		for (int i = 0; i < VPL; i++) as[i] = make_float4(slope * a[i].x, slope * a[i].y, slope * a[i].z, slope * a[i].w);
		zero4(dq);
		edge_next ev(tindices, beg, end, pf != 0), et(tperm, beg, end, pf != 0);
		for (int e = beg; e < end; e++) {
			int v = ev.at(e);
			long long t = (long long)et.at(e) * H + h;
			float2 w = __ldg(&eas[t]);
			float4 go[VPL];
			lane_row<G, VPL, MASK, W>(go, dout + (long long)v * HC + h * C, lane, C);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				unsigned b = __ldg(&esign[t * (CP / 8) + (i * G + lane) / 2]) >> ((lane & 1) * 4);
				dq[i].x += w.x * go[i].x + w.y * ((b & 1) ? a[i].x : as[i].x);
				dq[i].y += w.x * go[i].y + w.y * ((b & 2) ? a[i].y : as[i].y);
				dq[i].z += w.x * go[i].z + w.y * ((b & 4) ? a[i].z : as[i].z);
				dq[i].w += w.x * go[i].w + w.y * ((b & 8) ? a[i].w : as[i].w);
			}
		}
		lane_store_item<G, VPL, MASK, W>(dxl, heavy != nullptr, item * ldd + h * C, dq, lane, C);
	}
}

// GATV2_INST instantiates the five GATv2 kernels over features of type T
// for groups of G lanes holding VPL float4s each, under the names
// gatv2_*SFX; with MASK they take heads of cw < 4*G*VPL channels (cw a
// multiple of 4), otherwise exactly 4*G*VPL and ignore cw. With T bf16 the
// features (x_l, x_r, out, dout) and the gradients dxl, dxr are bfloat16
// (float32 scratch in the pass over heavy rows' tiles: lane_store_item);
// att, its gradient, lse, D and the saved edges stay float32.
#define GATV2_INST(SFX, T, G, VPL, MASK, W)                                                                             \
	extern "C" __global__ void gatv2_fwd##SFX(const int* indptr, const int* indices, ATTN_ROWS, GATV2_X(T), const float* att,  \
	                                          T* out, float* lse, int n, int H, float slope, float pdrop,            \
	                                          unsigned long long seed, int cw, int pf) {                             \
		gatv2_fwd_body<T, G, VPL, MASK, W>(indptr, indices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, out, lse, nullptr, nullptr, n, H, slope, pdrop, seed, cw, \
		                                   pf);                                                                   \
	}                                                                                                                \
	GATV2_DST(SFX, , T, G, VPL, MASK, W, , G == 32 && VPL == 2)                                                                        \
	extern "C" __global__ void gatv2_bwd_src##SFX(const int* tindptr, const int* tindices, ATTN_ROWS, GATV2_X(T),              \
	                                              const float* att, const float* lse, const float* dd,              \
	                                              const T* dout, T* dxl, long long ldd, int n, int H,               \
	                                              float slope, int cw, int pf) {                                    \
		gatv2_bwd_src_body<T, G, VPL, MASK, W>(tindptr, tindices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, lse, dd, dout, dxl, ldd, n, H, \
		                                    slope, cw, pf);                                                        \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_srcs##SFX(const int* tindptr, const int* tindices, ATTN_ROWS, const int* tperm,        \
	                                               const float2* eas, const unsigned char* esign, const float* att, \
	                                               const T* dout, T* dxl, long long ldd, int n, int H,              \
	                                               float slope, int cw, int pf) {                                   \
		gatv2_bwd_srcs_body<T, G, VPL, MASK, W>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, eas, esign, att, dout, dxl, ldd, n, H, slope, \
		                                     cw, pf);                                                              \
	}

// GATV2_DST instantiates the two destination passes as
// gatv2_bwd_dst[s]SFX VAR with the attribute BOUNDS and gatv2_bwd_dst_body's
// LP (GATV2_INST's, and the variants below). GATV2_INST takes LP at
// (32,2), 129 to 256 channels a head, where it saves about a tenth of the
// instructions an edge at 128 registers or fewer (gatv2_score_lp); at
// (16,1) it saved 1 of 207 and took 92 registers instead of 80 (2 blocks
// an SM instead of 3).
#define GATV2_DST(SFX, VAR, T, G, VPL, MASK, W, BOUNDS, LP)                                                              \
	extern "C" __global__ void BOUNDS gatv2_bwd_dst##SFX##VAR(const int* indptr, const int* indices, ATTN_ROWS, GATV2_X(T),   \
	                                                          const float* att, const T* out, const float* lse,       \
	                                                          const T* dout, T* dxr, long long ldd, float* dd,        \
	                                                          float* datt, int n, int H, float slope, int cw, int pf, \
	                                                          const float* ub, float up, int ur, int red) {           \
		gatv2_bwd_dst_body<T, G, VPL, false, MASK, W, LP>(indptr, indices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd, \
		                                           dd, nullptr, nullptr, datt, n, H, slope, 0.f, 0, cw, pf, ub, up, ur, red); \
	}                                                                                                                \
	extern "C" __global__ void BOUNDS gatv2_bwd_dsts##SFX##VAR(const int* indptr, const int* indices, ATTN_ROWS, GATV2_X(T),  \
	                                                           const float* att, const T* out, const float* lse,      \
	                                                           const T* dout, T* dxr, long long ldd, float2* eas,     \
	                                                           unsigned char* esign, float* datt, int n, int H,       \
	                                                           float slope, float pdrop, unsigned long long seed, int cw, \
	                                                           int pf, const float* ub, float up, int ur, int red) {  \
		gatv2_bwd_dst_body<T, G, VPL, true, MASK, W, LP>(indptr, indices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd, \
		                                          nullptr, eas, esign, datt, n, H, slope, pdrop, seed, cw, pf, ub, up, ur, red); \
	}

// The group shapes (attn.cuh's ATTN_SHAPES). At (32,8) the destination
// passes use 255 registers and spill about 350 bytes a thread at sm_90:
// slower per channel, still one pass per node.
ATTN_SHAPES(GATV2_INST)

// The variants gnnbench times beside the kernels above (internal/tune's
// GATv2Variant) at the widths it benchmarks, 1x256 (32,2) and 4x64
// (16,1), exact, float32 and bfloat16 in the 8-byte layout: _lbN, both
// destination passes with __launch_bounds__(256, N), at most
// 65536/(256·N) registers a thread (some spilled), so that N blocks of
// 256 threads fit an SM; at (32,2) without LP (with it they spilled 256
// bytes at 3 blocks). LP one edge a step at 3 and 4 blocks an SM (80
// registers, no spills in the loop; 64, 24 of its instructions an edge
// spills) was slower than LP two edges a step at 2 (H100, 2026-12-07).
GATV2_DST(_32_2, _lb3, float, 32, 2, false, false, __launch_bounds__(256, 3), false)
GATV2_DST(_32_2_bf16, _lb3, bf16, 32, 2, false, false, __launch_bounds__(256, 3), false)
GATV2_DST(_16_1, _lb3, float, 16, 1, false, false, __launch_bounds__(256, 3), false)
GATV2_DST(_16_1_bf16, _lb3, bf16, 16, 1, false, false, __launch_bounds__(256, 3), false)
GATV2_DST(_16_1, _lb4, float, 16, 1, false, false, __launch_bounds__(256, 4), false)
GATV2_DST(_16_1_bf16, _lb4, bf16, 16, 1, false, false, __launch_bounds__(256, 4), false)

// ---------------------------------------------------------------------------
// The edge-coefficient backward (tune.GATv2EdgeCoef). The backward needs,
// per edge e = u->v and head, ds = α·(k·dOut[v]·x_l[u] − D[v]) and the
// signs of z = x_l[u] + x_r[v] (m = 1 or slope per channel), in
//   dxl[u] = Σ_e α·k·dOut[v] + a ⊙ Σ_e ds·m,
//   dxr[v] = a ⊙ Σ_e ds·m,
//   datt   = Σ_e ds·m ⊙ z = Σ_u x_l[u] ⊙ Σ_(e from u) ds·m + Σ_v x_r[v] ⊙ Σ_(e into v) ds·m.
// The forward pass saved s and the signs (gatv2_fwde). The pass over
// the transpose (gatv2_bwd_srce) holds x_l[u] and gathers dOut[v], the one
// feature row an edge needs, so it computes ds itself (from s, lse[v] and
// D[v] = dOut[v]·out[v], gatv2_bwd_dd), stores it per edge and writes
// dxl and x_l's share of datt. The pass by destination (gatv2_bwd_dste)
// then gathers no feature row at all: ds and the sign bits of its
// in-edges, contiguous in CSR order, give Σ ds·m, hence dxr and x_r's
// share of datt. The recomputing passes above instead gather x_l in the
// destination pass and x_r beside dOut in the source pass.
// ---------------------------------------------------------------------------

// gatv2_sign_add adds ds·m to w, m read from edge t's sign bits.
template <int G, int VPL, bool BAL = false>
__device__ __forceinline__ void gatv2_sign_add(float4 (&w)[VPL], float ds, float dsl, long long t, int lane,
                                               const unsigned char* __restrict__ esign) {
	gatv2_signs_t<VPL, BAL> sg;
	gatv2_sign_load<G, VPL, BAL>(sg, t, lane, esign);
	gatv2_sign_apply<VPL, BAL>(w, ds, dsl, sg, lane);
}

// gatv2_bwd_dd_body: D[v,h] = dOut[v,h]·out[v,h] for every (v,h), out
// read as gatv2_out_row does.
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void gatv2_bwd_dd_body(const T* __restrict__ out, const T* __restrict__ dout, float* __restrict__ dd, int n, int H, int cw,
                                  const float* __restrict__ ub, float up, int ur) {
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		const long long p = g.grp0 + it * g.ngrp;
		const bool live = p < g.total;
		const long long v = live ? p / H : 0;
		const int h = live ? p % H : 0;
		float4 go[VPL], o[VPL];
		lane_row<G, VPL, MASK, W>(go, dout + v * HC + h * C, lane, C);
		gatv2_out_row<G, VPL, MASK, W>(o, out + v * HC + h * C, ub, up, ur, h, lane, C);
		const float D = group_sum<G>(lane_dot(go, o));
		if (live && lane == 0) dd[p] = D;
	}
}

// gatv2_bwd_srce_body: for each (u,h), over u's out-edges in the
// transposed CSR (position e is CSR edge tperm[e], destination v =
// tindices[e]): g = dOut[v]·x_l[u], α = exp(s − lse[v]), ds = α·(k·g −
// D[v]), stored at dse[t]; dxl[u] = Σ α·k·dOut[v] + a ⊙ w with w = Σ ds·m,
// and datt += x_l[u] ⊙ w. Two edges a step, as in the forward pass, or
// one (PAIR false: fewer registers live). dse may be es: each score is read by its edge's lane group
// before its lane 0 stores the gradient there, and by no other group,
// so es and dse are not restrict.
template <typename T, int G, int VPL, bool MASK, bool W, bool PAIR = true, bool BAL = false>
__device__ void gatv2_bwd_srce_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS,
                                    const int* __restrict__ tperm, const T* __restrict__ xl, long long ldl,
                                    const float* __restrict__ att, const float* __restrict__ lse,
                                    const float* __restrict__ dd, const float* es,
                                    const unsigned char* __restrict__ esign, float* dse,
                                    const T* __restrict__ dout, T* __restrict__ dxl, long long ldd,
                                    float* __restrict__ datt, int n, int H, float slope, float pdrop,
                                    unsigned long long seed, int cw, int pf, int red) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	// da in registers when a lane meets one head (the launch keeps the
	// number of groups a multiple of H), else added after each item.
	const bool fixedHead = (g.ngrp % H) == 0;
	const int hfix = g.grp0 % H;
	float4 da[VPL];
	zero4(da);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, u, h, beg, end, live] = g.at(it, tindptr, heavy, tiles, nheavy, tile);
		float4 q[VPL], dq[VPL], w[VPL];
		lane_row<G, VPL, MASK, W>(q, xl + u * ldl + h * C, lane, C);
		zero4(dq);
		zero4(w);
		edge_pairs ev(tindices, beg, end, pf != 0 && PAIR), et(tperm, beg, end, pf != 0 && PAIR);
		edge_next nv(tindices, beg, end, pf != 0 && !PAIR), nt(tperm, beg, end, pf != 0 && !PAIR);
		int e = beg;
		for (; PAIR && e + 1 < end; e += 2) {
			int v0, v1, e0, e1;
			ev.pair(e, v0, v1);
			et.pair(e, e0, e1);
			float4 go0[VPL], go1[VPL];
			lane_row<G, VPL, MASK, W>(go0, dout + (long long)v0 * HC + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(go1, dout + (long long)v1 * HC + h * C, lane, C);
			const long long t0 = (long long)e0 * H + h, t1 = (long long)e1 * H + h;
			const long long r0 = (long long)v0 * H + h, r1 = (long long)v1 * H + h;
			gatv2_signs_t<VPL, BAL> sg0, sg1;
			gatv2_sign_load<G, VPL, BAL>(sg0, t0, lane, esign);
			gatv2_sign_load<G, VPL, BAL>(sg1, t1, lane, esign);
			const float s0 = es[t0] - __ldg(&lse[r0]), s1 = es[t1] - __ldg(&lse[r1]);
			const float D0 = __ldg(&dd[r0]), D1 = __ldg(&dd[r1]);
			float g0 = lane_dot(go0, q), g1 = lane_dot(go1, q);
			group_sum2<G>(g0, g1);
			const float k0 = drop_keep(pdrop, keep, seed, t0), k1 = drop_keep(pdrop, keep, seed, t1);
			const float al0 = __expf(s0), al1 = __expf(s1);
			const float ds0 = al0 * (k0 * g0 - D0), ds1 = al1 * (k1 * g1 - D1);
			if (lane == 0) {
				dse[t0] = ds0;
				dse[t1] = ds1;
			}
			lane_rescale_add2(dq, 1.f, al0 * k0, go0, al1 * k1, go1);
			gatv2_sign_apply<VPL, BAL>(w, ds0, ds0 * slope, sg0, lane);
			gatv2_sign_apply<VPL, BAL>(w, ds1, ds1 * slope, sg1, lane);
		}
		// One edge e0 into v: the odd last one after the pairs, or each
		// edge.
		auto one = [&, hh = h](int v, int e0) {
			float4 go[VPL];
			lane_row<G, VPL, MASK, W>(go, dout + (long long)v * HC + hh * C, lane, C);
			const long long t = (long long)e0 * H + hh, r = (long long)v * H + hh;
			gatv2_signs_t<VPL, BAL> sg;
			gatv2_sign_load<G, VPL, BAL>(sg, t, lane, esign);
			gatv2_srce_edge<G, VPL, BAL>(go, q, es[t] - __ldg(&lse[r]), __ldg(&dd[r]), t, sg, pdrop, keep, seed, slope,
			                             lane, dse, dq, w);
		};
		if (PAIR) {
			if (e < end) one(ev.last(e), et.last(e));
		} else {
			for (; e < end; e++) {
				const int v = nv.at(e);
				one(v, nt.at(e));
			}
		}
		if (!live) continue;
		gatv2_row_done<T, G, VPL, MASK, W>(att, dxl, heavy != nullptr, item * ldd + h * C, h, C, lane, q, w, dq, da,
		                                       fixedHead, datt);
	}
	if (fixedHead) gatv2_datt_flush<G, VPL, MASK, W>(datt, hfix, C, H, lane, da, red);
}

// gatv2_bwd_dste_body: for each (v,h), over v's in-edges in CSR order, w
// = Σ ds·m from the ds and sign bits the other passes stored; dxr[v] = a
// ⊙ w and datt += x_r[v] ⊙ w. No lane exchanges anything.
template <typename T, int G, int VPL, bool MASK, bool W, bool BAL = false>
__device__ void gatv2_bwd_dste_body(const int* __restrict__ indptr, ATTN_ROWS, const T* __restrict__ xr, long long ldr,
                                    const float* __restrict__ att, const float* __restrict__ dse,
                                    const unsigned char* __restrict__ esign, T* __restrict__ dxr, long long ldd,
                                    float* __restrict__ datt, int n, int H, float slope, int cw, int red) {
	const int C = MASK ? cw : 4 * G * VPL;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	const bool fixedHead = (g.ngrp % H) == 0;
	const int hfix = g.grp0 % H;
	float4 da[VPL];
	zero4(da);
	for (long long p = g.grp0; p < g.total; p += g.ngrp) {
		auto [p_, item, v, h, beg, end, live] = g.item(p, indptr, heavy, tiles, nheavy, tile);
		float4 w[VPL];
		zero4(w);
		if constexpr (BAL) {
			// The ballot words (gatv2_ballots), 32 edges at a time: the
			// warp (the group) loads their score gradients and sign words
			// into shared memory in coalesced loads all in flight at
			// once, then every lane reads each edge's words there (one
			// address for all lanes). The unrolled loop below keeps 4
			// edges' loads in flight, and a products-sized row (51 edges)
			// waited about 13 times for them. Blocks of at most 256
			// threads (8 warps).
			static_assert(G == 32, "ballot sign words need a warp a group");
			__shared__ uint4 bal_sgn[8][32 * VPL];
			__shared__ float bal_ds[8][32];
			uint4* ws = bal_sgn[threadIdx.x / 32];
			float* wd = bal_ds[threadIdx.x / 32];
			const uint4* sg = reinterpret_cast<const uint4*>(esign);
			for (int e0 = beg; e0 < end; e0 += 32) {
				const int m = min(32, end - e0);
				if (lane < m) wd[lane] = __ldg(&dse[(long long)(e0 + lane) * H + h]);
#pragma unroll
				for (int q = lane; q < 32 * VPL; q += 32) {
					if (q < m * VPL) ws[q] = __ldg(sg + ((long long)(e0 + q / VPL) * H + h) * VPL + q % VPL);
				}
				__syncwarp();
				for (int k = 0; k < m; k++) {
					const float ds = wd[k], dsl = ds * slope;
#pragma unroll
					for (int i = 0; i < VPL; i++) {
						const uint4 b = ws[k * VPL + i];
						w[i].x += (b.x >> lane & 1u) ? ds : dsl;
						w[i].y += (b.y >> lane & 1u) ? ds : dsl;
						w[i].z += (b.z >> lane & 1u) ? ds : dsl;
						w[i].w += (b.w >> lane & 1u) ? ds : dsl;
					}
				}
				__syncwarp();
			}
		} else {
#pragma unroll 4
			for (int e = beg; e < end; e++) {
				const long long t = (long long)e * H + h;
				const float ds = __ldg(&dse[t]);
				gatv2_sign_add<G, VPL, BAL>(w, ds, ds * slope, t, lane, esign);
			}
		}
		float4 r[VPL], dr[VPL];
		lane_row<G, VPL, MASK, W>(r, xr + v * ldr + h * C, lane, C);
		zero4(dr);
		gatv2_row_done<T, G, VPL, MASK, W>(att, dxr, heavy != nullptr, item * ldd + h * C, h, C, lane, r, w, dr, da,
		                                   fixedHead, datt);
	}
	if (fixedHead) gatv2_datt_flush<G, VPL, MASK, W>(datt, hfix, C, H, lane, da, red);
}

// GATV2E_FS instantiates the edge-coefficient forward and source passes
// as gatv2_fwde SFX VAR and gatv2_bwd_srce SFX VAR with the attribute
// BOUNDS (GATV2E_INST's, and the launch-bounded ones below).
#define GATV2E_FS(SFX, VAR, T, G, VPL, MASK, W, BOUNDS)                                                                          \
	extern "C" __global__ void BOUNDS gatv2_fwde##SFX##VAR(const int* indptr, const int* indices, ATTN_ROWS, GATV2_X(T),         \
	                                                       const float* att, T* out, float* lse, float* es,                   \
	                                                       unsigned char* esign, int n, int H, float slope, float pdrop,      \
	                                                       unsigned long long seed, int cw, int pf) {                         \
		gatv2_fwd_body<T, G, VPL, MASK, W, true>(indptr, indices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, out, lse,     \
		                                         es, esign, n, H, slope, pdrop, seed, cw, pf);                                \
	}                                                                                                                           \
	extern "C" __global__ void BOUNDS gatv2_bwd_srce##SFX##VAR(const int* tindptr, const int* tindices, ATTN_ROWS,              \
	                                                           const int* tperm, const T* xl, long long ldl, const float* att, \
	                                                           const float* lse, const float* dd, const float* es,            \
	                                                           const unsigned char* esign, float* dse, const T* dout, T* dxl, \
	                                                           long long ldd, float* datt, int n, int H, float slope,         \
	                                                           float pdrop, unsigned long long seed, int cw, int pf, int red) { \
		gatv2_bwd_srce_body<T, G, VPL, MASK, W>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, xl, ldl, att, lse, dd,      \
		                                        es, esign, dse, dout, dxl, ldd, datt, n, H, slope, pdrop, seed, cw, pf, red);   \
	}

// GATV2E_INST instantiates the edge-coefficient kernels (gatv2_fwde,
// gatv2_bwd_dd, gatv2_bwd_srce, gatv2_bwd_dste) as GATV2_INST does the
// others.
#define GATV2E_INST(SFX, T, G, VPL, MASK, W)                                                                                  \
	GATV2E_FS(SFX, , T, G, VPL, MASK, W, )                                                                                   \
	extern "C" __global__ void gatv2_bwd_dd##SFX(const T* out, const T* dout, float* dd, int n, int H, int cw,              \
	                                             const float* ub, float up, int ur) {                                      \
		gatv2_bwd_dd_body<T, G, VPL, MASK, W>(out, dout, dd, n, H, cw, ub, up, ur);                                          \
	}                                                                                                                       \
	extern "C" __global__ void gatv2_bwd_dste##SFX(const int* indptr, const int* indices, ATTN_ROWS, const T* xr,             \
	                                               long long ldr, const float* att, const float* dse,                       \
	                                               const unsigned char* esign, T* dxr, long long ldd, float* datt, int n,   \
	                                               int H, float slope, int cw, int red) {                                  \
		gatv2_bwd_dste_body<T, G, VPL, MASK, W>(indptr, heavy, tiles, nheavy, tile, xr, ldr, att, dse, esign, dxr, ldd, datt, \
		                                        n, H, slope, cw, red);                                                     \
	}

// The exact widths 64, 128, 256 and 512 only, float32 and bfloat16 in
// the 8-byte layout (BF16WideLoads' default): every instantiation adds to
// the driver's JIT of gnn.ptx at the first open of a device (these 16
// kernels 1.2 MB of PTX). The other widths (up to 32 channels, 1024,
// masked heads) run the other backward, and the wide layout too but at
// 1x256 with the ballot variants (GATV2E_BAL's _bf16w kernels below).
#define GATV2E_SHAPE(G, VPL)                                      \
	GATV2E_INST(_##G##_##VPL, float, G, VPL, false, false) \
	GATV2E_INST(_##G##_##VPL##_bf16, bf16, G, VPL, false, false)
GATV2E_SHAPE(16, 1)
GATV2E_SHAPE(32, 1)
GATV2E_SHAPE(32, 2)
GATV2E_SHAPE(32, 4)

// The variants tune.GATv2EdgeVariant selects at 1x256. At sm_90
// gatv2_fwde takes 99-107 registers a thread against the plain forward's
// 72-80, and gatv2_bwd_srce 117-121: two blocks of 256 threads an SM.
// _lb3: both under __launch_bounds__(256, 3), at most 85 registers (80;
// the source pass spills 40-100 bytes), three blocks. _e1: the source
// pass one edge a step (96 registers in float32, 84 in bfloat16 without
// bounds), under the same bounds.
GATV2E_FS(_32_2, _lb3, float, 32, 2, false, false, __launch_bounds__(256, 3))
GATV2E_FS(_32_2_bf16, _lb3, bf16, 32, 2, false, false, __launch_bounds__(256, 3))
#define GATV2E_E1(SFX, T, W)                                                                                                   \
	extern "C" __global__ void __launch_bounds__(256, 3)                                                                      \
	    gatv2_bwd_srce##SFX##_e1(const int* tindptr, const int* tindices, ATTN_ROWS, const int* tperm, const T* xl,           \
	                             long long ldl, const float* att, const float* lse, const float* dd, const float* es,          \
	                             const unsigned char* esign, float* dse, const T* dout, T* dxl, long long ldd, float* datt,  \
	                             int n, int H, float slope, float pdrop, unsigned long long seed, int cw, int pf, int red) {  \
		gatv2_bwd_srce_body<T, 32, 2, false, W, false>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, xl, ldl, att, lse, \
		                                                dd, es, esign, dse, dout, dxl, ldd, datt, n, H, slope, pdrop, seed, cw, \
		                                                pf, red);                                                              \
	}
GATV2E_E1(_32_2, float, false)
GATV2E_E1(_32_2_bf16, bf16, false)

// _bal: the three edge-coefficient passes with gatv2_ballots'
// words (tune.GATv2EdgeVariant "bal"), at 1x256, float32 and bfloat16
// in the 8-byte layout and bfloat16 in the wide one (W: _bf16w, every
// pass in the same lane layout, which the ballot words' bits follow),
// the destination pass staging a row's edges in shared memory;
// the source pass one edge a step as _e1, it and the forward pass under
// __launch_bounds__(256, 3) (80 registers at sm_90, the float32 source
// pass spilling 8 bytes outside its edge loop since it holds an edge's
// sign words beside its row: three blocks an SM against the plain
// _fwde's and _srce's two).
#define GATV2E_BAL(SFX, T, W)                                                                                                      \
	extern "C" __global__ void __launch_bounds__(256, 3) gatv2_fwde##SFX##_bal(const int* indptr, const int* indices, ATTN_ROWS, GATV2_X(T), const float* att, \
	                                                 T* out, float* lse, float* es, unsigned char* esign, int n, int H,           \
	                                                 float slope, float pdrop, unsigned long long seed, int cw, int pf) {      \
		gatv2_fwd_body<T, 32, 2, false, W, true, true>(indptr, indices, heavy, tiles, nheavy, tile, xl, ldl, xr, ldr, att, out, \
		                                                    lse, es, esign, n, H, slope, pdrop, seed, cw, pf);                  \
	}                                                                                                                          \
	extern "C" __global__ void __launch_bounds__(256, 3) gatv2_bwd_srce##SFX##_bal(const int* tindptr, const int* tindices, ATTN_ROWS, const int* tperm,     \
	                                                     const T* xl, long long ldl, const float* att, const float* lse,          \
	                                                     const float* dd, const float* es, const unsigned char* esign, float* dse, \
	                                                     const T* dout, T* dxl, long long ldd, float* datt, int n, int H,          \
	                                                     float slope, float pdrop, unsigned long long seed, int cw, int pf,        \
	                                                     int red) {                                                              \
		gatv2_bwd_srce_body<T, 32, 2, false, W, false, true>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, xl, ldl, att, \
		                                                          lse, dd, es, esign, dse, dout, dxl, ldd, datt, n, H, slope, pdrop, \
		                                                          seed, cw, pf, red);                                           \
	}                                                                                                                          \
	extern "C" __global__ void gatv2_bwd_dste##SFX##_bal(const int* indptr, const int* indices, ATTN_ROWS, const T* xr,          \
	                                                     long long ldr, const float* att, const float* dse,                       \
	                                                     const unsigned char* esign, T* dxr, long long ldd, float* datt, int n,   \
	                                                     int H, float slope, int cw, int red) {                                  \
		gatv2_bwd_dste_body<T, 32, 2, false, W, true>(indptr, heavy, tiles, nheavy, tile, xr, ldr, att, dse, esign, dxr, ldd, \
		                                                   datt, n, H, slope, cw, red);                                         \
	}
GATV2E_BAL(_32_2, float, false)
GATV2E_BAL(_32_2_bf16, bf16, false)
GATV2E_BAL(_32_2_bf16w, bf16, true)
// D for the wide layout's edge-coefficient source pass.
extern "C" __global__ void gatv2_bwd_dd_32_2_bf16w(const bf16* out, const bf16* dout, float* dd, int n, int H, int cw,
                                                   const float* ub, float up, int ur) {
	gatv2_bwd_dd_body<bf16, 32, 2, false, true>(out, dout, dd, n, H, cw, ub, up, ur);
}

// unbias_act_bf16 is unbias_act (elementwise.cu) over bfloat16 storage,
// for GATv2OutOps under Autocast(BFloat16): the attention output x rebuilt
// in place from y = dropout(relu(x + b)) in float32 and rounded once,
// which the bfloat16 backward passes read through D = dOut·x only.
extern "C" __global__ void unbias_act_bf16(bf16* y, const float* b, long long total, int F, int relu, float p) {
	GRID_LOOP(i, total) {
		const float v = bf16_bits_f32(y[i]);
		const float bb = b ? b[i % F] : 0.f;
		if (relu || p > 0.f) y[i] = f32_bf16_bits(v != 0.f ? v * (1.f - p) - bb : 0.f);
		else y[i] = f32_bf16_bits(v - bb);
	}
}
