// ---------------------------------------------------------------------------
// transformer.cu: the fused attention of the Graph Transformer
// (TransformerConv, Shi et al. 2021).
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "attn.cuh"

// For H heads of C channels, queries q (targets, N x HC), keys k and values
// vv (sources, N x HC), an edge u->v and head h:
//   s = scale * q[v,h]·k[u,h]   (scale = 1/sqrt(C) of the unpadded width),
//   alpha = softmax of s over v's in-edges, out[v,h,:] = sum_u alpha * vv[u,h,:].
// The first kernel family of the IO-aware paper: the forward keeps a running
// max and sum per (node, head) in registers (online softmax) and stores only
// the log-sum-exp; the backward recomputes alpha from it. Nothing is stored
// per edge. The lane layout, group shapes and masking are gatv2.cu's,
// from attn.cuh (lane_row, group_sum, the online-softmax step).

// The pointer arguments every transformer kernel takes for q, k and vv,
// which share a row stride ldx: three N x HC tensors (ldx = HC) or column
// blocks of one x·[W_q W_k W_v W_skip] product (ldx = 4HC).
#define TF_QKV(T) const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ vv, long long ldx

template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void tf_fwd_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS, TF_QKV(T),
                            const T* __restrict__ skip, T* __restrict__ out, float* __restrict__ lse, int n, int H, float scale, float pdrop,
                            unsigned long long seed, int cw, int pf) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, v, h, beg, end, live] = g.at(it, indptr, heavy, tiles, nheavy, tile);
		float4 qv[VPL], acc[VPL];
		lane_row<G, VPL, MASK, W>(qv, q + v * ldx + h * C, lane, C);
		zero4(acc);
		float m = -INFINITY, l = 0.f;
		int e = beg;
		// Two edges a step where the registers allow (two key and two
		// value rows in flight), their indices loaded a step ahead.
		edge_pairs ep(indices, beg, end, pf != 0 && VPL <= 2);
		if (VPL <= 2) {
			for (; e + 1 < end; e += 2) {
				int u0, u1;
				ep.pair(e, u0, u1);
				float4 k0[VPL], k1[VPL], v0[VPL], v1[VPL];
				lane_row<G, VPL, MASK, W>(k0, k + (long long)u0 * ldx + h * C, lane, C);
				lane_row<G, VPL, MASK, W>(k1, k + (long long)u1 * ldx + h * C, lane, C);
				lane_row<G, VPL, MASK, W>(v0, vv + (long long)u0 * ldx + h * C, lane, C);
				lane_row<G, VPL, MASK, W>(v1, vv + (long long)u1 * ldx + h * C, lane, C);
				float s0 = lane_dot(qv, k0), s1 = lane_dot(qv, k1);
				group_sum2<G>(s0, s1);
				s0 *= scale;
				s1 *= scale;
				float sc, p0, p1;
				osm_step2<true>(m, l, s0, s1, sc, p0, p1);
				p0 *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
				p1 *= drop_keep(pdrop, keep, seed, (long long)(e + 1) * H + h);
				lane_rescale_add2(acc, sc, p0, v0, p1, v1);
			}
		}
		for (; e < end; e++) {
			// The odd last edge of the pairs, or every edge at VPL > 2.
			int u = VPL <= 2 ? ep.last(e) : __ldg(&indices[e]);
			float4 ku[VPL], vu[VPL];
			lane_row<G, VPL, MASK, W>(ku, k + (long long)u * ldx + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(vu, vv + (long long)u * ldx + h * C, lane, C);
			float s = scale * group_sum<G>(lane_dot(qv, ku));
			float sc, pe = osm_step<true>(m, l, s, sc);
			pe *= drop_keep(pdrop, keep, seed, (long long)e * H + h);
			lane_rescale_add(acc, sc, pe, vu);
		}
		if (!live) continue;
		lane_scale(acc, osm_inv(l));
		if (skip != nullptr) {
			// The root weight's term, added as the row is stored.
			float4 sk[VPL];
			lane_row<G, VPL, MASK, W>(sk, skip + v * ldx + h * C, lane, C);
#pragma unroll
			for (int i = 0; i < VPL; i++) acc[i] = make_float4(acc[i].x + sk[i].x, acc[i].y + sk[i].y, acc[i].z + sk[i].z, acc[i].w + sk[i].w);
		}
		lane_store_item<G, VPL, MASK, W>(out, heavy != nullptr, item * HC + h * C, acc, lane, C);
		if (lane == 0) lse[p] = osm_lse<true>(m, l);
	}
}

// tf_bwd_dst_body: for each (v,h), over v's in-edges, with D = dout[v,h]·out[v,h]
// and alpha = exp(s - lse[v,h]) recomputed,
//   ds = alpha * (keep * dout[v,h]·vv[u,h] - D),   dq[v,h] = scale * sum_u ds * k[u,h],
// and D saved per (v,h) in dd for the source pass.
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void tf_bwd_dst_body(const int* __restrict__ indptr, const int* __restrict__ indices, ATTN_ROWS, TF_QKV(T),
                                const T* __restrict__ skip, const T* __restrict__ out, const float* __restrict__ lse,
                                const T* __restrict__ dout, T* __restrict__ dq, long long ldg, float* __restrict__ dd, int n,
                                int H, float scale, float pdrop, unsigned long long seed, int cw, int pf) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, v, h, beg, end, live] = g.at(it, indptr, heavy, tiles, nheavy, tile);
		float4 qv[VPL], go[VPL], acc[VPL];
		lane_row<G, VPL, MASK, W>(qv, q + v * ldx + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(go, dout + v * HC + h * C, lane, C);
		// D = dout·out, with out read into acc before acc sums dq.
		lane_row<G, VPL, MASK, W>(acc, out + v * HC + h * C, lane, C);
		float D = lane_dot(go, acc);
		if (skip != nullptr) {
			// out holds attention + skip: D is dout·attention.
			lane_row<G, VPL, MASK, W>(acc, skip + v * ldx + h * C, lane, C);
			D -= lane_dot(go, acc);
		}
		D = group_sum<G>(D);
		zero4(acc);
		float L = live ? lse[v * H + h] : 0.f;
		edge_next en(indices, beg, end, pf != 0);
		for (int e = beg; e < end; e++) {
			int u = en.at(e);
			float4 ku[VPL], vu[VPL];
			lane_row<G, VPL, MASK, W>(ku, k + (long long)u * ldx + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(vu, vv + (long long)u * ldx + h * C, lane, C);
			float s = lane_dot(qv, ku), g = lane_dot(go, vu);
			group_sum2<G>(s, g);
			float alpha = __expf(scale * s - L);
			float kd = drop_keep(pdrop, keep, seed, (long long)e * H + h);
			float ds = scale * alpha * (kd * g - D);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				acc[i].x += ds * ku[i].x;
				acc[i].y += ds * ku[i].y;
				acc[i].z += ds * ku[i].z;
				acc[i].w += ds * ku[i].w;
			}
		}
		if (!live) continue;
		lane_store_item<G, VPL, MASK, W>(dq, heavy != nullptr, item * ldg + h * C, acc, lane, C);
		if (dd != nullptr && lane == 0) dd[p] = D;  // the row pass only
	}
}

// tf_bwd_src_body: for each (u,h), over u's out-edges in the transposed CSR
// (tindices hold the destinations v; position t is CSR edge tperm[t], needed
// only for the dropout factors: tperm may be null without dropout),
//   dk[u,h] = scale * sum_v ds * q[v,h],   dv[u,h] = sum_v keep * alpha * dout[v,h].
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ void tf_bwd_src_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS,
                                const int* __restrict__ tperm, TF_QKV(T), const float* __restrict__ lse,
                                const float* __restrict__ dd, const T* __restrict__ dout, T* __restrict__ dk,
                                T* __restrict__ dv, long long ldg, int n, int H, float scale, float pdrop,
                                unsigned long long seed, int cw, int pf) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = MASK ? cw : 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const attn_groups<G> g(n, H);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, u, h, beg, end, live] = g.at(it, tindptr, heavy, tiles, nheavy, tile);
		float4 ku[VPL], vu[VPL], gk[VPL], gv[VPL];
		lane_row<G, VPL, MASK, W>(ku, k + u * ldx + h * C, lane, C);
		lane_row<G, VPL, MASK, W>(vu, vv + u * ldx + h * C, lane, C);
		zero4(gk);
		zero4(gv);
		edge_next en(tindices, beg, end, pf != 0);
		for (int e = beg; e < end; e++) {
			int v = en.at(e);
			float4 qv[VPL], go[VPL];
			lane_row<G, VPL, MASK, W>(qv, q + (long long)v * ldx + h * C, lane, C);
			lane_row<G, VPL, MASK, W>(go, dout + (long long)v * HC + h * C, lane, C);
			// The edge's scalars are loaded beside its rows: after the
			// group sum (where ptxas left them) their latency came once
			// more an edge.
			const long long kv = (long long)v * H + h;
			const float L = __ldg(&lse[kv]), D = __ldg(&dd[kv]);
			const long long te = pdrop > 0.f ? (long long)__ldg(&tperm[e]) * H + h : 0;
			float s = lane_dot(qv, ku), g = lane_dot(go, vu);
			group_sum2<G>(s, g);
			float alpha = __expf(scale * s - L);
			float kd = pdrop > 0.f ? drop_keep(pdrop, keep, seed, te) : 1.f;
			float ds = scale * alpha * (kd * g - D);
			float w = kd * alpha;
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				gk[i].x += ds * qv[i].x;
				gk[i].y += ds * qv[i].y;
				gk[i].z += ds * qv[i].z;
				gk[i].w += ds * qv[i].w;
				gv[i].x += w * go[i].x;
				gv[i].y += w * go[i].y;
				gv[i].z += w * go[i].z;
				gv[i].w += w * go[i].w;
			}
		}
		if (!live) continue;
		lane_store_item<G, VPL, MASK, W>(dk, heavy != nullptr, item * ldg + h * C, gk, lane, C);
		lane_store_item<G, VPL, MASK, W>(dv, heavy != nullptr, item * ldg + h * C, gv, lane, C);
	}
}

// TF_INST instantiates the three transformer kernels over features of
// type T for groups of G lanes holding VPL float4s each, under the names
// tf_*SFX (masked as in GATV2_INST). With T bf16, q, k, the values, skip,
// out, dout and the gradients are bfloat16 (float32 scratch in the pass
// over heavy rows' tiles: lane_store_item); lse and D stay float32. pf is
// edge_pairs' and edge_next's (tune.AttnPrefetch).
#define TF_INST(SFX, T, G, VPL, MASK, W)                                                                                  \
	extern "C" __global__ void tf_fwd##SFX(const int* indptr, const int* indices, ATTN_ROWS, TF_QKV(T), const T* skip,          \
	                                       T* out, float* lse, int n, int H, float scale, float pdrop,               \
	                                       unsigned long long seed, int cw, int pf) {                                \
		tf_fwd_body<T, G, VPL, MASK, W>(indptr, indices, heavy, tiles, nheavy, tile, q, k, vv, ldx, skip, out, lse, n, H, scale, pdrop, seed, cw, \
		                             pf);                                                                           \
	}                                                                                                                  \
	extern "C" __global__ void tf_bwd_dst##SFX(const int* indptr, const int* indices, ATTN_ROWS, TF_QKV(T), const T* skip,      \
	                                           const T* out, const float* lse, const T* dout, T* dq,                 \
	                                           long long ldg, float* dd, int n, int H, float scale, float pdrop,     \
	                                           unsigned long long seed, int cw, int pf) {                            \
		tf_bwd_dst_body<T, G, VPL, MASK, W>(indptr, indices, heavy, tiles, nheavy, tile, q, k, vv, ldx, skip, out, lse, dout, dq, ldg, dd, n, H,   \
		                                 scale, pdrop, seed, cw, pf);                                              \
	}                                                                                                                  \
	extern "C" __global__ void tf_bwd_src##SFX(const int* tindptr, const int* tindices, ATTN_ROWS, const int* tperm, TF_QKV(T),  \
	                                           const float* lse, const float* dd, const T* dout, T* dk,              \
	                                           T* dv, long long ldg, int n, int H, float scale, float pdrop,         \
	                                           unsigned long long seed, int cw, int pf) {                            \
		tf_bwd_src_body<T, G, VPL, MASK, W>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, q, k, vv, ldx, lse, dd, dout, dk, dv, ldg, n, H, \
		                                 scale, pdrop, seed, cw, pf);                                              \
	}

// The group shapes of gatv2.cu (attn.cuh's ATTN_SHAPES; gatv2Groups on
// the Go side): the same widths take the same kernels' layouts.
ATTN_SHAPES(TF_INST)
