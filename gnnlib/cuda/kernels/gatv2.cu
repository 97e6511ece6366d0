// ---------------------------------------------------------------------------
// gatv2.cu: the fused GATv2 attention.
// ---------------------------------------------------------------------------

#include "common.cuh"

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
template <int G, int VPL, bool MASK>
__device__ __forceinline__ void lane_row(float4 (&x)[VPL], const float* __restrict__ row, int lane, int C) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		if (!MASK || (i * G + lane) * 4 < C) {
			x[i] = __ldg(reinterpret_cast<const float4*>(row) + i * G + lane);
		} else {
			x[i] = make_float4(0.f, 0.f, 0.f, 0.f);
		}
	}
}

// lane_store writes a lane's share of a row (with MASK, of its first C
// columns).
template <int G, int VPL, bool MASK>
__device__ __forceinline__ void lane_store(float* row, const float4 (&x)[VPL], int lane, int C) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		if (!MASK || (i * G + lane) * 4 < C) st4(row + (i * G + lane) * 4, x[i]);
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

// The pointer arguments every GATv2 kernel takes for x_l and x_r.
#define GATV2_X const float *__restrict__ xl, long long ldl, const float *__restrict__ xr, long long ldr

template <int G, int VPL, bool MASK>
__device__ void gatv2_fwd_body(const int* __restrict__ indptr, const int* __restrict__ indices, GATV2_X,
                               const float* __restrict__ att, float* __restrict__ out, float* __restrict__ lse,
                               int n, int H, float slope, float pdrop, unsigned long long seed, int cw) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const long long grp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	const long long total = (long long)n * H;
	// Every lane of a warp must run the same number of iterations for the
	// shuffles: iterate to the warp's bound and mask the work.
	const long long iters = (total + ngrp - 1) / ngrp;
	for (long long it = 0; it < iters; it++) {
		long long p = grp0 + it * ngrp;
		bool live = p < total;
		long long v = live ? p / H : 0;
		int h = live ? p % H : 0;
		float4 a[VPL], r[VPL], acc[VPL];
		lane_row<G, VPL, MASK>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK>(r, xr + v * ldr + h * C, lane, C);
		zero4(acc);
		float m = -INFINITY, l = 0.f;
		int beg = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
		// Two edges a step, so that two gathers and their shuffles are in
		// flight at once; an odd last edge goes alone.
		int e = beg;
		for (; e + 1 < end; e += 2) {
			int u0 = __ldg(&indices[e]), u1 = __ldg(&indices[e + 1]);
			float4 q0[VPL], q1[VPL];
			lane_row<G, VPL, MASK>(q0, xl + (long long)u0 * ldl + h * C, lane, C);
			lane_row<G, VPL, MASK>(q1, xl + (long long)u1 * ldl + h * C, lane, C);
			float s0 = lane_score(a, q0, r, slope), s1 = lane_score(a, q1, r, slope);
			group_sum2<G>(s0, s1);
			// Online softmax: rescale the running sum when the max moves.
			float mn = fmaxf(m, fmaxf(s0, s1));
			float scale = __expf(m - mn), p0 = __expf(s0 - mn), p1 = __expf(s1 - mn);
			l = l * scale + p0 + p1;
			// Attention dropout scales an edge's weight in the output, not
			// in the softmax's sum.
			p0 *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
			p1 *= drop_keep(pdrop, keep, seed, (long long)(e + 1) * H + h);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				acc[i].x = acc[i].x * scale + p0 * q0[i].x + p1 * q1[i].x;
				acc[i].y = acc[i].y * scale + p0 * q0[i].y + p1 * q1[i].y;
				acc[i].z = acc[i].z * scale + p0 * q0[i].z + p1 * q1[i].z;
				acc[i].w = acc[i].w * scale + p0 * q0[i].w + p1 * q1[i].w;
			}
			m = mn;
		}
		if (e < end) {
			int u = __ldg(&indices[e]);
			float4 q[VPL];
			lane_row<G, VPL, MASK>(q, xl + (long long)u * ldl + h * C, lane, C);
			float s = group_sum<G>(lane_score(a, q, r, slope));
			float mn = fmaxf(m, s);
			float scale = __expf(m - mn), pe = __expf(s - mn);
			l = l * scale + pe;
			pe *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				acc[i].x = acc[i].x * scale + pe * q[i].x;
				acc[i].y = acc[i].y * scale + pe * q[i].y;
				acc[i].z = acc[i].z * scale + pe * q[i].z;
				acc[i].w = acc[i].w * scale + pe * q[i].w;
			}
			m = mn;
		}
		if (!live) continue;
		float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
		for (int i = 0; i < VPL; i++) acc[i] = make_float4(acc[i].x * inv, acc[i].y * inv, acc[i].z * inv, acc[i].w * inv);
		lane_store<G, VPL, MASK>(out + v * HC + h * C, acc, lane, C);
		if (lane == 0) lse[p] = l > 0.f ? m + __logf(l) : 0.f;
	}
}

// gatv2_dst_edge adds one edge's share to the destination pass's running
// dxr (dr) and att gradient (dal) and, with SAVE, stores its output weight
// alpha (times the dropout factor) and ds at eas[t] and its sign bits at
// esign[t*C/8 ...] (t = edge*H + head).
template <int G, int VPL, bool SAVE>
__device__ __forceinline__ void gatv2_dst_edge(const float4 (&q)[VPL], const float4 (&r)[VPL], const float4 (&a)[VPL],
                                               float4 (&dr)[VPL], float4 (&dal)[VPL], float alpha, float ds,
                                               long long t, int lane, float slope, float2* __restrict__ eas,
                                               unsigned char* __restrict__ esign) {
	const int CP = 4 * G * VPL;  // sign bytes per edge and head: CP/8, masked channels included
	if (SAVE && lane == 0) eas[t] = make_float2(alpha, ds);
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		float zx = q[i].x + r[i].x, zy = q[i].y + r[i].y, zz = q[i].z + r[i].z, zw = q[i].w + r[i].w;
		dr[i].x += ds * a[i].x * dlrelu(zx, slope);
		dr[i].y += ds * a[i].y * dlrelu(zy, slope);
		dr[i].z += ds * a[i].z * dlrelu(zz, slope);
		dr[i].w += ds * a[i].w * dlrelu(zw, slope);
		dal[i].x += ds * lrelu(zx, slope);
		dal[i].y += ds * lrelu(zy, slope);
		dal[i].z += ds * lrelu(zz, slope);
		dal[i].w += ds * lrelu(zw, slope);
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

// gatv2_bwd_dst_body: for each (v,h), over v's in-edges, recompute
// alpha = exp(s - lse[v,h]), with D = dout[v,h]·out[v,h]
//   ds   = alpha * (dout[v,h]·xl[u,h] - D)
//   dxr[v,h] = sum_u ds * a ⊙ lrelu'(z),  da += ds * lrelu(z).
// da is reduced per lane over the whole grid-stride loop and added once per
// lane at the end. What the source side then needs is either stored per
// edge (SAVE: (alpha, ds) and the signs of z, one bit per channel, in CSR
// order, so that the writes are contiguous and the source pass gathers
// nothing but dout beside them) or, without SAVE, D per (v,h) in dd, from
// which the source pass recomputes everything.
template <int G, int VPL, bool SAVE, bool MASK>
__device__ void gatv2_bwd_dst_body(const int* __restrict__ indptr, const int* __restrict__ indices, GATV2_X,
                                   const float* __restrict__ att,
                                   const float* __restrict__ out, const float* __restrict__ lse,
                                   const float* __restrict__ dout, float* __restrict__ dxr, long long ldd,
                                   float* __restrict__ dd, float2* __restrict__ eas,
                                   unsigned char* __restrict__ esign, float* __restrict__ datt, int n, int H,
                                   float slope, float pdrop, unsigned long long seed, int cw) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const long long grp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	const long long total = (long long)n * H;
	const long long iters = (total + ngrp - 1) / ngrp;
	// With H > 1 a lane meets several heads; keep da per head only when the
	// head is fixed for the lane (ngrp % H == 0), else fall back to atomics.
	const bool fixedHead = (ngrp % H) == 0;
	float4 da[VPL];
#pragma unroll
	for (int i = 0; i < VPL; i++) da[i] = make_float4(0.f, 0.f, 0.f, 0.f);
	int hfix = grp0 % H;
	for (long long it = 0; it < iters; it++) {
		long long p = grp0 + it * ngrp;
		bool live = p < total;
		long long v = live ? p / H : 0;
		int h = live ? p % H : 0;
		float4 a[VPL], r[VPL], go[VPL], o[VPL], dr[VPL], dal[VPL];
		lane_row<G, VPL, MASK>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK>(r, xr + v * ldr + h * C, lane, C);
		lane_row<G, VPL, MASK>(go, dout + v * HC + h * C, lane, C);
		lane_row<G, VPL, MASK>(o, out + v * HC + h * C, lane, C);
		zero4(dr);
		zero4(dal);
		float D = group_sum<G>(lane_dot(go, o));
		float L = live ? lse[p] : 0.f;
		int beg = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
		// Two edges a step, as in the forward pass.
		int e = beg;
		for (; e + 1 < end; e += 2) {
			int u0 = __ldg(&indices[e]), u1 = __ldg(&indices[e + 1]);
			float4 q0[VPL], q1[VPL];
			lane_row<G, VPL, MASK>(q0, xl + (long long)u0 * ldl + h * C, lane, C);
			lane_row<G, VPL, MASK>(q1, xl + (long long)u1 * ldl + h * C, lane, C);
			float s0 = lane_score(a, q0, r, slope), s1 = lane_score(a, q1, r, slope);
			float g0 = lane_dot(go, q0), g1 = lane_dot(go, q1);
			group_sum4<G>(s0, s1, g0, g1);
			// With attention dropout the output weighs q by alpha·k: dalpha
			// = k·(dout·q), and D = dout·out is still Σ alpha·dalpha.
			long long t0 = (long long)e * H + h, t1 = (long long)(e + 1) * H + h;
			float k0 = drop_keep(pdrop, keep, seed, t0), k1 = drop_keep(pdrop, keep, seed, t1);
			float al0 = __expf(s0 - L), al1 = __expf(s1 - L);
			gatv2_dst_edge<G, VPL, SAVE>(q0, r, a, dr, dal, al0 * k0, al0 * (k0 * g0 - D), t0, lane, slope, eas, esign);
			gatv2_dst_edge<G, VPL, SAVE>(q1, r, a, dr, dal, al1 * k1, al1 * (k1 * g1 - D), t1, lane, slope, eas, esign);
		}
		if (e < end) {
			int u = __ldg(&indices[e]);
			float4 q[VPL];
			lane_row<G, VPL, MASK>(q, xl + (long long)u * ldl + h * C, lane, C);
			float s = lane_score(a, q, r, slope), dalpha = lane_dot(go, q);
			group_sum2<G>(s, dalpha);
			long long t = (long long)e * H + h;
			float k = drop_keep(pdrop, keep, seed, t);
			float alpha = __expf(s - L);
			gatv2_dst_edge<G, VPL, SAVE>(q, r, a, dr, dal, alpha * k, alpha * (k * dalpha - D), t, lane, slope, eas, esign);
		}
		if (!live) continue;
		lane_store<G, VPL, MASK>(dxr + v * ldd + h * C, dr, lane, C);
#pragma unroll
		for (int i = 0; i < VPL; i++) {
			int c = (i * G + lane) * 4;
			if (MASK && c >= C) continue;
			if (fixedHead) {
				da[i].x += dal[i].x; da[i].y += dal[i].y; da[i].z += dal[i].z; da[i].w += dal[i].w;
			} else {
				float* q = datt + h * C + c;
				atomicAdd(q, dal[i].x); atomicAdd(q + 1, dal[i].y); atomicAdd(q + 2, dal[i].z); atomicAdd(q + 3, dal[i].w);
			}
		}
		if (!SAVE && lane == 0) dd[p] = D;
	}
	if (fixedHead) {
#pragma unroll
		for (int i = 0; i < VPL; i++) {
			int c = (i * G + lane) * 4;
			if (MASK && c >= C) continue;
			float* q = datt + hfix * C + c;
			atomicAdd(q, da[i].x); atomicAdd(q + 1, da[i].y); atomicAdd(q + 2, da[i].z); atomicAdd(q + 3, da[i].w);
		}
	}
}

// gatv2_bwd_src_body: for each (u,h), over u's out-edges in the transposed
// CSR (tindices hold the destinations v), recompute alpha and ds and gather
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ lrelu'(z).
template <int G, int VPL, bool MASK>
__device__ void gatv2_bwd_src_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, GATV2_X,
                                   const float* __restrict__ att, const float* __restrict__ lse,
                                   const float* __restrict__ dd, const float* __restrict__ dout,
                                   float* __restrict__ dxl, long long ldd, int n, int H, float slope, int cw) {
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const long long grp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	const long long total = (long long)n * H;
	const long long iters = (total + ngrp - 1) / ngrp;
	for (long long it = 0; it < iters; it++) {
		long long p = grp0 + it * ngrp;
		bool live = p < total;
		long long u = live ? p / H : 0;
		int h = live ? p % H : 0;
		float4 a[VPL], q[VPL], dq[VPL];
		lane_row<G, VPL, MASK>(a, att + h * C, lane, C);
		lane_row<G, VPL, MASK>(q, xl + u * ldl + h * C, lane, C);
		zero4(dq);
		int beg = live ? tindptr[u] : 0, end = live ? tindptr[u + 1] : 0;
		for (int e = beg; e < end; e++) {
			int v = __ldg(&tindices[e]);
			float4 r[VPL], go[VPL];
			lane_row<G, VPL, MASK>(r, xr + (long long)v * ldr + h * C, lane, C);
			lane_row<G, VPL, MASK>(go, dout + (long long)v * HC + h * C, lane, C);
			float s = lane_score(a, q, r, slope), dalpha = lane_dot(go, q);
			group_sum2<G>(s, dalpha);
			long long k = (long long)v * H + h;
			float alpha = __expf(s - __ldg(&lse[k]));
			float ds = alpha * (dalpha - __ldg(&dd[k]));
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				dq[i].x += alpha * go[i].x + ds * a[i].x * dlrelu(q[i].x + r[i].x, slope);
				dq[i].y += alpha * go[i].y + ds * a[i].y * dlrelu(q[i].y + r[i].y, slope);
				dq[i].z += alpha * go[i].z + ds * a[i].z * dlrelu(q[i].z + r[i].z, slope);
				dq[i].w += alpha * go[i].w + ds * a[i].w * dlrelu(q[i].w + r[i].w, slope);
			}
		}
		if (!live) continue;
		lane_store<G, VPL, MASK>(dxl + u * ldd + h * C, dq, lane, C);
	}
}

// gatv2_bwd_srcs_body: the source pass from the saved edges: for each
// (u,h), over u's out-edges in the transposed CSR (position t is CSR edge
// tperm[t], whose (alpha, ds) and sign bits the SAVE destination pass
// stored),
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ (z > 0 ? 1 : slope),
// gathering dout's rows and the edges' 40 bytes (at C = 256). No lane
// exchanges anything, so groups need not run in step.
template <int G, int VPL, bool MASK>
__device__ void gatv2_bwd_srcs_body(const int* __restrict__ tindptr, const int* __restrict__ tindices,
                                    const int* __restrict__ tperm, const float2* __restrict__ eas, const unsigned char* __restrict__ esign,
                                    const float* __restrict__ att, const float* __restrict__ dout,
                                    float* __restrict__ dxl, long long ldd, int n, int H, float slope, int cw) {
	// The saved sign bits take 4*G*VPL/8 bytes per edge and head (CP/8).
	const int CP = 4 * G * VPL, C = MASK ? cw : CP, HC = H * C;
	const int lane = threadIdx.x % G;
	const long long total = (long long)n * H;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	for (long long p = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; p < total; p += ngrp) {
		long long u = p / H;
		int h = p % H;
		// a ⊙ lrelu' is a or slope·a per channel: keep both.
		float4 a[VPL], as[VPL], dq[VPL];
		lane_row<G, VPL, MASK>(a, att + h * C, lane, C);
#pragma unroll
		for (int i = 0; i < VPL; i++) as[i] = make_float4(slope * a[i].x, slope * a[i].y, slope * a[i].z, slope * a[i].w);
		zero4(dq);
		int beg = tindptr[u], end = tindptr[u + 1];
		for (int e = beg; e < end; e++) {
			int v = __ldg(&tindices[e]);
			long long t = (long long)__ldg(&tperm[e]) * H + h;
			float2 w = __ldg(&eas[t]);
			float4 go[VPL];
			lane_row<G, VPL, MASK>(go, dout + (long long)v * HC + h * C, lane, C);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				unsigned b = __ldg(&esign[t * (CP / 8) + (i * G + lane) / 2]) >> ((lane & 1) * 4);
				dq[i].x += w.x * go[i].x + w.y * ((b & 1) ? a[i].x : as[i].x);
				dq[i].y += w.x * go[i].y + w.y * ((b & 2) ? a[i].y : as[i].y);
				dq[i].z += w.x * go[i].z + w.y * ((b & 4) ? a[i].z : as[i].z);
				dq[i].w += w.x * go[i].w + w.y * ((b & 8) ? a[i].w : as[i].w);
			}
		}
		lane_store<G, VPL, MASK>(dxl + u * ldd + h * C, dq, lane, C);
	}
}

// GATV2_INST instantiates the five GATv2 kernels for groups of G lanes
// holding VPL float4s each, under the names gatv2_*SFX; with MASK they
// take heads of cw < 4*G*VPL channels (cw a multiple of 4), otherwise
// exactly 4*G*VPL and ignore cw.
#define GATV2_INST(SFX, G, VPL, MASK)                                                                                \
	extern "C" __global__ void gatv2_fwd##SFX(const int* indptr, const int* indices, GATV2_X, const float* att,     \
	                                          float* out, float* lse, int n, int H, float slope, float pdrop,        \
	                                          unsigned long long seed, int cw) {                                     \
		gatv2_fwd_body<G, VPL, MASK>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, n, H, slope, pdrop, seed, cw); \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_dst##SFX(const int* indptr, const int* indices, GATV2_X,                   \
	                                              const float* att, const float* out, const float* lse,             \
	                                              const float* dout, float* dxr, long long ldd, float* dd,          \
	                                              float* datt, int n, int H, float slope, int cw) {                 \
		gatv2_bwd_dst_body<G, VPL, false, MASK>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd,   \
		                                        dd, nullptr, nullptr, datt, n, H, slope, 0.f, 0, cw);               \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_dsts##SFX(const int* indptr, const int* indices, GATV2_X,                  \
	                                               const float* att, const float* out, const float* lse,            \
	                                               const float* dout, float* dxr, long long ldd, float2* eas,       \
	                                               unsigned char* esign, float* datt, int n, int H, float slope,    \
	                                               float pdrop, unsigned long long seed, int cw) {                  \
		gatv2_bwd_dst_body<G, VPL, true, MASK>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd,    \
		                                       nullptr, eas, esign, datt, n, H, slope, pdrop, seed, cw);            \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_src##SFX(const int* tindptr, const int* tindices, GATV2_X,                 \
	                                              const float* att, const float* lse, const float* dd,              \
	                                              const float* dout, float* dxl, long long ldd, int n, int H,       \
	                                              float slope, int cw) {                                            \
		gatv2_bwd_src_body<G, VPL, MASK>(tindptr, tindices, xl, ldl, xr, ldr, att, lse, dd, dout, dxl, ldd, n, H,   \
		                                 slope, cw);                                                               \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_srcs##SFX(const int* tindptr, const int* tindices, const int* tperm,        \
	                                               const float2* eas, const unsigned char* esign, const float* att, \
	                                               const float* dout, float* dxl, long long ldd, int n, int H,      \
	                                               float slope, int cw) {                                           \
		gatv2_bwd_srcs_body<G, VPL, MASK>(tindptr, tindices, tperm, eas, esign, att, dout, dxl, ldd, n, H, slope,   \
		                                  cw);                                                                     \
	}

// GAT_INST instantiates the exact kernels (gatv2_*_G_VPL) and the masked
// ones (gatv2_*_m_G_VPL) of one group shape.
#define GAT_INST(G, VPL)                         \
	GATV2_INST(_##G##_##VPL, G, VPL, false) \
	GATV2_INST(_m_##G##_##VPL, G, VPL, true)

// C = 4*G*VPL: 8 (2,1), 16 (4,1), 32 (8,1), 64 (16,1), 128 (32,1), 256 (32,2), 512 (32,4),
// 1024 (32,8); masked up to those, and up to 384 (32,3, masked only). At
// (32,8) the destination passes use 255 registers and spill about 350
// bytes a thread at sm_90: slower per channel, still one pass per node.
GAT_INST(2, 1)
GAT_INST(4, 1)
GAT_INST(8, 1)
GAT_INST(16, 1)
GAT_INST(32, 1)
GAT_INST(32, 2)
GATV2_INST(_m_32_3, 32, 3, true)
GAT_INST(32, 4)
GAT_INST(32, 8)
