// ---------------------------------------------------------------------------
// gemm_bf16.cu: C = op(A)·op(B) on the tensor cores, bfloat16 operands and
// float32 accumulation (mma.sync.m16n8k16, sm_80 and later), C stored as
// float32 or bfloat16. In the sm80 module (sm80.cu), compiled for
// compute_80: the driver loads it only on GPUs of compute capability 8.0
// or more.
//
// One kernel takes the three forms (nn, tn, nt): a 128x128 block tile of
// 8 warps (2x4, each 64x32 = 4x4 mma tiles), k-tiles of 32. Both operands
// go to shared memory with k contiguous (sA[i][p], sB[j][p], rows padded
// by 8 halves so that the fragment reads of a warp hit 32 distinct banks);
// an operand whose rows run along m or n in global memory (tn's A, nn's and
// tn's B) is read 8 halves at a time along its contiguous dimension and
// scattered into place. The next k-tile is read into registers while the
// current one is multiplied. Split-K (gridDim.z > 1) adds float32 partial
// sums into C atomically (C zeroed first).
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"
#include "gemm_acc.cuh"
#include "cpasync.cuh"

#define GB_BM 128
#define GB_BN 128
#define GB_BK 32
#define GB_LD (GB_BK + 8)

// fetch8 returns the 8 halves of row r, columns c..c+7, of a rows x cols
// matrix with leading dimension ld, zero outside it; one 16-byte load when
// vec (ld a multiple of 8, 16-byte aligned base) and the 8 lie inside.
__device__ __forceinline__ uint4 fetch8(const unsigned short* __restrict__ src, long long ld, int rows, int cols,
                                        int r, int c, int vec) {
	if (vec && r < rows && c + 8 <= cols) return __ldg(reinterpret_cast<const uint4*>(src + (long long)r * ld + c));
	uint4 out;
	unsigned short* o = reinterpret_cast<unsigned short*>(&out);
#pragma unroll
	for (int j = 0; j < 8; j++) o[j] = (r < rows && c + j < cols) ? src[(long long)r * ld + c + j] : (unsigned short)0;
	return out;
}

// trans_p and trans_c place vector v (0..511) of a transposed tile (32
// k-rows of 128 halves) at k-row p, columns c..c+7: the two lanes of a
// pair read 32 contiguous bytes of one row (a whole sector) and a warp
// covers 16 rows, so that its scattered 2-byte stores into sm[c+j][p]
// fall in distinct banks but for the pair (2-way) — with 16 lanes on one
// row, as a row-major order would have, all 16 hit one bank.
__device__ __forceinline__ int trans_p(int v) { return (v >> 1) & 31; }
__device__ __forceinline__ int trans_c(int v) { return ((v >> 6) * 2 + (v & 1)) * 8; }

// stage holds one thread's share (2 x 8 halves) of a k-tile of A or B.
struct stage {
	uint4 v[2];
};

// load_tile reads this thread's share of a 128 x 32 tile. direct: the
// tile's 128 rows are rows of src (k along columns, from kc); otherwise
// its 32 k-rows are rows of src (from kc) and the 128 along columns.
__device__ __forceinline__ stage load_tile(const unsigned short* __restrict__ src, long long ld, int direct,
                                           int lim, int kend, int r0, int kc, int vec) {
	stage s;
#pragma unroll
	for (int q = 0; q < 2; q++) {
		int v = threadIdx.x + q * 256;
		if (direct) {
			s.v[q] = fetch8(src, ld, lim, kend, r0 + (v >> 2), kc + (v & 3) * 8, vec);
		} else {
			s.v[q] = fetch8(src, ld, kend, lim, kc + trans_p(v), r0 + trans_c(v), vec);
		}
	}
	return s;
}

__device__ __forceinline__ void store_tile(unsigned short (*sm)[GB_LD], const stage& s, int direct) {
#pragma unroll
	for (int q = 0; q < 2; q++) {
		int v = threadIdx.x + q * 256;
		if (direct) {
			*reinterpret_cast<uint4*>(&sm[v >> 2][(v & 3) * 8]) = s.v[q];
		} else {
			const unsigned short* o = reinterpret_cast<const unsigned short*>(&s.v[q]);
			int p = trans_p(v), c = trans_c(v);
#pragma unroll
			for (int j = 0; j < 8; j++) sm[c + j][p] = o[j];
		}
	}
}

__device__ __forceinline__ void mma_bf16(float* c, const unsigned int* a, const unsigned int* b) {
	asm volatile(
	    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// sm80_gemm_bf16: C[m,n] = op(A)·op(B). A is m x k (k x m when transA),
// B is k x n (n x k when transB), both bfloat16; C is float32 (outBF16 == 0)
// or bfloat16. Block z sums k in [z*chunk, min(k, (z+1)*chunk)); with
// atomic set the float32 sums are added to C.
extern "C" __global__ void __launch_bounds__(256) sm80_gemm_bf16(
    const unsigned short* __restrict__ A, const unsigned short* __restrict__ B, void* __restrict__ C, int m, int n,
    int k, int transA, int transB, int chunk, int atomic, int outBF16, int vecA, int vecB) {
	__shared__ __align__(16) unsigned short sA[GB_BM][GB_LD];
	__shared__ __align__(16) unsigned short sB[GB_BN][GB_LD];
	const int m0 = blockIdx.y * GB_BM, n0 = blockIdx.x * GB_BN;
	const int kbeg = blockIdx.z * chunk, kend = min(k, kbeg + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
	// A is direct (rows along m) unless transposed; B is direct (rows
	// along n) only when transposed.
	const int dirA = !transA, dirB = transB;
	const long long lda = transA ? m : k, ldb = transB ? k : n;

	float acc[4][4][4];
	gemm_acc_zero(acc);

	stage ra = load_tile(A, lda, dirA, m, kend, m0, kbeg, vecA);
	stage rb = load_tile(B, ldb, dirB, n, kend, n0, kbeg, vecB);
	for (int kc = kbeg; kc < kend; kc += GB_BK) {
		__syncthreads();
		store_tile(sA, ra, dirA);
		store_tile(sB, rb, dirB);
		__syncthreads();
		if (kc + GB_BK < kend) {
			ra = load_tile(A, lda, dirA, m, kend, m0, kc + GB_BK, vecA);
			rb = load_tile(B, ldb, dirB, n, kend, n0, kc + GB_BK, vecB);
		}
#pragma unroll
		for (int ks = 0; ks < GB_BK; ks += 16) {
			unsigned int af[4][4], bfr[4][2];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				int r = wm + i * 16 + g;
				af[i][0] = *reinterpret_cast<const unsigned int*>(&sA[r][ks + t * 2]);
				af[i][1] = *reinterpret_cast<const unsigned int*>(&sA[r + 8][ks + t * 2]);
				af[i][2] = *reinterpret_cast<const unsigned int*>(&sA[r][ks + t * 2 + 8]);
				af[i][3] = *reinterpret_cast<const unsigned int*>(&sA[r + 8][ks + t * 2 + 8]);
			}
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int c = wn + j * 8 + g;
				bfr[j][0] = *reinterpret_cast<const unsigned int*>(&sB[c][ks + t * 2]);
				bfr[j][1] = *reinterpret_cast<const unsigned int*>(&sB[c][ks + t * 2 + 8]);
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++) mma_bf16(acc[i][j], af[i], bfr[j]);
		}
	}

	gemm_acc_store(C, acc, m, n, m0, n0, wm, wn, g, t, atomic, outBF16);
}

// ---------------------------------------------------------------------------
// sm80_gemm_bf16p_*: the pipelined tensor-core GEMM for the memory-bound
// shapes of a GNN (M in the hundred thousands or millions, K and N 47..512),
// where the old kernel above streams A at a third of the HBM bandwidth.
//
// - Persistent blocks: the grid is a whole number of blocks per SM (2 for
//   the 128-wide tile, 3 for the 64-wide one); block b takes work items b,
//   b+grid, ... in turn. An item is one 128 x BN output tile and one chunk
//   of k (split-K); the n tile runs fastest, so the blocks that read the
//   same rows of A run at the same time and share them in L2.
// - A multi-stage cp.async pipeline over the block's whole sequence of
//   (item, k-step) pairs: k-steps of 16, up to 5 stages in the 48 KB of
//   static shared memory, so the loads of the next tile are in flight
//   while the current one is multiplied and stored. cp.async copies 16, 8
//   or 4 bytes (the widest the operand's leading dimension and base allow)
//   and zero-fills what lies outside the matrix or the item's k chunk.
// - Each operand is kept in shared memory as it lies in global memory
//   (k contiguous: [rows][16+8]; m or n contiguous: [16][cols+8]); ldmatrix
//   (.trans for the latter) loads the mma fragments; the padding keeps
//   the eight 16-byte rows of each 8x8 matrix in distinct banks.
// - 8 warps, each a 64x32 (BN = 128) or 32x32 (BN = 64) patch of m16n8k16
//   mma.sync with float32 sums.
// - The epilogue transposes each quad's fragments with three shuffles so
//   that a lane holds 8 consecutive columns of one row: one 16-byte store
//   of bfloat16 (two of float32), or atomic float32 adds under split-K.
// ---------------------------------------------------------------------------

#define GP_BM 128

__device__ __forceinline__ void ldsm_x4(unsigned* r, unsigned addr) {
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
	             : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_t(unsigned* r, unsigned addr) {
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
	             : "r"(addr));
}

// gp_off is the shared-memory index (in halves) of the value at row r (m
// or n) and k-row k of one operand's k-step tile of BK k-rows. kmaj
// false: the tile is [ROWS][BK] (k contiguous), kmaj true: [BK][ROWS].
// Padded (SW false): each row padded by 8 halves, so that the eight
// 16-byte rows an ldmatrix reads fall in distinct banks. Swizzled (SW
// true): no padding; the 16-byte chunks of a row are permuted instead
// (for [ROWS][BK], chunk ^ (r / rows a 128-byte line), over the BK/8
// chunks of a row: bit 2 of the row for the 32-byte rows of BK = 16, bits
// 1-2 for BK = 32, bits 0-2 for BK = 64; chunk ^ (k & 7) for [BK][ROWS]),
// which spreads those eight rows over the banks the same way in less
// space, so that shared memory holds more pipeline stages.
template <int ROWS, bool kmaj, bool SW, int BK>
__device__ __forceinline__ int gp_off(int r, int k) {
	static_assert(BK == 16 || BK == 32 || BK == 64, "k-step of 16, 32 or 64");
	if (!kmaj) {
		if (!SW) return r * (BK + 8) + k;
		constexpr int C = BK / 8, RS = BK == 16 ? 2 : BK == 32 ? 1 : 0; // 2^RS rows a 128-byte line
		return r * BK + ((((k >> 3) ^ (r >> RS)) & (C - 1)) << 3) + (k & 7);
	}
	return SW ? k * ROWS + ((((r >> 3) ^ k) & 7) | ((r >> 3) & ~7)) * 8 + (r & 7) : k * (ROWS + 8) + r;
}

// gp_tile_load issues the cp.async copies of one operand's k-step: ROWS
// x BK values (rows along m or n: kmaj false, k contiguous in src) or
// BK x ROWS (kmaj true: k-rows of src), V halves a copy, laid out as
// gp_off says. r0 is the tile's first row (m or n), lim the matrix's
// extent there, k0 the k-step's first k, kend the end of the item's k
// chunk.
template <int ROWS, bool kmaj, bool SW, int BK, int V>
__device__ __forceinline__ void gp_tile_load(unsigned short* s, const unsigned short* __restrict__ src, long long ld,
                                             int r0, int lim, int k0, int kend) {
	constexpr int count = ROWS * BK / V;
	// Up to 4 copies a thread unrolled; more (the big tiles' narrow
	// copies) in a loop, so that the compiler does not keep every copy's
	// address in registers across the main loop.
#pragma unroll(count <= 4 * 256 ? (count + 255) / 256 : 1)
	for (int c0 = 0; c0 < count; c0 += 256) {
		const int c = c0 + threadIdx.x;
		if (count % 256 != 0 && c >= count) break;
		int r, k;
		if (!kmaj) {
			constexpr int per = BK / V;
			r = c / per;
			k = (c % per) * V;
		} else {
			constexpr int per = ROWS / V;
			k = c / per;
			r = (c % per) * V;
		}
		const int gr = r0 + r, gk = k0 + k;
		const bool ok = gr < lim && gk < kend;
		const unsigned short* p = ok ? (kmaj ? src + (long long)gk * ld + gr : src + (long long)gr * ld + gk) : src;
		cp_async<V>(smem_u32(s + gp_off<ROWS, kmaj, SW, BK>(r, k)), p, ok);
	}
}

template <int ROWS, bool kmaj, bool SW, int BK>
__device__ __forceinline__ void gp_tile_load_v(int v, unsigned short* s, const unsigned short* __restrict__ src,
                                               long long ld, int r0, int lim, int k0, int kend) {
	if (v == 8) {
		gp_tile_load<ROWS, kmaj, SW, BK, 8>(s, src, ld, r0, lim, k0, kend);
	} else if (v == 4) {
		gp_tile_load<ROWS, kmaj, SW, BK, 4>(s, src, ld, r0, lim, k0, kend);
	} else {
		gp_tile_load<ROWS, kmaj, SW, BK, 2>(s, src, ld, r0, lim, k0, kend);
	}
}

// gp_decode turns work item w into its tile's first row and column and
// its k chunk.
__device__ __forceinline__ void gp_decode(int w, int mt, int nt, int BN, int chunk, int k, int& m0, int& n0, int& kb,
                                          int& ke) {
	const int nti = w % nt, rest = w / nt;
	m0 = (rest % mt) * GP_BM;
	n0 = nti * BN;
	kb = (rest / mt) * chunk;
	ke = min(k, kb + chunk);
}

// gp_panel_load issues the cp.async copies of a block's whole k x BN
// slice of B (kr rows of k, a multiple of the k-step, zero beyond k and n),
// padded: TB (B stored n x k) as [BN][KR+8], else [kr][BN+8], V halves a
// copy.
template <bool TB, int BN, int KR, int V>
__device__ __forceinline__ void gp_panel_load(unsigned short* p, const unsigned short* __restrict__ B, long long ldb,
                                              int n0, int n, int k, int kr) {
	const int per = TB ? kr / V : BN / V;
	const int count = TB ? BN * per : kr * per;
	for (int c = threadIdx.x; c < count; c += 256) {
		int r, kk, sidx;
		if (TB) {
			r = c / per;
			kk = (c % per) * V;
			sidx = r * (KR + 8) + kk;
		} else {
			kk = c / per;
			r = (c % per) * V;
			sidx = kk * (BN + 8) + r;
		}
		const bool ok = n0 + r < n && kk < k;
		const unsigned short* src = ok ? (TB ? B + (long long)(n0 + r) * ldb + kk : B + (long long)kk * ldb + n0 + r) : B;
		cp_async<V>(smem_u32(p + sidx), src, ok);
	}
}

// gp_cfg is the shared-memory plan of one pipelined kernel (the template
// arguments of gemm_bf16p): the resident panel of B (P_EL halves, KR > 0),
// one stage's A and B tiles (A_EL + B_EL), and S stages, as many as SMEM
// bytes hold, at most SMAX. EL is all of it, in halves.
template <bool TA, bool TB, int BN, bool SW, int KR, int BK, int SMEM, int SMAX>
struct gp_cfg {
	static constexpr bool BRES = KR > 0;
	static constexpr int P_EL = !BRES ? 0 : TB ? BN * (KR + 8) : KR * (BN + 8);
	static constexpr int A_EL = SW ? GP_BM * BK : TA ? BK * (GP_BM + 8) : GP_BM * (BK + 8);
	static constexpr int B_EL = BRES ? 0 : SW ? BN * BK : TB ? BN * (BK + 8) : BK * (BN + 8);
	static constexpr int ST_EL = A_EL + B_EL;
	static constexpr int S0 = (SMEM - 2 * P_EL) / (ST_EL * 2);
	static constexpr int S = S0 > SMAX ? SMAX : S0;
	static constexpr int EL = P_EL + S * ST_EL;
	static_assert(S >= 2, "room for two pipeline stages");
	static_assert(2 * EL <= SMEM, "the plan fits its budget");
	static_assert(!BRES || KR % BK == 0, "the panel holds whole k-steps");
};

// sm80_gemm_bf16p: C[m,n] = op(A)·op(B) (TA: A stored k x m; TB: B stored
// n x k), C float32 (outBF16 0; atomic: add into it) or bfloat16, ldc = n;
// B's leading dimension is ldb when positive (a padded copy), else its
// width.
// vA, vB: halves a cp.async copies (8, 4 or 2); vecC: C's rows allow
// 16-byte stores. items = mt*nt*split, chunk a multiple of BK.
// The block tile is GP_BM x BN, of 8 warps each (GP_BM/WM) x WNC; k-steps
// of BK; sm is the kernel's shared memory (gp_cfg's EL halves, static or
// dynamic).
template <bool TA, bool TB, int BN, bool SW, int KR, int WNC, int BK, int SMEM, int SMAX>
__device__ __forceinline__ void gemm_bf16p(unsigned short* __restrict__ sm, const unsigned short* __restrict__ A,
                                           const unsigned short* __restrict__ B, void* __restrict__ C, int m, int n,
                                           int k, int chunk, int split, int atomic, int outBF16, int vA, int vB,
                                           int vecC, int ldbArg) {
	// KR > 0: B resident, a panel of up to KR k-rows loaded once (the
	// block's n tile is the same for all its items; no split-K).
	using cfg = gp_cfg<TA, TB, BN, SW, KR, BK, SMEM, SMAX>;
	constexpr bool BRES = cfg::BRES;
	constexpr int P_EL = cfg::P_EL, A_EL = cfg::A_EL, ST_EL = cfg::ST_EL, S = cfg::S;
	constexpr int WN = BN / WNC, WM = 8 / WN, MI = GP_BM / WM / 16, NJ = WNC / 8;
	static_assert(WN * WM == 8 && MI >= 1 && NJ % 4 == 0, "8 warps, whole m16 tiles, quads of n8 tiles");
	unsigned short* const panel = sm;
	unsigned short* const stages = sm + P_EL;

	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = (warp / WN) * (MI * 16), wn = (warp % WN) * WNC;
	const int mt = (m + GP_BM - 1) / GP_BM, nt = (n + BN - 1) / BN;
	const int nitems = mt * nt * split;
	const int ksteps = chunk / BK;
	const int mine = (int)blockIdx.x < nitems ? (nitems - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;
	const int total = mine * ksteps;
	const long long lda = TA ? m : k, ldb = ldbArg > 0 ? ldbArg : TB ? k : n;

	// The load position: stage ls of the flattened sequence, its item
	// (li-th of this block) and k-step lk.
	int ls = 0, li = 0, lk = 0;
	int lm0, ln0, lkb, lke;
	gp_decode(blockIdx.x, mt, nt, BN, chunk, k, lm0, ln0, lkb, lke);
	if (BRES) {
		if (mine > 0) {
			if (vB == 8) {
				gp_panel_load<TB, BN, KR, 8>(panel, B, ldb, ln0, n, k, chunk);
			} else if (vB == 4) {
				gp_panel_load<TB, BN, KR, 4>(panel, B, ldb, ln0, n, k, chunk);
			} else {
				gp_panel_load<TB, BN, KR, 2>(panel, B, ldb, ln0, n, k, chunk);
			}
		}
		cp_async_commit();
	}
	auto issue = [&]() {
		if (ls < total) {
			unsigned short* sa = stages + (ls % S) * ST_EL;
			unsigned short* sb = sa + A_EL;
			const int k0 = lkb + lk * BK;
			gp_tile_load_v<GP_BM, TA, SW, BK>(vA, sa, A, lda, lm0, m, k0, lke);
			if (!BRES) gp_tile_load_v<BN, !TB, SW, BK>(vB, sb, B, ldb, ln0, n, k0, lke);
			if (++lk == ksteps) {
				lk = 0;
				li++;
				if (ls + 1 < total) gp_decode(blockIdx.x + li * gridDim.x, mt, nt, BN, chunk, k, lm0, ln0, lkb, lke);
			}
		}
		ls++;
		cp_async_commit();
	};
#pragma unroll
	for (int s = 0; s < S - 1; s++) issue();

	float acc[MI][NJ][4];
#pragma unroll
	for (int i = 0; i < MI; i++)
#pragma unroll
		for (int j = 0; j < NJ; j++)
#pragma unroll
			for (int q = 0; q < 4; q++) acc[i][j][q] = 0.f;

	// The compute position: the item's tile and its k-step.
	int ck = 0, ci = 0;
	for (int it = 0; it < total; it++) {
		cp_async_wait<S - 2>();
		__syncthreads();
		issue();
		const unsigned short* sa = stages + (it % S) * ST_EL;
		const unsigned short* sb = sa + A_EL;
		// One 16-deep slice of the k-step at a time: unrolled in the
		// 256-wide tiles (one block an SM, 255 registers a thread), so that
		// the next slice's fragments load while this one multiplies; not
		// in the narrower ones, whose 128 or 80 registers would spill.
#pragma unroll(BN == 256 ? BK / 16 : 1)
		for (int ks = 0; ks < BK; ks += 16) {
			unsigned af[MI][4], bfr[NJ][2];
#pragma unroll
			for (int i = 0; i < MI; i++) {
				const int r = wm + i * 16;
				if (!TA) {
					// lanes 0-15: rows r..r+15 at k 0; 16-31: the same at k 8.
					ldsm_x4(af[i], smem_u32(sa + gp_off<GP_BM, false, SW, BK>(r + (lane & 15), ks + (lane >> 4) * 8)));
				} else {
					// k-rows (lane & 7) + 8*(lane >> 4), m offset 8*((lane >> 3) & 1).
					ldsm_x4_t(af[i], smem_u32(sa + gp_off<GP_BM, true, SW, BK>(r + ((lane >> 3) & 1) * 8,
					                                                         ks + (lane & 7) + (lane >> 4) * 8)));
				}
			}
#pragma unroll
			for (int j = 0; j < NJ; j += 2) {
				unsigned q[4];
				const int c = wn + j * 8;
				const int kk = ck * BK + ks; // the k-row in the panel
				if (BRES && TB) {
					ldsm_x4(q, smem_u32(panel + (c + (lane & 7) + (lane >> 4) * 8) * (KR + 8) + kk + ((lane >> 3) & 1) * 8));
				} else if (BRES) {
					ldsm_x4_t(q, smem_u32(panel + (kk + (lane & 7) + ((lane >> 3) & 1) * 8) * (BN + 8) + c + (lane >> 4) * 8));
				} else if (TB) {
					// n rows (lane & 7) + 8*(lane >> 4), k offset 8*((lane >> 3) & 1).
					ldsm_x4(q, smem_u32(sb + gp_off<BN, false, SW, BK>(c + (lane & 7) + (lane >> 4) * 8,
					                                                   ks + ((lane >> 3) & 1) * 8)));
				} else {
					// k-rows (lane & 7) + 8*((lane >> 3) & 1), n offset 8*(lane >> 4).
					ldsm_x4_t(q, smem_u32(sb + gp_off<BN, true, SW, BK>(c + (lane >> 4) * 8,
					                                                    ks + (lane & 7) + ((lane >> 3) & 1) * 8)));
				}
				bfr[j][0] = q[0];
				bfr[j][1] = q[1];
				bfr[j + 1][0] = q[2];
				bfr[j + 1][1] = q[3];
			}
#pragma unroll
			for (int i = 0; i < MI; i++)
#pragma unroll
				for (int j = 0; j < NJ; j++) mma_bf16(acc[i][j], af[i], bfr[j]);
		}

		if (++ck < ksteps) continue;
		// The item's last k-step: store its tile.
		ck = 0;
		int m0, n0, kb, ke;
		gp_decode(blockIdx.x + ci * gridDim.x, mt, nt, BN, chunk, k, m0, n0, kb, ke);
		ci++;
#pragma unroll
		for (int jg = 0; jg < NJ; jg += 4) {
			const int c = n0 + wn + jg * 8 + t * 8; // this lane's 8 columns after the transpose
#pragma unroll
			for (int i = 0; i < MI; i++) {
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const int r = m0 + wm + i * 16 + g + h * 8;
					gemm_quad_store(C, m, n, r, c, t, outBF16, atomic, vecC,
					                [&](int j, int e) { return acc[i][jg + j][2 * h + e]; });
				}
			}
		}
#pragma unroll
		for (int i = 0; i < MI; i++)
#pragma unroll
			for (int j = 0; j < NJ; j++)
#pragma unroll
				for (int q = 0; q < 4; q++) acc[i][j][q] = 0.f;
	}
	cp_async_wait<0>();
}

#define GP_ARGS                                                                                                        \
	const unsigned short *__restrict__ A, const unsigned short *__restrict__ B, void *__restrict__ C, int m, int n, int k, \
	    int chunk, int split, int atomic, int outBF16, int vA, int vB, int vecC, int ldb
#define GP_PASS A, B, C, m, n, k, chunk, split, atomic, outBF16, vA, vB, vecC, ldb

// The 48 KB kernels: static shared memory, k-steps of 16, warps 32
// columns wide, at most 6 stages.
#define GEMM_BF16P(name, TA, TB, BN, SW, KR, MINB)                                                   \
	extern "C" __global__ void __launch_bounds__(256, MINB) name(GP_ARGS) {                          \
		__shared__ __align__(16) unsigned short sm[gp_cfg<TA, TB, BN, SW, KR, 16, 48000, 6>::EL];     \
		gemm_bf16p<TA, TB, BN, SW, KR, 32, 16, 48000, 6>(sm, GP_PASS);                                \
	}

// Padded stages: sm80_gemm_bf16p_*; swizzled: sm80_gemm_bf16s_*; swizzled
// A stages and B resident (up to 128 k-rows at BN = 128, 224 at 64; nn and
// nt, no split-K): sm80_gemm_bf16r_*.
GEMM_BF16P(sm80_gemm_bf16p_nn_128, false, false, 128, false, 0, 2)
GEMM_BF16P(sm80_gemm_bf16p_tn_128, true, false, 128, false, 0, 2)
GEMM_BF16P(sm80_gemm_bf16p_nt_128, false, true, 128, false, 0, 2)
GEMM_BF16P(sm80_gemm_bf16p_nn_64, false, false, 64, false, 0, 3)
GEMM_BF16P(sm80_gemm_bf16p_tn_64, true, false, 64, false, 0, 3)
GEMM_BF16P(sm80_gemm_bf16p_nt_64, false, true, 64, false, 0, 3)
GEMM_BF16P(sm80_gemm_bf16s_nn_128, false, false, 128, true, 0, 2)
GEMM_BF16P(sm80_gemm_bf16s_tn_128, true, false, 128, true, 0, 2)
GEMM_BF16P(sm80_gemm_bf16s_nt_128, false, true, 128, true, 0, 2)
GEMM_BF16P(sm80_gemm_bf16s_nn_64, false, false, 64, true, 0, 3)
GEMM_BF16P(sm80_gemm_bf16s_tn_64, true, false, 64, true, 0, 3)
GEMM_BF16P(sm80_gemm_bf16s_nt_64, false, true, 64, true, 0, 3)
GEMM_BF16P(sm80_gemm_bf16r_nn_128, false, false, 128, true, 128, 2)
GEMM_BF16P(sm80_gemm_bf16r_nt_128, false, true, 128, true, 128, 2)
GEMM_BF16P(sm80_gemm_bf16r_nn_64, false, false, 64, true, 224, 3)
GEMM_BF16P(sm80_gemm_bf16r_nt_64, false, true, 64, true, 224, 3)

// The dynamic-shared-memory kernels (tune.GEMMBF16Big): swizzled stages,
// SMEM bytes of extern __shared__ memory, which the launch passes (half.go's
// gpBig table repeats these numbers), k-steps of BK.
#define GEMM_BF16D(name, TA, TB, BN, KR, WNC, BK, SMEM, SMAX, MINB)                 \
	extern "C" __global__ void __launch_bounds__(256, MINB) name(GP_ARGS) {         \
		extern __shared__ __align__(16) unsigned short gp_dyn[];                    \
		gemm_bf16p<TA, TB, BN, true, KR, WNC, BK, SMEM, SMAX>(gp_dyn, GP_PASS);      \
	}

// 128 x 256 tiles, one block an SM (warps 64 x 64): a product up to 256
// wide reads A once; 6 stages of 24 KB (160 KB, an A100's limit too), or
// B resident (256 k-rows, 132 KB) and 8 stages of A (200 KB).
GEMM_BF16D(sm80_gemm_bf16d_nn_256, false, false, 256, 0, 64, 32, 163840, 6, 1)
GEMM_BF16D(sm80_gemm_bf16d_tn_256, true, false, 256, 0, 64, 32, 163840, 6, 1)
GEMM_BF16D(sm80_gemm_bf16d_nt_256, false, true, 256, 0, 64, 32, 163840, 6, 1)
GEMM_BF16D(sm80_gemm_bf16dr_nn_256, false, false, 256, 256, 64, 32, 204800, 8, 1)
GEMM_BF16D(sm80_gemm_bf16dr_nt_256, false, true, 256, 256, 64, 32, 204800, 8, 1)
// 128 x 128 tiles, two blocks an SM: 6 stages of 16 KB (96 KB), or B
// resident (256 k-rows, 68 KB) and 4 stages of A (100 KB).
GEMM_BF16D(sm80_gemm_bf16d_nn_128, false, false, 128, 0, 32, 32, 98304, 6, 2)
GEMM_BF16D(sm80_gemm_bf16d_tn_128, true, false, 128, 0, 32, 32, 98304, 6, 2)
GEMM_BF16D(sm80_gemm_bf16d_nt_128, false, true, 128, 0, 32, 32, 98304, 6, 2)
GEMM_BF16D(sm80_gemm_bf16dr_nn_128, false, false, 128, 256, 32, 32, 102400, 4, 2)
GEMM_BF16D(sm80_gemm_bf16dr_nt_128, false, true, 128, 256, 32, 32, 102400, 4, 2)
// 128 x 64 tiles, three blocks an SM: 6 stages of 12 KB (72 KB), or B
// resident (256 k-rows, 36 KB) and 4 stages of A (72 KB).
GEMM_BF16D(sm80_gemm_bf16d_nn_64, false, false, 64, 0, 32, 32, 73728, 6, 3)
GEMM_BF16D(sm80_gemm_bf16d_tn_64, true, false, 64, 0, 32, 32, 73728, 6, 3)
GEMM_BF16D(sm80_gemm_bf16d_nt_64, false, true, 64, 0, 32, 32, 73728, 6, 3)
GEMM_BF16D(sm80_gemm_bf16dr_nn_64, false, false, 64, 256, 32, 32, 73728, 4, 3)
GEMM_BF16D(sm80_gemm_bf16dr_nt_64, false, true, 64, 256, 32, 32, 73728, 4, 3)

// sm80_pad_bf16 copies a rows x cols bfloat16 matrix (leading dimension
// lds) into dst with leading dimension ldd >= cols, zero in the padding:
// the nn GEMM's B when its width is odd (a 47-class layer's weight), whose
// 2-byte aligned rows cp.async cannot copy.
extern "C" __global__ void sm80_pad_bf16(const unsigned short* __restrict__ src, unsigned short* __restrict__ dst,
                                         int rows, int cols, int lds, int ldd) {
	const long long total = (long long)rows * ldd;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long r = i / ldd;
		const int c = (int)(i % ldd);
		dst[i] = c < cols ? src[r * lds + c] : (unsigned short)0;
	}
}
