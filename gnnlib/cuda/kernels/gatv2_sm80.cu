// ---------------------------------------------------------------------------
// gatv2_sm80.cu: the GATv2 kernels that need sm_80 instructions (cp.async),
// in sm80.cu's module, named sm80_*.
//
// sm80_gatv2_bwd_srce_32_2[_bf16|_bf16w]_balcp is the edge-coefficient
// source pass of gatv2.cu's _bal variant (1x256, the forward pass's ballot
// sign words; _bf16w in the wide bfloat16 layout)
// with its gathers in flight several edges ahead (tune.GATv2EdgeVariant
// "balcp"). The _bal pass holds one edge's loads at a time, a warp per
// (row, head) with 80 registers and three blocks an SM: Nsight Compute put
// its bfloat16 version at 6.5 of its 11.6 stall cycles an instruction on
// those loads (long scoreboard, H100, 2026-12-07), the warp waiting for
// memory once an edge. Here each warp copies an edge's dOut row share, score,
// lse, D and sign words into shared memory with cp.async (no registers held
// while they fly) GCP_STAGES - 1 edges ahead of the edge it sums, so that a
// row of d edges waits for memory about twice (its first indices, its first
// edge), and once more every 32 edges for indices, instead of d times. The
// indices come 32 at a time, one coalesced load of tindices and tperm a lane,
// handed out by shuffles. On an H100 (2026-12-07) the arxiv-sized bfloat16
// pass at 1x256 took 0.87-0.93 ms against _bal's 1.06-1.09.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include "attn.cuh"
#include "gatv2.cuh"
#include "cpasync.cuh"

// GCP_STAGES is the depth of a warp's pipeline of edges.
#define GCP_STAGES 4

// gcp_async copies B bytes (4, 8 or 16) from global memory to shared
// (cpasync.cuh's cp_async, whose unit is 2 bytes).
template <int B>
__device__ __forceinline__ void gcp_async(void* smem, const void* gmem) {
	cp_async<B / 2>(smem_u32(smem), static_cast<const unsigned short*>(gmem), true);
}

// gcp_stage is one edge in a warp's pipeline: the edge's dOut row in
// channel order (each lane copies and reads its own channels, chan4's),
// the edge's ballot sign words, its score, lse[v], D[v] and its record t.
template <typename T, int VPL>
struct __align__(16) gcp_stage {
	T row[4 * 32 * VPL];
	uint4 sg[VPL];
	float es, lse, D, pad;
	long long t, pad2;
};

// gcp_row4 widens 4 staged values.
__device__ __forceinline__ float4 gcp_row4(const float* x) { return *reinterpret_cast<const float4*>(x); }
__device__ __forceinline__ float4 gcp_bf16x4(uint2 u) {
	return make_float4(bf16_bits_f32((unsigned short)u.x), bf16_bits_f32((unsigned short)(u.x >> 16)),
	                   bf16_bits_f32((unsigned short)u.y), bf16_bits_f32((unsigned short)(u.y >> 16)));
}
__device__ __forceinline__ float4 gcp_row4(const bf16* x) { return gcp_bf16x4(*reinterpret_cast<const uint2*>(x)); }

// gcp_lane_row reads a lane's share of a staged row as lane_row holds it:
// 4 values a float4, or with W (bfloat16) 8 a 16-byte read.
template <int VPL, bool W, typename T>
__device__ __forceinline__ void gcp_lane_row(float4 (&x)[VPL], const T* row, int lane) {
	if constexpr (W) {
		static_assert(sizeof(T) == 2 && VPL % 2 == 0, "the wide layout: bfloat16, pairs of float4s");
#pragma unroll
		for (int j = 0; j < VPL / 2; j++) {
			const uint4 u = *reinterpret_cast<const uint4*>(row + chan4<32, true>(2 * j, lane));
			x[2 * j] = gcp_bf16x4(make_uint2(u.x, u.y));
			x[2 * j + 1] = gcp_bf16x4(make_uint2(u.z, u.w));
		}
	} else {
#pragma unroll
		for (int i = 0; i < VPL; i++) x[i] = gcp_row4(row + chan4<32, false>(i, lane));
	}
}

// gatv2_bwd_srcecp_body is gatv2_bwd_srce_body for G = 32, exact widths,
// ballot sign words and one edge a step, the edges' gathers staged as
// above, in the lane layout W. Blocks of 256 threads (8 warps).
template <typename T, int VPL, bool W>
__device__ void gatv2_bwd_srcecp_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, ATTN_ROWS,
                                      const int* __restrict__ tperm, const T* __restrict__ xl, long long ldl,
                                      const float* __restrict__ att, const float* __restrict__ lse,
                                      const float* __restrict__ dd, const float* es,
                                      const unsigned char* __restrict__ esign, float* dse,
                                      const T* __restrict__ dout, T* __restrict__ dxl, long long ldd,
                                      float* __restrict__ datt, int n, int H, float slope, float pdrop,
                                      unsigned long long seed, int red) {
	constexpr int G = 32, P = GCP_STAGES, C = 4 * G * VPL;
	static_assert(3 + VPL <= G, "lanes for the scalars and the sign words");
	__shared__ gcp_stage<T, VPL> stages[8][P];
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int HC = H * C;
	const int lane = threadIdx.x % G;
	gcp_stage<T, VPL>(&st)[P] = stages[threadIdx.x / G];
	const attn_groups<G> g(n, H);
	const bool fixedHead = (g.ngrp % H) == 0;
	const int hfix = g.grp0 % H;
	float4 da[VPL];
	zero4(da);
	for (long long it = 0; it < g.iters; it++) {
		auto [p, item, u, h, beg, end, live] = g.at(it, tindptr, heavy, tiles, nheavy, tile);
		float4 q[VPL], dq[VPL], w[VPL];
		lane_row<G, VPL, false, W>(q, xl + u * ldl + h * C, lane, C);
		zero4(dq);
		zero4(w);
		// The indices of edges ib .. ib + 31, lane j holding edge ib + j's.
		int ib = beg - G, vj = 0, tj = 0;
		const int rend = end;
		// issue starts edge e's copies into stage s (every lane calls it,
		// for the same e).
		auto issue = [&, hh = h](int e, int s) {
			if (e >= ib + G) {
				ib = e;
				const int j = e + lane;
				vj = j < rend ? __ldg(&tindices[j]) : 0;
				tj = j < rend ? __ldg(&tperm[j]) : 0;
			}
			const int v = __shfl_sync(FULL, vj, e - ib);
			const long long t = (long long)__shfl_sync(FULL, tj, e - ib) * H + hh;
			const long long r = (long long)v * H + hh;
			const T* src = dout + (long long)v * HC + hh * C;
			// A lane's channels, 4 a copy, or 8 (16 bytes) in the wide layout.
			constexpr int PER = W ? 8 : 4;
#pragma unroll
			for (int i = 0; i < VPL; i += PER / 4) {
				const int c = chan4<G, W>(i, lane);
				gcp_async<PER * sizeof(T)>(st[s].row + c, src + c);
			}
			if (lane == 0) {
				gcp_async<4>(&st[s].es, es + t);
				st[s].t = t;
			} else if (lane == 1) {
				gcp_async<4>(&st[s].lse, lse + r);
			} else if (lane == 2) {
				gcp_async<4>(&st[s].D, dd + r);
			} else if (lane < 3 + VPL) {
				gcp_async<16>(&st[s].sg[lane - 3], reinterpret_cast<const uint4*>(esign) + t * VPL + (lane - 3));
			}
		};
		const int m = end - beg;
#pragma unroll
		for (int k = 0; k < P - 1; k++) {
			if (k < m) issue(beg + k, k);
			cp_async_commit();
		}
		for (int k = 0; k < m; k++) {
			if (k + P - 1 < m) issue(beg + k + P - 1, (k + P - 1) % P);
			cp_async_commit();
			cp_async_wait<P - 1>(); // edge k's copies (this lane's) have landed
			__syncwarp();      // and every lane's
			const gcp_stage<T, VPL>& s = st[k % P];
			float4 go[VPL];
			gatv2_signs_t<VPL, true> sg;
			gcp_lane_row<VPL, W>(go, s.row, lane);
#pragma unroll
			for (int i = 0; i < VPL; i++) sg.words(i, s.sg[i]);
			const long long t = s.t;
			const float sc = s.es - s.lse, D = s.D;
			__syncwarp(); // the stage is read: the next step may refill it
			gatv2_srce_edge<G, VPL, true>(go, q, sc, D, t, sg, pdrop, keep, seed, slope, lane, dse, dq, w);
		}
		if (!live) continue;
		gatv2_row_done<T, G, VPL, false, W>(att, dxl, heavy != nullptr, item * ldd + h * C, h, C, lane, q, w, dq, da,
		                                        fixedHead, datt);
	}
	if (fixedHead) gatv2_datt_flush<G, VPL, false, W>(datt, hfix, C, H, lane, da, red);
}

// The kernels take the _bal source pass's arguments (cw and pf unused),
// float32 and bfloat16 in the 8-byte layout, and bfloat16 in the wide one
// (_bf16w, after gatv2_fwde_32_2_bf16w_bal).
#define GATV2_SRCECP(SFX, T, W)                                                                                       \
	extern "C" __global__ void __launch_bounds__(256, 3) sm80_gatv2_bwd_srce##SFX##_balcp(                          \
	    const int* tindptr, const int* tindices, ATTN_ROWS, const int* tperm, const T* xl, long long ldl,           \
	    const float* att, const float* lse, const float* dd, const float* es, const unsigned char* esign, float* dse, \
	    const T* dout, T* dxl, long long ldd, float* datt, int n, int H, float slope, float pdrop,                   \
	    unsigned long long seed, int cw, int pf, int red) {                                                           \
		gatv2_bwd_srcecp_body<T, 2, W>(tindptr, tindices, heavy, tiles, nheavy, tile, tperm, xl, ldl, att, lse, dd,    \
		                               es, esign, dse, dout, dxl, ldd, datt, n, H, slope, pdrop, seed, red);            \
	}
GATV2_SRCECP(_32_2, float, false)
GATV2_SRCECP(_32_2_bf16, bf16, false)
GATV2_SRCECP(_32_2_bf16w, bf16, true)
