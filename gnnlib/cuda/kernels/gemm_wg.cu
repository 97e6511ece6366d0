// ---------------------------------------------------------------------------
// gemm_wg.cu: the bfloat16 GEMM on Hopper's warp-group MMA
// (wgmma.mma_async, sm_90a only; tune.GEMMBF16WG), in sm90a.cu's module.
// tune.GEMMBF16Auto's choice on sm_90 where it takes the product; first
// run on an H100 on 2026-12-08 (TestMatMulBF16 passed; BENCHMARKS.md).
//
// sm90_gemm_bf16_wg_nt: C = A·Bᵀ with A m×k and B n×k, both k-contiguous,
// float32 sums, C float32 or bfloat16 (m×n, ldc = n). k a multiple of 8
// and both operands 16-byte aligned (each cp.async copies 16 bytes).
// sm90_gemm_bf16_wg_nn: C = A·B with B k×n read n-contiguous (its
// transpose flag, its tiles in 64-wide halves of 64 k-rows), n a
// multiple of 8 (tune.GEMMBF16WGDirect; not yet run on a GPU).
// sm90_gemm_bf16_wg_tn: C += Aᵀ·B with A k×m and B k×n (m- and
// n-contiguous: the operands' transpose flags, tiles as above), m and n
// multiples of 8, k split over blockIdx.z
// and the parts added into float32 C with atomics (weight gradients).
// - Block tile 128×128, one tile a block; two warp groups of 128 threads,
//   each multiplying its 64 rows by the tile's 128 columns with
//   wgmma.m64n128k16 (64 float32 sums a thread).
// - k-steps of 64: a tile row is 128 bytes, stored in the 128-byte swizzle
//   the wgmma shared-memory descriptors read (16-byte chunk c of row r at
//   r·128 + (c ^ r mod 8)·16, in 1024-byte aligned groups of 8 rows); the
//   four k16 slices of a step start 32 bytes apart (k-contiguous rows) or
//   2048 bytes (16 k-rows of the m- or n-contiguous halves).
// - WG_STAGES cp.async stages in dynamic shared memory (32 KB each, two
//   blocks an SM); each thread fences its copies for the async proxy
//   before the barrier after which the warp groups' wgmmas read them.
// - The epilogue turns each quad's accumulator pairs (the m64nNk16 D
//   fragment: warp w of a group rows 16w + lane/4 and + 8, columns
//   8j + 2·(lane mod 4) and + 1 of each n8 block j) into 8 consecutive
//   columns a lane (gemm_acc.cuh's quad_transpose) for 16-byte stores.
// ---------------------------------------------------------------------------

#include "cpasync.cuh"
#include "gemm_acc.cuh"

#define WG_BM 128
#define WG_BN 128
#define WG_BK 64
#define WG_STAGES 3

// wg_dyn is the kernels' dynamic shared memory: the stages, from its
// first 1024-byte boundary.
extern __shared__ unsigned char wg_dyn[];

// wg_desc is the wgmma shared-memory matrix descriptor of an operand
// tile in the 128-byte swizzle at addr: lbo and sbo, the leading and
// stride byte offsets (k-contiguous tiles: 16, unused, and 1024 between
// groups of 8 rows; m- or n-contiguous ones: the offset between their
// 64-wide halves and 1024 between groups of 8 k-rows), swizzle mode 1.
__device__ __forceinline__ unsigned long long wg_desc(unsigned addr, unsigned lbo, unsigned sbo) {
	return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
	       ((unsigned long long)(sbo >> 4) << 32) | (1ull << 62);
}

// wg_mma is one wgmma.m64n128k16 into d (acc 0: d = A·B), TA and TB the
// operands' transpose flags (1: m- or n-contiguous in shared memory).
template <int TA, int TB>
__device__ __forceinline__ void wg_mma(float (&d)[64], unsigned long long a, unsigned long long b, int acc) {
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
	             "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %67, %68;\n}\n"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
	             : "l"(a), "l"(b), "r"(acc), "n"(TA), "n"(TB));
}

// wg_tile_load copies rows r0.. of a k-contiguous matrix (ld halves a row,
// lim rows) at k-step k0 into a 128-row swizzled tile: chunk c (8 halves)
// of row r at byte r*128 + ((c ^ (r & 7)) * 16).
__device__ __forceinline__ void wg_tile_load(unsigned s, const unsigned short* __restrict__ g, long long ld, int r0, int lim,
                                             int k0, int k) {
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const int c = threadIdx.x + i * 256, r = c >> 3, kc = c & 7;
		const bool ok = r0 + r < lim && k0 + kc * 8 < k;
		const unsigned short* p = ok ? g + (long long)(r0 + r) * ld + k0 + kc * 8 : g;
		cp_async<8>(s + r * 128 + ((kc ^ (r & 7)) << 4), p, ok);
	}
}

// wg_tile_load_mn copies columns c0.. (lim of them, a multiple of 8) of
// k-rows k0 .. k0+63 (before kend) of an m- or n-contiguous matrix (ld
// halves a k-row) into a tile of two 64-wide halves of 64 k-rows of 128
// bytes each: chunk c (8 columns) of k-row r of half h at byte
// h·8192 + r·128 + ((c ^ (r & 7)) · 16).
__device__ __forceinline__ void wg_tile_load_mn(unsigned s, const unsigned short* __restrict__ g, long long ld, int c0, int lim,
                                                int k0, int kend) {
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const int x = threadIdx.x + i * 256, h = x >> 9, r = (x >> 3) & 63, c = x & 7;
		const int col = c0 + h * 64 + c * 8;
		const bool ok = col < lim && k0 + r < kend;
		const unsigned short* p = ok ? g + (long long)(k0 + r) * ld + col : g;
		cp_async<8>(s + h * 8192 + r * 128 + ((c ^ (r & 7)) << 4), p, ok);
	}
}

// wg_store stores a block's 128 x 128 tile of an nt or nn product at (m0,
// n0) from its threads' accumulators: each quad transposes four n8
// blocks' pairs (gemm_quad_store), so that lane t stores 8 consecutive
// columns of block jg + t: one 16-byte store of bfloat16, two of float32.
// The m64n128 D fragment: warp w of a group rows 16w + lane/4 (+8), n8
// block j columns 8j + 2(lane%4) (+1): d[4j], d[4j+1], then row + 8:
// d[4j+2], d[4j+3].
__device__ __forceinline__ void wg_store(void* __restrict__ C, int m, int n, int m0, int n0, const float (&d)[64],
                                            int outBF16) {
	const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3, q = lane & 3;
	const int r0 = m0 + (threadIdx.x >> 7) * 64 + w * 16 + (lane >> 2);
	const bool vec = (reinterpret_cast<unsigned long long>(C) & 15) == 0 && n % (outBF16 ? 8 : 4) == 0;
#pragma unroll
	for (int jg = 0; jg < 16; jg += 4)
#pragma unroll
		for (int h = 0; h < 2; h++)
			gemm_quad_store(C, m, n, r0 + 8 * h, n0 + 8 * (jg + q), q, outBF16, 0, vec,
			                [&](int j, int e) { return d[4 * (jg + j) + 2 * h + e]; });
}

// wg_gemm is the kernels' body: C's tile (blockIdx.y, blockIdx.x) of
// op(A)·op(B). TA false: A m×k, k-contiguous; TA (a tn product): A k×m,
// m-contiguous, each block the k-rows [blockIdx.z·chunk, +chunk) of a
// split sum added into C with atomics. TB false: B n×k, k-contiguous (an
// nt product); TB: B k×n, n-contiguous (nn and tn).
template <bool TA, bool TB>
__device__ __forceinline__ void wg_gemm(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
                                        void* __restrict__ C, int m, int n, int k, int chunk, int outBF16) {
	const unsigned base = (smem_u32(wg_dyn) + 1023) & ~1023u;
	constexpr unsigned TILE = WG_BM * WG_BK * 2, STAGE = 2 * TILE;
	// Descriptor offsets and the step between k16 slices: 32 bytes along a
	// k-contiguous row; two groups of 8 k-rows (2048 bytes) in the
	// m- or n-contiguous halves, 8192 bytes apart.
	constexpr unsigned LBA = TA ? 8192 : 16, KSA = TA ? 2048 : 32;
	constexpr unsigned LBB = TB ? 8192 : 16, KSB = TB ? 2048 : 32, SBO = 1024;
	const int m0 = blockIdx.y * WG_BM, n0 = blockIdx.x * WG_BN;
	const int kb = TA ? blockIdx.z * chunk : 0, ke = TA ? min(k, kb + chunk) : k;
	const int wg = threadIdx.x >> 7;
	const int kt = ke > kb ? (ke - kb + WG_BK - 1) / WG_BK : 0;
	auto load = [&](unsigned s, int step) {
		const int k0 = kb + step * WG_BK;
		if (TA)
			wg_tile_load_mn(s, A, m, m0, m, k0, ke);
		else
			wg_tile_load(s, A, k, m0, m, k0, k);
		if (TB)
			wg_tile_load_mn(s + TILE, B, n, n0, n, k0, ke);
		else
			wg_tile_load(s + TILE, B, k, n0, n, k0, k);
	};
	float d[64];
#pragma unroll
	for (int i = 0; i < 64; i++) d[i] = 0.f;
#pragma unroll
	for (int s = 0; s < WG_STAGES - 1; s++) {
		if (s < kt) load(base + s * STAGE, s);
		cp_async_commit();
	}
	for (int t = 0; t < kt; t++) {
		cp_async_wait<WG_STAGES - 2>();
		asm volatile("fence.proxy.async.shared::cta;\n" ::);
		__syncthreads();
		const int nx = t + WG_STAGES - 1;
		if (nx < kt) load(base + (nx % WG_STAGES) * STAGE, nx);
		cp_async_commit();
		// The warp group's 64 rows of A: rows 64·wg.. of a k-contiguous
		// tile, or its half wg of an m-contiguous one, both 8192 bytes on.
		const unsigned sa = base + (t % WG_STAGES) * STAGE + wg * (TILE / 2), sb = base + (t % WG_STAGES) * STAGE + TILE;
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int ks = 0; ks < WG_BK / 16; ks++)
			wg_mma<TA, TB>(d, wg_desc(sa + ks * KSA, LBA, SBO), wg_desc(sb + ks * KSB, LBB, SBO), t > 0 || ks > 0);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	}
	cp_async_wait<0>();
	if (TA) {
		// The m64n128 fragment as wg_store reads it.
		const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3, q = lane & 3;
		const int r0 = m0 + wg * 64 + w * 16 + (lane >> 2);
		// A split sum: every value added into C (float32, zeroed first).
		if (kt == 0) return;
		float* y = reinterpret_cast<float*>(C);
#pragma unroll
		for (int j = 0; j < 16; j++) {
			const int c = n0 + 8 * j + 2 * q;
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int r = r0 + 8 * h;
				if (r >= m) continue;
				if (c < n) atomicAdd(y + (long long)r * n + c, d[4 * j + 2 * h]);
				if (c + 1 < n) atomicAdd(y + (long long)r * n + c + 1, d[4 * j + 2 * h + 1]);
			}
		}
		return;
	}
	wg_store(C, m, n, m0, n0, d, outBF16);
}

extern "C" __global__ void __launch_bounds__(256, 2) sm90_gemm_bf16_wg_nt(const unsigned short* __restrict__ A,
                                                                          const unsigned short* __restrict__ B,
                                                                          void* __restrict__ C, int m, int n, int k,
                                                                          int outBF16) {
	wg_gemm<false, false>(A, B, C, m, n, k, 0, outBF16);
}

// sm90_gemm_bf16_wg_nn: C = A·B with A m×k and B k×n (n a multiple of 8),
// B read n-contiguous through the transpose flag, with no copy
// (tune.GEMMBF16WGDirect).
extern "C" __global__ void __launch_bounds__(256, 2) sm90_gemm_bf16_wg_nn(const unsigned short* __restrict__ A,
                                                                          const unsigned short* __restrict__ B,
                                                                          void* __restrict__ C, int m, int n, int k,
                                                                          int outBF16) {
	wg_gemm<false, true>(A, B, C, m, n, k, 0, outBF16);
}

// sm90_gemm_bf16_wg_tn: C += Aᵀ·B over k-rows [z·chunk, +chunk), A k×m and
// B k×n (m and n multiples of 8), C float32, zeroed first (a weight
// gradient Xᵀ·dY, k the nodes).
extern "C" __global__ void __launch_bounds__(256, 2) sm90_gemm_bf16_wg_tn(const unsigned short* __restrict__ A,
                                                                          const unsigned short* __restrict__ B,
                                                                          float* __restrict__ C, int m, int n, int k,
                                                                          int chunk) {
	wg_gemm<true, true>(A, B, C, m, n, k, chunk, 0);
}

// sm90_transpose_bf16 writes the rows x cols bfloat16 matrix src (an nn
// product's B, k x n) transposed into dst (cols x rows): 32 x 32 tiles
// through shared memory, blocks of 32 x 8 threads. sm90_gemm_bf16_wg_nt
// takes B n x k.
extern "C" __global__ void sm90_transpose_bf16(const unsigned short* __restrict__ src, unsigned short* __restrict__ dst,
                                               int rows, int cols) {
	__shared__ unsigned short t[32][33];
	const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
	for (int i = threadIdx.y; i < 32; i += blockDim.y) {
		const int r = r0 + i, c = c0 + threadIdx.x;
		if (r < rows && c < cols) t[i][threadIdx.x] = src[(long long)r * cols + c];
	}
	__syncthreads();
	for (int i = threadIdx.y; i < 32; i += blockDim.y) {
		const int c = c0 + i, r = r0 + threadIdx.x;
		if (c < cols && r < rows) dst[(long long)c * rows + r] = t[threadIdx.x][i];
	}
}
