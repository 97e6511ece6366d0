// gnn.cu holds the device kernels of gnnlib/cuda: dense GEMM, CSR SpMM in two
// thread mappings, the fused GATv2 attention (forward with online softmax,
// backward recomputing attention from a per-node log-sum-exp), degree-aware
// max aggregation, and the element-wise, loss and optimiser kernels a
// training epoch needs.
//
// Conventions: every kernel is extern "C" so that the Go side finds it by
// name; matrices are row-major float32; CSR arrays are int32 (row v's edges
// are indptr[v]..indptr[v+1], indices hold the source nodes); scalar
// parameters are int, long long or float, passed from Go in 8-byte slots.
// Index arithmetic that can exceed 2^31 (row * width on a 2.4M-node graph)
// is done in long long.

#include <cuda_runtime.h>

#define WARP 32
#define FULL 0xffffffffu

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// ---------------------------------------------------------------------------
// GEMM: C[M,N] (+)= op(A)[M,K] · op(B)[K,N], row-major, 128x128 tiles, 8x8
// per thread. TA: A is stored K x M (lda = M); TB: B is stored N x K. With
// atomic != 0 the tile is added to C by atomics, which split-K uses (grid.z
// splits K into chunks of kchunk); C must then be zeroed first.
// ---------------------------------------------------------------------------
#define BM 128
#define BN 128
#define BK 8

template <bool TA, bool TB>
__device__ void gemm_body(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                          int M, int N, int K, int kchunk, int atomic) {
	__shared__ float As[2][BK][BM];
	__shared__ float Bs[2][BK][BN];
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
	const int kbeg = blockIdx.z * kchunk;
	const int kend = min(K, kbeg + kchunk);

	float acc[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++) acc[i][j] = 0.f;

	float ra[4], rb[4];
	auto loadA = [&](int k0) {
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int m, k;
			if (!TA) { m = tid / 2; k = (tid % 2) * 4 + i; }
			else { k = tid / 32; m = (tid % 32) * 4 + i; }
			int gm = m0 + m, gk = k0 + k;
			float v = 0.f;
			if (gm < M && gk < kend) v = TA ? A[(long long)gk * M + gm] : A[(long long)gm * K + gk];
			ra[i] = v;
		}
	};
	auto storeA = [&](int buf) {
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int m, k;
			if (!TA) { m = tid / 2; k = (tid % 2) * 4 + i; }
			else { k = tid / 32; m = (tid % 32) * 4 + i; }
			As[buf][k][m] = ra[i];
		}
	};
	auto loadB = [&](int k0) {
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int n, k;
			if (!TB) { k = tid / 32; n = (tid % 32) * 4 + i; }
			else { n = tid / 2; k = (tid % 2) * 4 + i; }
			int gn = n0 + n, gk = k0 + k;
			float v = 0.f;
			if (gn < N && gk < kend) v = TB ? B[(long long)gn * K + gk] : B[(long long)gk * N + gn];
			rb[i] = v;
		}
	};
	auto storeB = [&](int buf) {
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int n, k;
			if (!TB) { k = tid / 32; n = (tid % 32) * 4 + i; }
			else { n = tid / 2; k = (tid % 2) * 4 + i; }
			Bs[buf][k][n] = rb[i];
		}
	};

	if (kbeg >= kend) return;
	loadA(kbeg);
	loadB(kbeg);
	storeA(0);
	storeB(0);
	__syncthreads();
	int buf = 0;
	for (int k0 = kbeg; k0 < kend; k0 += BK) {
		bool more = k0 + BK < kend;
		if (more) { loadA(k0 + BK); loadB(k0 + BK); }
#pragma unroll
		for (int k = 0; k < BK; k++) {
			float a[8], b[8];
			// Rows ty*4..+4 and 64+ty*4..+4 (columns likewise) keep the
			// shared-memory reads of a warp on distinct banks.
			float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][ty * 4]);
			float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][64 + ty * 4]);
			float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][tx * 4]);
			float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][64 + tx * 4]);
			a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
			a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
			b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
			b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		if (more) {
			storeA(buf ^ 1);
			storeB(buf ^ 1);
		}
		__syncthreads();
		buf ^= 1;
	}
#pragma unroll
	for (int i = 0; i < 8; i++) {
		int gm = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
		if (gm >= M) continue;
#pragma unroll
		for (int j = 0; j < 8; j++) {
			int gn = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
			if (gn >= N) continue;
			float* c = &C[(long long)gm * N + gn];
			if (atomic) atomicAdd(c, acc[i][j]);
			else *c = acc[i][j];
		}
	}
}

extern "C" __global__ void __launch_bounds__(256) gemm_nn(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_body<false, false>(A, B, C, M, N, K, kchunk, atomic);
}
extern "C" __global__ void __launch_bounds__(256) gemm_tn(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_body<true, false>(A, B, C, M, N, K, kchunk, atomic);
}
extern "C" __global__ void __launch_bounds__(256) gemm_nt(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_body<false, true>(A, B, C, M, N, K, kchunk, atomic);
}

// ---------------------------------------------------------------------------
// GEMM, second version (gemm2_*): the same contract as gemm_* above (C[M,N]
// (+)= op(A)·op(B), split-K over grid.z with atomic adds), reworked for
// instruction issue, which is what bounds an FP32 FMA GEMM: every issue slot
// that is not an FFMA is lost FLOP/s. Compared with gemm_*:
//   - BK = 16: one barrier per 16 k-steps (1024 FFMAs a thread) instead of 8
//     (gemm2k8_*: BK = 8, as before, to compare);
//   - tiles move through registers as float4 (BK/8 per operand and thread),
//     prefetched for the next k-tile while the current one is multiplied,
//     into double-buffered shared memory; base pointers are computed once
//     and advanced, so the k-loop has no 64-bit index multiplies;
//   - shared tiles are k-major for both operands (A stored transposed when it
//     arrives with K contiguous), rows padded to 132 floats so that the
//     transposing stores hit at most two ways of a bank and every row stays
//     16-byte aligned for the float4 fragment reads;
//   - a warp covers a 32x64 patch of the 128x128 tile (4 x 8 threads), so a
//     k-step reads 64 bytes of A and 128 of B per warp: one shared-memory
//     wavefront each;
//   - the _v4 entry points take float4 global loads and stores; the Go side
//     uses them only when every contiguous dimension (and kchunk) is a
//     multiple of 4 and the pointers are 16-byte aligned. The plain ones load
//     element by element with bounds checks and serve odd shapes (47-wide).
// __launch_bounds__(256, 2) caps registers at 128 so two blocks share an SM.
// ---------------------------------------------------------------------------
#define G2_BM 128
#define G2_BN 128
#define G2_LD 132

// g2_loader moves one operand's BK x 128 k-tile (BK is the template
// parameter KT, named apart from gemm_*'s BK macro) from global memory into
// BK/8 float4 registers per thread and from there into shared memory
// (k-major).
// KCONTIG: the operand is stored with k contiguous (A in NN and NT, B in NT),
// element (o, k) at X[o*K + k]; otherwise element (k, o) at X[k*O + o].
//
// TO is the tile's outer extent (128; 256 or 64 for the narrow tile) and LD
// its padded shared row length.
template <int KT, bool KCONTIG, bool VEC, int TO = G2_BM, int LD = G2_LD>
struct g2_loader {
	static constexpr int NV = KT * TO / 1024; // float4s per thread
	static constexpr int TPR = KT / 4;        // KCONTIG: threads per row
	static constexpr int RS = 256 / TPR;      // KCONTIG: rows between a thread's float4s
	static constexpr int KR = 1024 / TO;      // !KCONTIG: k rows between a thread's float4s
	static_assert(NV >= 1 && (KCONTIG ? TO == RS * NV : KT == KR * NV), "g2_loader: tile does not split into float4s");
	const float* p; // this thread's first element at the current k-tile
	long long step; // how far p moves per k-tile
	int o, k;       // this thread's first (outer, k) offset inside the tile
	int O, K;       // outer extent (M or N) and the row length along k
	int go;         // global outer index of (o, k)
	float4 r[NV];

	__device__ void init(const float* X, int o0, int kbeg, int O_, int K_, int tid) {
		O = O_;
		K = K_;
		if (KCONTIG) {
			o = tid / TPR;       // rows o, o+RS, ...
			k = (tid % TPR) * 4; // four consecutive k
			go = o0 + o;
			p = X + (long long)go * K + kbeg + k;
			step = KT;
		} else {
			k = tid / (TO / 4);       // k rows k, k+KR, ...
			o = (tid % (TO / 4)) * 4; // four consecutive outer indices
			go = o0 + o;
			p = X + (long long)(kbeg + k) * O + go;
			step = (long long)KT * O;
		}
	}

	// load reads the k-tile starting at k0 (p must point at it); elements
	// outside [0,O) x [.., kend) read as zero.
	__device__ void load(int k0, int kend) {
#pragma unroll
		for (int i = 0; i < NV; i++) {
			if (KCONTIG) {
				int gm = go + RS * i, gk = k0 + k;
				const float* q = p + (long long)RS * i * K;
				if (VEC) {
					r[i] = (gm < O && gk < kend) ? ld4(q) : make_float4(0.f, 0.f, 0.f, 0.f);
				} else {
					bool row = gm < O;
					r[i].x = (row && gk < kend) ? q[0] : 0.f;
					r[i].y = (row && gk + 1 < kend) ? q[1] : 0.f;
					r[i].z = (row && gk + 2 < kend) ? q[2] : 0.f;
					r[i].w = (row && gk + 3 < kend) ? q[3] : 0.f;
				}
			} else {
				int gk = k0 + k + KR * i;
				const float* q = p + (long long)KR * i * O;
				if (VEC) {
					r[i] = (go < O && gk < kend) ? ld4(q) : make_float4(0.f, 0.f, 0.f, 0.f);
				} else {
					bool kk = gk < kend;
					r[i].x = (kk && go < O) ? q[0] : 0.f;
					r[i].y = (kk && go + 1 < O) ? q[1] : 0.f;
					r[i].z = (kk && go + 2 < O) ? q[2] : 0.f;
					r[i].w = (kk && go + 3 < O) ? q[3] : 0.f;
				}
			}
		}
		p += step;
	}

	__device__ void store(float (*S)[LD]) const {
#pragma unroll
		for (int i = 0; i < NV; i++) {
			if (KCONTIG) {
				S[k + 0][o + RS * i] = r[i].x;
				S[k + 1][o + RS * i] = r[i].y;
				S[k + 2][o + RS * i] = r[i].z;
				S[k + 3][o + RS * i] = r[i].w;
			} else {
				st4(&S[k + KR * i][o], r[i]);
			}
		}
	}
};

// gemm2_body multiplies one TBM x TBN output tile, 8x8 outputs per thread
// (256 threads), in two 4-row halves TBM/2 apart and two 4-column halves TBN/2
// apart. The columns are spread over TX = TBN/8 threads, WX = TX/8 warps
// wide: 128x128 puts a warp on a 32x64 patch, the narrow 256x64 tile on a
// 16x64 strip (two halves 128 rows apart), so a k-step reads 64 bytes of A
// and 128 of B per warp in both.
template <int KT, bool TA, bool TB, bool VEC, int TBM = G2_BM, int TBN = G2_BN>
__device__ __forceinline__ void gemm2_body(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                           int M, int N, int K, int kchunk, int atomic) {
	constexpr int LDA = TBM + 4, LDB = TBN + 4; // padded rows, see G2_LD
	constexpr int TX = TBN / 8, WX = TX / 8;
	static_assert(TBM * TBN == 256 * 64 && WX >= 1, "gemm2_body: tile must give 8x8 outputs to each of 256 threads");
	__shared__ __align__(16) float As[2][KT][LDA];
	__shared__ __align__(16) float Bs[2][KT][LDB];
	const int tid = threadIdx.x;
	const int lane = tid % 32, warp = tid / 32;
	// 128x128: warp w covers rows (w/2)*16.. and 64+(w/2)*16.. (4 row
	// groups of 4 threads), columns (w%2)*32.. and 64+(w%2)*32.. (8 column
	// groups); 256x64: rows w*16.. and 128+w*16.., columns 0.. and 32...
	const int ty = (warp / WX) * 4 + lane / 8;
	const int tx = (warp % WX) * 8 + lane % 8;
	const int m0 = blockIdx.y * TBM, n0 = blockIdx.x * TBN;
	const int kbeg = blockIdx.z * kchunk;
	const int kend = min(K, kbeg + kchunk);
	if (kbeg >= kend) return;

	g2_loader<KT, !TA, VEC, TBM, LDA> la;
	g2_loader<KT, TB, VEC, TBN, LDB> lb;
	la.init(A, m0, kbeg, M, K, tid);
	lb.init(B, n0, kbeg, N, K, tid);

	float acc[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++) acc[i][j] = 0.f;

	la.load(kbeg, kend);
	lb.load(kbeg, kend);
	la.store(As[0]);
	lb.store(Bs[0]);
	__syncthreads();
	int buf = 0;
	for (int k0 = kbeg; k0 < kend; k0 += KT) {
		const bool more = k0 + KT < kend;
		if (more) {
			la.load(k0 + KT, kend);
			lb.load(k0 + KT, kend);
		}
#pragma unroll
		for (int k = 0; k < KT; k++) {
			float4 a0 = ld4(&As[buf][k][ty * 4]);
			float4 a1 = ld4(&As[buf][k][TBM / 2 + ty * 4]);
			float4 b0 = ld4(&Bs[buf][k][tx * 4]);
			float4 b1 = ld4(&Bs[buf][k][TBN / 2 + tx * 4]);
			const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
			const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		if (more) {
			la.store(As[buf ^ 1]);
			lb.store(Bs[buf ^ 1]);
		}
		__syncthreads();
		buf ^= 1;
	}

#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int gm = m0 + (i < 4 ? ty * 4 + i : TBM / 2 + ty * 4 + i - 4);
		if (gm >= M) continue;
		float* crow = C + (long long)gm * N;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int gn = n0 + h * (TBN / 2) + tx * 4;
			const float* v = &acc[i][h * 4];
			if (atomic) {
#pragma unroll
				for (int j = 0; j < 4; j++)
					if (gn + j < N) atomicAdd(crow + gn + j, v[j]);
			} else if (VEC) {
				if (gn < N) st4(crow + gn, make_float4(v[0], v[1], v[2], v[3]));
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++)
					if (gn + j < N) crow[gn + j] = v[j];
			}
		}
	}
}

// gemm2_* use BK = 16; gemm2k8_* are the same kernel with BK = 8 (one
// float4 per operand and thread in flight, eight registers fewer for the
// compiler to schedule fragment reads ahead with), kept to compare.
#define G2_ENTRY(name, KT, TA, TB, VEC)                                                                          \
	extern "C" __global__ void __launch_bounds__(256, 2)                                                          \
	    name(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {             \
		gemm2_body<KT, TA, TB, VEC>(A, B, C, M, N, K, kchunk, atomic);                                            \
	}
G2_ENTRY(gemm2_nn, 16, false, false, false)
G2_ENTRY(gemm2_tn, 16, true, false, false)
G2_ENTRY(gemm2_nt, 16, false, true, false)
G2_ENTRY(gemm2_nn_v4, 16, false, false, true)
G2_ENTRY(gemm2_tn_v4, 16, true, false, true)
G2_ENTRY(gemm2_nt_v4, 16, false, true, true)
G2_ENTRY(gemm2k8_nn, 8, false, false, false)
G2_ENTRY(gemm2k8_tn, 8, true, false, false)
G2_ENTRY(gemm2k8_nt, 8, false, true, false)
G2_ENTRY(gemm2k8_nn_v4, 8, false, false, true)
G2_ENTRY(gemm2k8_tn_v4, 8, true, false, true)
G2_ENTRY(gemm2k8_nt_v4, 8, false, true, true)

// gemm2n_*: the narrow-output tile, 256x64 (BM x BN), for N <= 64 (the
// 47/48-wide class layer of products, where a 128-wide tile leaves 80 of its
// columns idle). Same body, k-tile 16, 8x8 outputs per thread; per k-tile a
// thread loads four float4s of A and one of B (two and two at 128x128), and
// shared memory holds 2x16x260 + 2x16x68 floats (42 KB, under the 48 KB
// static limit), so two blocks still share an SM.
#define G2N_ENTRY(name, TA, TB, VEC)                                                                             \
	extern "C" __global__ void __launch_bounds__(256, 2)                                                          \
	    name(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {             \
		gemm2_body<16, TA, TB, VEC, 256, 64>(A, B, C, M, N, K, kchunk, atomic);                                   \
	}
G2N_ENTRY(gemm2n_nn, false, false, false)
G2N_ENTRY(gemm2n_tn, true, false, false)
G2N_ENTRY(gemm2n_nt, false, true, false)
G2N_ENTRY(gemm2n_nn_v4, false, false, true)
G2N_ENTRY(gemm2n_tn_v4, true, false, true)
G2N_ENTRY(gemm2n_nt_v4, false, true, true)

// hash01 is a counter-based uniform in [0,1): dropout masks are recomputed
// from (seed, index) instead of stored.
__device__ __forceinline__ float hash01(unsigned long long seed, long long i) {
	unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (unsigned long long)(i + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (z >> 40) * (1.0f / 16777216.0f);
}

// bias_act1 is bias_act's formula for one value at flat index i.
__device__ __forceinline__ float bias_act1(float v, int relu, float p, float keep, unsigned long long seed, long long i) {
	if (relu) v = fmaxf(v, 0.f);
	if (p > 0.f) v = hash01(seed, i) < p ? 0.f : v * keep;
	return v;
}

// bias_act4 applies bias_act to the float4 at column group c (columns
// 4c..4c+3) whose first element has flat index i: the fused epilogue of
// spmm_vec4, bit for bit what bias_act computes on SpMM's output.
__device__ __forceinline__ float4 bias_act4(float4 a, const float* __restrict__ b, int c, long long i, int relu, float p,
                                            unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	if (b) {
		float4 bb = __ldg(reinterpret_cast<const float4*>(b) + c);
		a.x += bb.x; a.y += bb.y; a.z += bb.z; a.w += bb.w;
	}
	return make_float4(bias_act1(a.x, relu, p, keep, seed, i), bias_act1(a.y, relu, p, keep, seed, i + 1),
	                   bias_act1(a.z, relu, p, keep, seed, i + 2), bias_act1(a.w, relu, p, keep, seed, i + 3));
}

// drop_keep is the factor attention dropout gives edge-and-head i: 0 with
// probability p, else keep = 1/(1-p); 1 when p is 0. The mask is a function
// of (seed, i), so the backward passes recompute it.
__device__ __forceinline__ float drop_keep(float p, float keep, unsigned long long seed, long long i) {
	return p > 0.f ? (hash01(seed, i) < p ? 0.f : keep) : 1.f;
}

// ---------------------------------------------------------------------------
// SpMM over CSR: y[v,:] = sum_e w[e] * x[indices[e],:] (w == NULL: weight 1).
// ---------------------------------------------------------------------------

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
extern "C" __global__ void spmm_warp(const int* __restrict__ indptr, const int* __restrict__ indices,
                                     const float* __restrict__ w, const float* __restrict__ x,
                                     float* __restrict__ y, int n, int F) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	for (long long v = warp; v < n; v += nwarp) {
		const int beg = indptr[v], end = indptr[v + 1];
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

// ---------------------------------------------------------------------------
// Degree-aware max aggregation: y[v,c] = max over in-edges of x[u,c] (0 for
// an isolated node), arg[v,c] = the winning source (-1 if none). Light rows
// (degree <= tile) are reduced by one lane per feature; heavy rows are cut
// into edge tiles reduced in parallel and combined by a 64-bit atomicMax on
// a packed (ordered value, source) key, then unpacked by agg_max_finish.
// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
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
// ---------------------------------------------------------------------------
__device__ __forceinline__ float lrelu(float z, float slope) { return z > 0.f ? z : slope * z; }
__device__ __forceinline__ float dlrelu(float z, float slope) { return z > 0.f ? 1.f : slope; }

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
template <int G, int VPL>
__device__ __forceinline__ void lane_row(float4 (&x)[VPL], const float* __restrict__ row, int lane) {
#pragma unroll
	for (int i = 0; i < VPL; i++) x[i] = __ldg(reinterpret_cast<const float4*>(row) + i * G + lane);
}

// lane_store writes a lane's share of a row.
template <int G, int VPL>
__device__ __forceinline__ void lane_store(float* row, const float4 (&x)[VPL], int lane) {
#pragma unroll
	for (int i = 0; i < VPL; i++) st4(row + (i * G + lane) * 4, x[i]);
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

template <int G, int VPL>
__device__ void gatv2_fwd_body(const int* __restrict__ indptr, const int* __restrict__ indices, GATV2_X,
                               const float* __restrict__ att, float* __restrict__ out, float* __restrict__ lse,
                               int n, int H, float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = 4 * G * VPL, HC = H * C;
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
		lane_row<G, VPL>(a, att + h * C, lane);
		lane_row<G, VPL>(r, xr + v * ldr + h * C, lane);
		zero4(acc);
		float m = -INFINITY, l = 0.f;
		int beg = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
		// Two edges a step, so that two gathers and their shuffles are in
		// flight at once; an odd last edge goes alone.
		int e = beg;
		for (; e + 1 < end; e += 2) {
			int u0 = __ldg(&indices[e]), u1 = __ldg(&indices[e + 1]);
			float4 q0[VPL], q1[VPL];
			lane_row<G, VPL>(q0, xl + (long long)u0 * ldl + h * C, lane);
			lane_row<G, VPL>(q1, xl + (long long)u1 * ldl + h * C, lane);
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
			lane_row<G, VPL>(q, xl + (long long)u * ldl + h * C, lane);
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
		lane_store<G, VPL>(out + v * HC + h * C, acc, lane);
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
	const int C = 4 * G * VPL;
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
			if ((lane & 1) == 0) esign[t * (C / 8) + (i * G + lane) / 2] = (unsigned char)(nib | hi << 4);
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
template <int G, int VPL, bool SAVE>
__device__ void gatv2_bwd_dst_body(const int* __restrict__ indptr, const int* __restrict__ indices, GATV2_X,
                                   const float* __restrict__ att,
                                   const float* __restrict__ out, const float* __restrict__ lse,
                                   const float* __restrict__ dout, float* __restrict__ dxr, long long ldd,
                                   float* __restrict__ dd, float2* __restrict__ eas,
                                   unsigned char* __restrict__ esign, float* __restrict__ datt, int n, int H,
                                   float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int C = 4 * G * VPL, HC = H * C;
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
		lane_row<G, VPL>(a, att + h * C, lane);
		lane_row<G, VPL>(r, xr + v * ldr + h * C, lane);
		lane_row<G, VPL>(go, dout + v * HC + h * C, lane);
		lane_row<G, VPL>(o, out + v * HC + h * C, lane);
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
			lane_row<G, VPL>(q0, xl + (long long)u0 * ldl + h * C, lane);
			lane_row<G, VPL>(q1, xl + (long long)u1 * ldl + h * C, lane);
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
			lane_row<G, VPL>(q, xl + (long long)u * ldl + h * C, lane);
			float s = lane_score(a, q, r, slope), dalpha = lane_dot(go, q);
			group_sum2<G>(s, dalpha);
			long long t = (long long)e * H + h;
			float k = drop_keep(pdrop, keep, seed, t);
			float alpha = __expf(s - L);
			gatv2_dst_edge<G, VPL, SAVE>(q, r, a, dr, dal, alpha * k, alpha * (k * dalpha - D), t, lane, slope, eas, esign);
		}
		if (!live) continue;
		lane_store<G, VPL>(dxr + v * ldd + h * C, dr, lane);
#pragma unroll
		for (int i = 0; i < VPL; i++) {
			int c = (i * G + lane) * 4;
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
			float* q = datt + hfix * C + c;
			atomicAdd(q, da[i].x); atomicAdd(q + 1, da[i].y); atomicAdd(q + 2, da[i].z); atomicAdd(q + 3, da[i].w);
		}
	}
}

// gatv2_bwd_src_body: for each (u,h), over u's out-edges in the transposed
// CSR (tindices hold the destinations v), recompute alpha and ds and gather
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ lrelu'(z).
template <int G, int VPL>
__device__ void gatv2_bwd_src_body(const int* __restrict__ tindptr, const int* __restrict__ tindices, GATV2_X,
                                   const float* __restrict__ att, const float* __restrict__ lse,
                                   const float* __restrict__ dd, const float* __restrict__ dout,
                                   float* __restrict__ dxl, long long ldd, int n, int H, float slope) {
	const int C = 4 * G * VPL, HC = H * C;
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
		lane_row<G, VPL>(a, att + h * C, lane);
		lane_row<G, VPL>(q, xl + u * ldl + h * C, lane);
		zero4(dq);
		int beg = live ? tindptr[u] : 0, end = live ? tindptr[u + 1] : 0;
		for (int e = beg; e < end; e++) {
			int v = __ldg(&tindices[e]);
			float4 r[VPL], go[VPL];
			lane_row<G, VPL>(r, xr + (long long)v * ldr + h * C, lane);
			lane_row<G, VPL>(go, dout + (long long)v * HC + h * C, lane);
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
		lane_store<G, VPL>(dxl + u * ldd + h * C, dq, lane);
	}
}

// gatv2_bwd_srcs_body: the source pass from the saved edges: for each
// (u,h), over u's out-edges in the transposed CSR (position t is CSR edge
// tperm[t], whose (alpha, ds) and sign bits the SAVE destination pass
// stored),
//   dxl[u,h] = sum_v alpha * dout[v,h] + ds * a ⊙ (z > 0 ? 1 : slope),
// gathering dout's rows and the edges' 40 bytes (at C = 256). No lane
// exchanges anything, so groups need not run in step.
template <int G, int VPL>
__device__ void gatv2_bwd_srcs_body(const int* __restrict__ tindptr, const int* __restrict__ tindices,
                                    const int* __restrict__ tperm, const float2* __restrict__ eas, const unsigned char* __restrict__ esign,
                                    const float* __restrict__ att, const float* __restrict__ dout,
                                    float* __restrict__ dxl, long long ldd, int n, int H, float slope) {
	const int C = 4 * G * VPL, HC = H * C;
	const int lane = threadIdx.x % G;
	const long long total = (long long)n * H;
	const long long ngrp = (long long)gridDim.x * blockDim.x / G;
	for (long long p = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; p < total; p += ngrp) {
		long long u = p / H;
		int h = p % H;
		// a ⊙ lrelu' is a or slope·a per channel: keep both.
		float4 a[VPL], as[VPL], dq[VPL];
		lane_row<G, VPL>(a, att + h * C, lane);
#pragma unroll
		for (int i = 0; i < VPL; i++) as[i] = make_float4(slope * a[i].x, slope * a[i].y, slope * a[i].z, slope * a[i].w);
		zero4(dq);
		int beg = tindptr[u], end = tindptr[u + 1];
		for (int e = beg; e < end; e++) {
			int v = __ldg(&tindices[e]);
			long long t = (long long)__ldg(&tperm[e]) * H + h;
			float2 w = __ldg(&eas[t]);
			float4 go[VPL];
			lane_row<G, VPL>(go, dout + (long long)v * HC + h * C, lane);
#pragma unroll
			for (int i = 0; i < VPL; i++) {
				unsigned b = __ldg(&esign[t * (C / 8) + (i * G + lane) / 2]) >> ((lane & 1) * 4);
				dq[i].x += w.x * go[i].x + w.y * ((b & 1) ? a[i].x : as[i].x);
				dq[i].y += w.x * go[i].y + w.y * ((b & 2) ? a[i].y : as[i].y);
				dq[i].z += w.x * go[i].z + w.y * ((b & 4) ? a[i].z : as[i].z);
				dq[i].w += w.x * go[i].w + w.y * ((b & 8) ? a[i].w : as[i].w);
			}
		}
		lane_store<G, VPL>(dxl + u * ldd + h * C, dq, lane);
	}
}

#define GAT_INST(G, VPL)                                                                                             \
	extern "C" __global__ void gatv2_fwd_##G##_##VPL(const int* indptr, const int* indices, GATV2_X,                \
	                                                 const float* att, float* out, float* lse, int n, int H,        \
	                                                 float slope, float pdrop, unsigned long long seed) {           \
		gatv2_fwd_body<G, VPL>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, n, H, slope, pdrop, seed);         \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_dst_##G##_##VPL(const int* indptr, const int* indices, GATV2_X,            \
	                                                     const float* att, const float* out, const float* lse,      \
	                                                     const float* dout, float* dxr, long long ldd, float* dd,   \
	                                                     float* datt, int n, int H, float slope) {                  \
		gatv2_bwd_dst_body<G, VPL, false>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd, dd,     \
		                                  nullptr, nullptr, datt, n, H, slope, 0.f, 0);                             \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_dsts_##G##_##VPL(const int* indptr, const int* indices,                   \
	                                                      GATV2_X, const float* att, const float* out,              \
	                                                      const float* lse, const float* dout, float* dxr,          \
	                                                      long long ldd, float2* eas, unsigned char* esign,         \
	                                                      float* datt, int n, int H, float slope, float pdrop,      \
	                                                      unsigned long long seed) {                                \
		gatv2_bwd_dst_body<G, VPL, true>(indptr, indices, xl, ldl, xr, ldr, att, out, lse, dout, dxr, ldd,          \
		                                 nullptr, eas, esign, datt, n, H, slope, pdrop, seed);                      \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_src_##G##_##VPL(const int* tindptr, const int* tindices, GATV2_X,          \
	                                                     const float* att, const float* lse, const float* dd,       \
	                                                     const float* dout, float* dxl, long long ldd, int n,       \
	                                                     int H, float slope) {                                      \
		gatv2_bwd_src_body<G, VPL>(tindptr, tindices, xl, ldl, xr, ldr, att, lse, dd, dout, dxl, ldd, n, H, slope); \
	}                                                                                                                \
	extern "C" __global__ void gatv2_bwd_srcs_##G##_##VPL(const int* tindptr, const int* tindices, const int* tperm, \
	                                                      const float2* eas, const unsigned char* esign,            \
	                                                      const float* att, const float* dout, float* dxl,          \
	                                                      long long ldd, int n, int H, float slope) {               \
		gatv2_bwd_srcs_body<G, VPL>(tindptr, tindices, tperm, eas, esign, att, dout, dxl, ldd, n, H, slope);        \
	}

// C = 4*G*VPL: 8 (2,1), 16 (4,1), 32 (8,1), 64 (16,1), 128 (32,1), 256 (32,2), 512 (32,4).
GAT_INST(2, 1)
GAT_INST(4, 1)
GAT_INST(8, 1)
GAT_INST(16, 1)
GAT_INST(32, 1)
GAT_INST(32, 2)
GAT_INST(32, 4)

// ---------------------------------------------------------------------------
// Element-wise, reductions, loss and optimiser.
// ---------------------------------------------------------------------------
#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

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

// bias_act: y[r,c] = dropout(act(x[r,c] + b[c])) with act = relu when relu
// != 0 and dropout probability p (p == 0: none). In place allowed.
extern "C" __global__ void bias_act(const float* x, const float* b, float* y, long long total, int F, int relu,
                                    float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(i, total) y[i] = bias_act1(x[i] + (b ? b[i % F] : 0.f), relu, p, keep, seed, i);
}

// act_backward: the gradient through bias_act given its output y: zero where
// y == 0 (ReLU off or dropped), scaled by 1/(1-p) elsewhere. Valid for relu
// != 0 or p > 0; with neither it copies.
extern "C" __global__ void act_backward(const float* y, const float* g, float* dx, long long total, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	GRID_LOOP(i, total) {
		float m = (relu || p > 0.f) ? (y[i] != 0.f ? keep : 0.f) : 1.f;
		dx[i] = g[i] * m;
	}
}

// col_sum: out[c] += sum_r x[r,c] (out zeroed first); blocks take row chunks.
extern "C" __global__ void col_sum(const float* x, float* out, int rows, int F, int chunk) {
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < F; c += gridDim.x * blockDim.x) {
		float s = 0.f;
		for (int r = r0; r < r1; r++) s += x[(long long)r * F + c];
		atomicAdd(&out[c], s);
	}
}

// act_backward_colsum: act_backward and col_sum in one pass, dx = g masked
// by y and out[c] += sum_r dx[r,c] (out zeroed first); blocks take row
// chunks. In place (dx == g) allowed.
extern "C" __global__ void act_backward_colsum(const float* y, const float* g, float* dx, float* out, int rows, int F,
                                               int chunk, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < F; c += gridDim.x * blockDim.x) {
		float s = 0.f;
		for (int r = r0; r < r1; r++) {
			long long i = (long long)r * F + c;
			float m = (relu || p > 0.f) ? (y[i] != 0.f ? keep : 0.f) : 1.f;
			float v = g[i] * m;
			dx[i] = v;
			s += v;
		}
		atomicAdd(&out[c], s);
	}
}

// softmax_nll: one warp per row of logits (rows x C). For rows with
// label >= 0: loss += -log softmax[label] / count, grad = (softmax -
// onehot) / count; other rows get grad 0. Forward and backward fused.
extern "C" __global__ void softmax_nll(const float* logits, const int* labels, float* grad, float* loss, int rows,
                                       int C, float invCount) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long r = w; r < rows; r += nw) {
		const float* x = logits + r * C;
		float* g = grad + r * C;
		int y = labels[r];
		float m = -INFINITY;
		for (int c = lane; c < C; c += WARP) m = fmaxf(m, x[c]);
		for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, o));
		float s = 0.f;
		for (int c = lane; c < C; c += WARP) s += __expf(x[c] - m);
		for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
		float ls = __logf(s);
		for (int c = lane; c < C; c += WARP) {
			float sm = __expf(x[c] - m - ls);
			g[c] = y >= 0 ? (sm - (c == y ? 1.f : 0.f)) * invCount : 0.f;
		}
		if (lane == 0 && y >= 0) atomicAdd(loss, -(x[y] - m - ls) * invCount);
	}
}

// adam: one Adam step (Kingma & Ba) with bias corrections bc1 = 1-b1^t,
// bc2 = 1-b2^t computed by the caller.
extern "C" __global__ void adam(float* p, const float* g, float* m, float* v, long long total, float lr, float b1,
                                float b2, float eps, float bc1, float bc2) {
	GRID_LOOP(i, total) {
		float gi = g[i];
		float mi = b1 * m[i] + (1.f - b1) * gi;
		float vi = b2 * v[i] + (1.f - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
	}
}

// axpby: y = a*x + b*y.
extern "C" __global__ void axpby(const float* x, float* y, long long total, float a, float b) {
	GRID_LOOP(i, total) y[i] = a * x[i] + b * y[i];
}

// copy_cols: dst[r, doff+c] = src[r, soff+c] for c < width (row strides sF, dF).
extern "C" __global__ void copy_cols(const float* src, float* dst, int rows, int width, int sF, int soff, int dF, int doff) {
	GRID_LOOP(i, (long long)rows * width) {
		long long r = i / width;
		int c = i % width;
		dst[r * dF + doff + c] = src[r * sF + soff + c];
	}
}

// ---------------------------------------------------------------------------
// The tensor API's device ops (gnnlib/tensor's Backend, gnnlib/nn's
// DeviceOps): activations by op code, binary ops with a broadcast row,
// scaling, a full sum, dropout's backward and Adam with weight decay.
// ---------------------------------------------------------------------------

// map_fwd: y = op(x) for op 0 relu, 1 leaky_relu (slope p), 2 elu (alpha
// p), 3 sigmoid, 4 tanh, 5 exp, 6 log, 7 add_scalar (p); the Go side's
// mapOps table lists the same order.
extern "C" __global__ void map_fwd(const float* x, float* y, long long n, int op, float p) {
	GRID_LOOP(i, n) {
		float v = x[i], r;
		switch (op) {
		case 0: r = v > 0.f ? v : 0.f; break;
		case 1: r = v > 0.f ? v : v * p; break;
		case 2: r = v > 0.f ? v : p * expm1f(v); break;
		case 3: r = 1.f / (1.f + expf(-v)); break;
		case 4: r = tanhf(v); break;
		case 5: r = expf(v); break;
		case 6: r = logf(v); break;
		default: r = v + p; break;
		}
		y[i] = r;
	}
}

// map_bwd: dx = g * op'(x), given x and y = op(x); the CPU's conventions
// (relu'(0) = 0).
extern "C" __global__ void map_bwd(const float* g, const float* x, const float* y, float* dx, long long n, int op,
                                   float p) {
	GRID_LOOP(i, n) {
		float gi = g[i], v = x[i], r;
		switch (op) {
		case 0: r = v > 0.f ? gi : 0.f; break;
		case 1: r = v > 0.f ? gi : gi * p; break;
		case 2: r = v > 0.f ? gi : gi * (y[i] + p); break;
		case 3: r = gi * y[i] * (1.f - y[i]); break;
		case 4: r = gi * (1.f - y[i] * y[i]); break;
		case 5: r = gi * y[i]; break;
		case 6: r = gi / v; break;
		default: r = gi; break;
		}
		dx[i] = r;
	}
}

// binary_op: y = a op b for op 0 add, 1 sub, 2 mul; with row != 0, b holds
// F values broadcast over the rows of a (a bias).
extern "C" __global__ void binary_op(const float* a, const float* b, float* y, long long n, int F, int op, int row) {
	GRID_LOOP(i, n) {
		float u = a[i], v = b[row ? i % F : i];
		y[i] = op == 0 ? u + v : (op == 1 ? u - v : u * v);
	}
}

// scale_op: y = (x ? x[i] : 1) * (s ? s[0] : 1) * k: MulScalar, Full, and
// the backward passes that scale by an upstream scalar gradient without
// copying it to the host.
extern "C" __global__ void scale_op(const float* x, const float* s, float* y, long long n, float k) {
	float f = (s ? s[0] : 1.f) * k;
	GRID_LOOP(i, n) y[i] = (x ? x[i] : 1.f) * f;
}

// sum_all: out[0] += sum of x (out zeroed first): a grid-stride partial per
// thread, a block reduction, one atomic per block.
extern "C" __global__ void sum_all(const float* x, float* out, long long n) {
	__shared__ float part[32];
	float s = 0.f;
	GRID_LOOP(i, n) s += x[i];
	for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
	int lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
	if (lane == 0) part[w] = s;
	__syncthreads();
	if (w == 0) {
		s = lane < blockDim.x / WARP ? part[lane] : 0.f;
		for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
		if (lane == 0) atomicAdd(out, s);
	}
}

// dropout_bwd: dx = g through the mask bias_act drew from (seed, index).
extern "C" __global__ void dropout_bwd(const float* g, float* dx, long long n, float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(i, n) dx[i] = hash01(seed, i) < p ? 0.f : g[i] * keep;
}

// adam_wd: gnnlib/nn's Adam.Step (PyTorch's arrangement): with decoupled,
// p *= shrink (AdamW), else g += wd * p; then the moments, and
// p -= step * m / (sqrt(v) / sc2 + eps) with step = lr / (1 - b1^t) and
// sc2 = sqrt(1 - b2^t).
extern "C" __global__ void adam_wd(float* p, const float* g, float* m, float* v, long long n, float step, float b1,
                                   float b2, float eps, float sc2, float wd, float shrink, int decoupled) {
	GRID_LOOP(i, n) {
		float pi = p[i], gi = g[i];
		if (decoupled) {
			pi *= shrink;
		} else {
			gi += wd * pi;
		}
		float mi = b1 * m[i] + (1.f - b1) * gi;
		float vi = b2 * v[i] + (1.f - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] = pi - step * mi / (sqrtf(vi) / sc2 + eps);
	}
}

// ---------------------------------------------------------------------------
// GAT (v1) attention, fused like GATv2's: per destination v and head k the
// logits lrelu(as[u,k] + ad[v,k]) of v's in-edges go through an online
// softmax (running max and sum in registers) and weight h[u,k,:]. One warp
// per (v, k), lanes over the head's F channels (at most GAT_CPL per lane,
// so F <= 256). Only out and one log-sum-exp per (v, k) are stored; the
// backward passes recompute the attention from it.
// ---------------------------------------------------------------------------
#define GAT_CPL 8

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
	for (int o = WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

extern "C" __global__ void gat_fwd(const int* __restrict__ indptr, const int* __restrict__ indices,
                                   const float* __restrict__ h, const float* __restrict__ as,
                                   const float* __restrict__ ad, float* __restrict__ out, float* __restrict__ lse,
                                   int n, int H, int F, float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	const int HF = H * F;
	for (long long p = warp; p < (long long)n * H; p += nwarp) {
		const long long v = p / H;
		const int k = p % H;
		const int beg = indptr[v], end = indptr[v + 1];
		const float adv = ad[p];
		float m = -INFINITY, s = 0.f;
		float acc[GAT_CPL];
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) acc[j] = 0.f;
		for (int e = beg; e < end; e++) {
			const int u = __ldg(&indices[e]);
			const float z = lrelu(__ldg(&as[(long long)u * H + k]) + adv, slope);
			const float* hu = h + (long long)u * HF + k * F;
			float q;
			if (z > m) {
				// A new maximum rescales what was summed so far.
				const float sc = expf(m - z);
				s = s * sc + 1.f;
#pragma unroll
				for (int j = 0; j < GAT_CPL; j++) acc[j] *= sc;
				m = z;
				q = 1.f;
			} else {
				q = expf(z - m);
				s += q;
			}
			// Attention dropout weighs the edge in the output only.
			q *= drop_keep(pdrop, keep, seed, (long long)e * H + k);
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) acc[j] += q * __ldg(&hu[c]);
			}
		}
		const float inv = s > 0.f ? 1.f / s : 0.f;
		float* o = out + v * HF + k * F;
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			if (c < F) o[c] = acc[j] * inv;
		}
		if (lane == 0) lse[p] = s > 0.f ? m + logf(s) : 0.f;
	}
}

// gat_bwd_dst: per (v, k): D = dout[v,k,:]·out[v,k,:] (stored for the
// source pass) and dad[v,k] = Σ_u dz_vu, where dz = α(dout_v·h_u − D)
// times the LeakyReLU slope of the logit.
extern "C" __global__ void gat_bwd_dst(const int* __restrict__ indptr, const int* __restrict__ indices,
                                       const float* __restrict__ h, const float* __restrict__ as,
                                       const float* __restrict__ ad, const float* __restrict__ out,
                                       const float* __restrict__ lse, const float* __restrict__ dout,
                                       float* __restrict__ dd, float* __restrict__ dad, int n, int H, int F,
                                       float slope, float pdrop, unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	const int HF = H * F;
	for (long long p = warp; p < (long long)n * H; p += nwarp) {
		const long long v = p / H;
		const int k = p % H;
		float go[GAT_CPL];
		float D = 0.f;
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			go[j] = c < F ? dout[v * HF + k * F + c] : 0.f;
			if (c < F) D += go[j] * out[v * HF + k * F + c];
		}
		D = warp_sum(D);
		const float L = lse[p], adv = ad[p];
		float dsum = 0.f;
		for (int e = indptr[v]; e < indptr[v + 1]; e++) {
			const int u = __ldg(&indices[e]);
			const float z0 = __ldg(&as[(long long)u * H + k]) + adv;
			const float* hu = h + (long long)u * HF + k * F;
			float dot = 0.f;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				if (c < F) dot += go[j] * __ldg(&hu[c]);
			}
			dot = warp_sum(dot);
			const float alpha = expf(lrelu(z0, slope) - L);
			const float kd = drop_keep(pdrop, keep, seed, (long long)e * H + k);
			dsum += alpha * (kd * dot - D) * dlrelu(z0, slope);
		}
		if (lane == 0) {
			dd[p] = D;
			dad[p] = dsum;
		}
	}
}

// gat_bwd_src: per (u, k), over u's out-edges in the transposed CSR
// (tindices hold the destinations): dh[u,k,:] = Σ_v α_vu dout[v,k,:] and
// das[u,k] = Σ_v dz_vu, recomputing α and dz from lse and D (and, with
// attention dropout, the edge's factor from the CSR edge tperm[e]).
extern "C" __global__ void gat_bwd_src(const int* __restrict__ tindptr, const int* __restrict__ tindices,
                                       const float* __restrict__ h, const float* __restrict__ as,
                                       const float* __restrict__ ad, const float* __restrict__ lse,
                                       const float* __restrict__ dd, const float* __restrict__ dout,
                                       float* __restrict__ dh, float* __restrict__ das, int nsrc, int H, int F,
                                       float slope, const int* __restrict__ tperm, float pdrop,
                                       unsigned long long seed) {
	const float keep = pdrop > 0.f ? 1.f / (1.f - pdrop) : 1.f;
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	const int HF = H * F;
	for (long long p = warp; p < (long long)nsrc * H; p += nwarp) {
		const long long u = p / H;
		const int k = p % H;
		float hu[GAT_CPL], acc[GAT_CPL];
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			hu[j] = c < F ? h[u * HF + k * F + c] : 0.f;
			acc[j] = 0.f;
		}
		const float asu = as[p];
		float dsum = 0.f;
		for (int e = tindptr[u]; e < tindptr[u + 1]; e++) {
			const long long v = __ldg(&tindices[e]);
			const long long q = v * H + k;
			const float z0 = asu + __ldg(&ad[q]);
			const float alpha = expf(lrelu(z0, slope) - __ldg(&lse[q]));
			// The dropout factor is drawn per CSR edge: tperm names it.
			const float kd = pdrop > 0.f ? drop_keep(pdrop, keep, seed, (long long)__ldg(&tperm[e]) * H + k) : 1.f;
			const float* gv = dout + v * HF + k * F;
			float g[GAT_CPL];
			float dot = 0.f;
#pragma unroll
			for (int j = 0; j < GAT_CPL; j++) {
				const int c = lane + j * WARP;
				g[j] = c < F ? __ldg(&gv[c]) : 0.f;
				dot += g[j] * hu[j];
				acc[j] += alpha * kd * g[j];
			}
			dot = warp_sum(dot);
			dsum += alpha * (kd * dot - __ldg(&dd[q])) * dlrelu(z0, slope);
		}
#pragma unroll
		for (int j = 0; j < GAT_CPL; j++) {
			const int c = lane + j * WARP;
			if (c < F) dh[u * HF + k * F + c] = acc[j];
		}
		if (lane == 0) das[p] = dsum;
	}
}

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

// unbias_act undoes bias_act in place where it can: from y = dropout(relu(x
// + b)) it rebuilds x wherever y != 0 (y·(1−p) − b) and writes 0 elsewhere;
// without relu and dropout (relu == 0, p == 0) it is exact everywhere. The
// backward passes read the pre-activation only where the activation's
// gradient is non-zero, so a layer can keep one tensor instead of two.
extern "C" __global__ void unbias_act(float* y, const float* b, long long total, int F, int relu, float p) {
	GRID_LOOP(i, total) {
		const float v = y[i];
		const float bb = b ? b[i % F] : 0.f;
		if (relu || p > 0.f) y[i] = v != 0.f ? v * (1.f - p) - bb : 0.f;
		else y[i] = v - bb;
	}
}

// ---------------------------------------------------------------------------
// INT8 kernels with INT32 accumulation (for gnnlib/quant).
// ---------------------------------------------------------------------------

// pack4 reads bytes kb..kb+3 of row `row` of a rows x K int8 matrix into one
// word (byte i = element kb+i), zero past the edges.
__device__ __forceinline__ int pack4(const signed char* __restrict__ X, int row, int rows, int K, int kb) {
	if (row >= rows) return 0;
	const signed char* p = X + (long long)row * K;
	unsigned int r = 0;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const int k = kb + i;
		const unsigned int b = k < K ? (unsigned int)(unsigned char)p[k] : 0u;
		r |= b << (8 * i);
	}
	return (int)r;
}

// gemm_s8: C[M,N] = A[M,K]·B[N,K]ᵀ, int8 inputs (both with K contiguous:
// activations times a weight stored [out, in]) and int32 output, by __dp4a
// on 64x64 tiles, 16x16 threads of 4x4 outputs, K in steps of 32 bytes.
extern "C" __global__ void __launch_bounds__(256) gemm_s8(const signed char* __restrict__ A, const signed char* __restrict__ B,
                                                          int* __restrict__ C, int M, int N, int K) {
	__shared__ int As[64][9];
	__shared__ int Bs[64][9];
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
	const int lr = threadIdx.x / 4, lw = (threadIdx.x % 4) * 2;
	int acc[4][4];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) acc[i][j] = 0;
	for (int k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
		for (int w = 0; w < 2; w++) {
			const int word = lw + w;
			As[lr][word] = pack4(A, m0 + lr, M, K, k0 + word * 4);
			Bs[lr][word] = pack4(B, n0 + lr, N, K, k0 + word * 4);
		}
		__syncthreads();
#pragma unroll
		for (int w = 0; w < 8; w++) {
			int a[4], b[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				a[i] = As[ty + 16 * i][w];
				b[i] = Bs[tx + 16 * i][w];
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++) acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const int gm = m0 + ty + 16 * i;
		if (gm >= M) continue;
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const int gn = n0 + tx + 16 * j;
			if (gn < N) C[(long long)gm * N + gn] = acc[i][j];
		}
	}
}

// spmm_s8: y[v,:] = Σ_{u→v} x[u,:] with int8 rows and int32 sums (the
// aggregation of binary or quantised features), one warp per row.
extern "C" __global__ void spmm_s8(const int* __restrict__ indptr, const int* __restrict__ indices,
                                   const signed char* __restrict__ x, int* __restrict__ y, int n, int F) {
	const int lane = threadIdx.x % WARP;
	const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	const long long nwarp = (long long)gridDim.x * blockDim.x / WARP;
	for (long long v = warp; v < n; v += nwarp) {
		const int beg = indptr[v], end = indptr[v + 1];
		for (int c = lane; c < F; c += WARP) {
			int acc = 0;
			for (int e = beg; e < end; e++) acc += x[(long long)__ldg(&indices[e]) * F + c];
			y[v * F + c] = acc;
		}
	}
}

#include "ops.cu"
