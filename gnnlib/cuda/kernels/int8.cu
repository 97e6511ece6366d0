// ---------------------------------------------------------------------------
// int8.cu: INT8 kernels with INT32 accumulation (for gnnlib/quant).
// ---------------------------------------------------------------------------

#include "common.cuh"

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
