// ---------------------------------------------------------------------------
// gatv2.cuh: what the GATv2 kernels of both modules share: the
// edge-coefficient backward's sign bits as its passes read them, and the
// att gradient's flush. gatv2.cu (the compute_70 module) and
// gatv2_sm80.cu (sm80.cu's, for cp.async) include it.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include "attn.cuh"

// gatv2_datt_add adds a lane's att gradient da to datt (head h) with
// atomics, its first C channels with MASK.
template <int G, int VPL, bool MASK, bool W>
__device__ __forceinline__ void gatv2_datt_add(float* __restrict__ datt, int h, int C, int lane, const float4 (&da)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		int c = chan4<G, W>(i, lane);
		if (MASK && c >= C) continue;
		float* q = datt + h * C + c;
		atomicAdd(q, da[i].x); atomicAdd(q + 1, da[i].y); atomicAdd(q + 2, da[i].z); atomicAdd(q + 3, da[i].w);
	}
}

// gatv2_datt_flush adds, at the end of a pass whose lane groups each
// meet one head (fixedHead: the launch keeps the number of groups a
// multiple of H), the lane's att gradient da (head h) to datt. Without red
// every lane adds its own: 4·VPL atomic adds a lane, from every group of
// the grid (gridFor's nsm·32 blocks) onto the same H·C floats, which the
// L2 serialises per address (inferred, not profiled: on the H200 each
// arxiv-sized pass at 1x256 that has them took 1.2-1.5 ms more than its
// bytes need, the passes without them about their bytes).
// With red (tune.GATv2DattBlock; the launch gives 4·G·VPL floats of
// dynamic shared memory a group) the block's groups first leave their da
// in shared memory; then one thread per (head, channel) of the block
// sums the groups of that head (group k of the block has head (block's
// first group + k) mod H, so groups k, k + H, ... share one) and adds the
// sum once: one atomic add per block and channel of each head it meets.
// Every thread of the block must call it.
template <int G, int VPL, bool MASK, bool W>
__device__ __forceinline__ void gatv2_datt_flush(float* __restrict__ datt, int h, int C, int H, int lane, const float4 (&da)[VPL],
                                                 int red) {
	if (!red) {
		gatv2_datt_add<G, VPL, MASK, W>(datt, h, C, lane, da);
		return;
	}
	extern __shared__ float4 gatv2_red_smem[];
	const int CP = 4 * G * VPL, gpb = blockDim.x / G, k0 = threadIdx.x / G;
	float* sm = reinterpret_cast<float*>(gatv2_red_smem);
#pragma unroll
	for (int i = 0; i < VPL; i++) *reinterpret_cast<float4*>(sm + k0 * CP + chan4<G, W>(i, lane)) = da[i];
	__syncthreads();
	const unsigned hs = min(H, gpb), first = blockIdx.x * (unsigned)gpb;
#pragma unroll 1
	for (unsigned j = threadIdx.x; j < hs * CP; j += blockDim.x) {
		const unsigned k = j / CP, c = j % CP;
		if (MASK && c >= C) continue;
		float s = 0.f;
#pragma unroll 1
		for (unsigned k2 = k; k2 < gpb; k2 += H) s += sm[k2 * CP + c];
		atomicAdd(datt + (first + k) % H * C + c, s);
	}
}

// gatv2_signs_t holds a lane's sign bits of one edge (gatv2_signs' or
// gatv2_ballots' layout): with BAL the edge's 4·VPL ballot words, each lane taking its
// own bit of each, else a nibble a float4 (4 channels).
template <int VPL, bool BAL>
struct gatv2_signs_t {
	unsigned b[BAL ? 4 * VPL : VPL];
	// words sets ballot words 4i .. 4i+3 (BAL).
	__device__ __forceinline__ void words(int i, uint4 w) {
		b[4 * i] = w.x;
		b[4 * i + 1] = w.y;
		b[4 * i + 2] = w.z;
		b[4 * i + 3] = w.w;
	}
};

// gatv2_sign_load loads edge t's sign bits at esign[t*CP/8 ...]. With BAL
// every lane of the warp loads the edge's 4·VPL words (the same
// addresses: one broadcast load of 16 bytes per float4). The source pass
// issues it beside the edge's other loads: issued after the edge's group
// sum (as gatv2_sign_add did there), its latency came once more an edge.
template <int G, int VPL, bool BAL = false>
__device__ __forceinline__ void gatv2_sign_load(gatv2_signs_t<VPL, BAL>& sg, long long t, int lane,
                                                const unsigned char* __restrict__ esign) {
	const int CP = 4 * G * VPL;
	if constexpr (BAL) {
		static_assert(G == 32, "ballot sign words need a warp a group");
		const uint4* p = reinterpret_cast<const uint4*>(esign) + t * VPL;
#pragma unroll
		for (int i = 0; i < VPL; i++) sg.words(i, __ldg(p + i));
	} else {
#pragma unroll
		for (int i = 0; i < VPL; i++) sg.b[i] = __ldg(&esign[t * (CP / 8) + (i * G + lane) / 2]) >> ((lane & 1) * 4);
	}
}

// gatv2_sign_apply adds ds·m to a lane's share w of Σ ds·m, m from the
// edge's sign bits sg (1 where z > 0, else slope: dsl = ds·slope).
template <int VPL, bool BAL>
__device__ __forceinline__ void gatv2_sign_apply(float4 (&w)[VPL], float ds, float dsl, const gatv2_signs_t<VPL, BAL>& sg,
                                                 int lane) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		if constexpr (BAL) {
			w[i].x += (sg.b[4 * i] >> lane & 1u) ? ds : dsl;
			w[i].y += (sg.b[4 * i + 1] >> lane & 1u) ? ds : dsl;
			w[i].z += (sg.b[4 * i + 2] >> lane & 1u) ? ds : dsl;
			w[i].w += (sg.b[4 * i + 3] >> lane & 1u) ? ds : dsl;
		} else {
			const unsigned b = sg.b[i];
			w[i].x += (b & 1) ? ds : dsl;
			w[i].y += (b & 2) ? ds : dsl;
			w[i].z += (b & 4) ? ds : dsl;
			w[i].w += (b & 8) ? ds : dsl;
		}
	}
}

// lane_fma adds a ⊙ w to x.
template <int VPL>
__device__ __forceinline__ void lane_fma(float4 (&x)[VPL], const float4 (&a)[VPL], const float4 (&w)[VPL]) {
#pragma unroll
	for (int i = 0; i < VPL; i++) {
		x[i].x += a[i].x * w[i].x;
		x[i].y += a[i].y * w[i].y;
		x[i].z += a[i].z * w[i].z;
		x[i].w += a[i].w * w[i].w;
	}
}

// gatv2_srce_edge is one edge's step of the edge-coefficient source pass
// (gatv2.cu's gatv2_bwd_srce, gatv2_sm80.cu's balcp pass): from the
// edge's dOut row share go, its score less the destination's log-sum-exp
// (sc), the destination's D and the edge's sign bits sg, the edge's score
// gradient ds, which lane 0 stores at dse[t]; the message's share
// alpha·k·go goes into dq and ds weighed by lrelu'(z) into w.
template <int G, int VPL, bool BAL>
__device__ __forceinline__ void gatv2_srce_edge(const float4 (&go)[VPL], const float4 (&q)[VPL], float sc, float D,
                                                long long t, const gatv2_signs_t<VPL, BAL>& sg, float pdrop, float keep,
                                                unsigned long long seed, float slope, int lane, float* dse,
                                                float4 (&dq)[VPL], float4 (&w)[VPL]) {
	const float gq = group_sum<G>(lane_dot(go, q));
	const float k = drop_keep(pdrop, keep, seed, t);
	const float al = __expf(sc), ds = al * (k * gq - D);
	if (lane == 0) dse[t] = ds;
	lane_rescale_add(dq, 1.f, al * k, go);
	gatv2_sign_apply<VPL, BAL>(w, ds, ds * slope, sg, lane);
}

// gatv2_row_done finishes a backward pass's row (u, h), given the row's
// own features' share q, w = Σ ds·m and dq, what the row's gradient has
// besides a ⊙ w (a source pass's Σ α·k·dOut[v]; zeros in a destination
// pass): dx[u] = dq + a ⊙ w at off (a tile's float32 scratch where
// tiles), and q ⊙ w into the lane's att gradient da, added to datt at
// once unless its head is fixed.
template <typename T, int G, int VPL, bool MASK, bool W>
__device__ __forceinline__ void gatv2_row_done(const float* __restrict__ att, T* __restrict__ dx, bool tiles, long long off,
                                               int h, int C, int lane, const float4 (&q)[VPL], const float4 (&w)[VPL],
                                               float4 (&dq)[VPL], float4 (&da)[VPL], bool fixedHead, float* __restrict__ datt) {
	float4 a[VPL];
	lane_row<G, VPL, MASK, W>(a, att + h * C, lane, C);
	lane_fma(dq, a, w);
	lane_store_item<G, VPL, MASK, W>(dx, tiles, off, dq, lane, C);
	lane_fma(da, q, w);
	if (!fixedHead) {
		gatv2_datt_add<G, VPL, MASK, W>(datt, h, C, lane, da);
		zero4(da);
	}
}
