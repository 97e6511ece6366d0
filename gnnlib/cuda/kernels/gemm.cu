// ---------------------------------------------------------------------------
// gemm.cu: dense float32 GEMM in three kernel families: gemm_* (the first
// version, kept for comparison), gemm2_* and gemm2k8_* (the second), and
// gemm2n_* (the second's narrow 256x64 tile).
//
// GEMM: C[M,N] (+)= op(A)[M,K] · op(B)[K,N], row-major, 128x128 tiles, 8x8
// per thread. TA: A is stored K x M (lda = M); TB: B is stored N x K. With
// atomic != 0 the tile is added to C by atomics, which split-K uses (grid.z
// splits K into chunks of kchunk); C must then be zeroed first.
// ---------------------------------------------------------------------------

#include "common.cuh"

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
