// ---------------------------------------------------------------------------
// gemm_skinny.cu: the weight gradient C[M,N] (+)= Aᵀ·B of a GNN layer with
// a narrow output (N <= 32) and a long reduction (K = node count): A is
// stored K x M, B is K x N, both row-major (the TN form of gemm.cu).
//
// The 128x128 and 256x64 tiles of gemm2_* leave most of their threads
// idle at N = 16 and give a 1433 x 16 output only 6 blocks, each walking
// all K rows. Here a block owns 32 columns of A (one per lane, so a warp
// reads 128 contiguous bytes of a row of A) and a slice of K (grid.y
// splits K into chunks of kchunk rows): it stages TK rows of B in shared
// memory, its eight warps take every eighth row and keep the N sums of
// their column in registers, then the warps' sums are added in shared
// memory and written (atomic == 0, one K chunk) or added to C by
// atomics (atomic != 0; C zeroed first). NB, the register width, is N
// rounded up to 8, 16 or 32; the columns past N are zeros.
// ---------------------------------------------------------------------------

#include "common.cuh"

#define SKINNY_TK 64

template <int NB>
__device__ void gemm_skinny_tn_body(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                    int M, int N, int K, int kchunk, int atomic) {
	__shared__ __align__(16) float Bs[SKINNY_TK][NB];
	__shared__ float red[8][32][NB + 1];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int m = blockIdx.x * 32 + lane;
	const long long kbeg = (long long)blockIdx.y * kchunk;
	const long long kend = min((long long)K, kbeg + kchunk);

	float acc[NB];
#pragma unroll
	for (int j = 0; j < NB; j++) acc[j] = 0.f;

	for (long long k0 = kbeg; k0 < kend; k0 += SKINNY_TK) {
		const int rows = (int)min((long long)SKINNY_TK, kend - k0);
		// A's values for this thread's rows (warp, warp+8, ...) first, so
		// that the eight loads are in flight together.
		float a[SKINNY_TK / 8];
#pragma unroll
		for (int i = 0; i < SKINNY_TK / 8; i++) {
			const int r = warp + 8 * i;
			a[i] = (r < rows && m < M) ? A[(k0 + r) * M + m] : 0.f;
		}
		__syncthreads(); // the previous chunk's reads of Bs are done
		for (int e = threadIdx.x; e < SKINNY_TK * NB; e += 256) {
			const int r = e / NB, j = e % NB;
			Bs[r][j] = (r < rows && j < N) ? B[(k0 + r) * N + j] : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < SKINNY_TK / 8; i++) {
			const int r = warp + 8 * i;
#pragma unroll
			for (int j = 0; j < NB; j += 4) {
				const float4 b = *reinterpret_cast<const float4*>(&Bs[r][j]);
				acc[j] = fmaf(a[i], b.x, acc[j]);
				acc[j + 1] = fmaf(a[i], b.y, acc[j + 1]);
				acc[j + 2] = fmaf(a[i], b.z, acc[j + 2]);
				acc[j + 3] = fmaf(a[i], b.w, acc[j + 3]);
			}
		}
	}
#pragma unroll
	for (int j = 0; j < NB; j++) red[warp][lane][j] = acc[j];
	__syncthreads();
	for (int o = threadIdx.x; o < 32 * NB; o += 256) {
		const int l = o / NB, j = o % NB;
		const int gm = blockIdx.x * 32 + l;
		if (gm >= M || j >= N) continue;
		float s = 0.f;
#pragma unroll
		for (int w = 0; w < 8; w++) s += red[w][l][j];
		float* c = &C[(long long)gm * N + j];
		if (atomic) atomicAdd(c, s);
		else *c = s;
	}
}

extern "C" __global__ void __launch_bounds__(256) gemm_skinny8_tn(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_skinny_tn_body<8>(A, B, C, M, N, K, kchunk, atomic);
}
extern "C" __global__ void __launch_bounds__(256) gemm_skinny16_tn(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_skinny_tn_body<16>(A, B, C, M, N, K, kchunk, atomic);
}
extern "C" __global__ void __launch_bounds__(256) gemm_skinny32_tn(const float* A, const float* B, float* C, int M, int N, int K, int kchunk, int atomic) {
	gemm_skinny_tn_body<32>(A, B, C, M, N, K, kchunk, atomic);
}
