// ---------------------------------------------------------------------------
// norm.cu: LayerNorm and BatchNorm.
// ---------------------------------------------------------------------------

#include "common.cuh"

// Normalisation layers. LayerNorm normalises rows of D values (one warp per
// row) and keeps each row's mean and 1/std; BatchNorm normalises channels
// of x seen as [N, C, inner] (one block per channel) and keeps each
// channel's. The backward passes recompute x̂ = (x − mean)·invstd.

// layer_norm_fwd: y = gamma·x̂ + beta per row, with mean and invstd saved.
extern "C" __global__ void layer_norm_fwd(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                          float* invstd, long long rows, int D, float eps) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long r = w; r < rows; r += nw) {
		const float* xr = x + r * D;
		double s = 0.0;
		for (int k = lane; k < D; k += WARP) s += xr[k];
		double mu = ops_warp_sumd(s) / D;
		double v = 0.0;
		for (int k = lane; k < D; k += WARP) {
			double d = xr[k] - mu;
			v += d * d;
		}
		v = ops_warp_sumd(v);
		float is = (float)(1.0 / sqrt(v / D + (double)eps));
		float muf = (float)mu;
		for (int k = lane; k < D; k += WARP) y[r * D + k] = gamma[k] * ((xr[k] - muf) * is) + beta[k];
		if (lane == 0) {
			mean[r] = muf;
			invstd[r] = is;
		}
	}
}

// layer_norm_bwd_dx: dx = invstd/D·(D·dy·gamma − Σ dy·gamma − x̂·Σ dy·gamma·x̂)
// per row.
extern "C" __global__ void layer_norm_bwd_dx(const float* x, const float* gamma, const float* mean, const float* invstd,
                                             const float* dy, float* dx, long long rows, int D) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long r = w; r < rows; r += nw) {
		float mu = mean[r], is = invstd[r];
		float s1 = 0.f, s2 = 0.f;
		for (int k = lane; k < D; k += WARP) {
			float dh = dy[r * D + k] * gamma[k];
			s1 += dh;
			s2 += dh * ((x[r * D + k] - mu) * is);
		}
		s1 = ops_warp_sumf(s1);
		s2 = ops_warp_sumf(s2);
		float fd = (float)D;
		for (int k = lane; k < D; k += WARP) {
			float h = (x[r * D + k] - mu) * is;
			dx[r * D + k] = is / fd * (fd * dy[r * D + k] * gamma[k] - s1 - h * s2);
		}
	}
}

// layer_norm_bwd_param: dgamma[c] += Σ_r dy·x̂, dbeta[c] += Σ_r dy (both
// zeroed first); blocks take columns in x and row chunks in y, as col_sum.
extern "C" __global__ void layer_norm_bwd_param(const float* x, const float* mean, const float* invstd, const float* dy,
                                                float* dgamma, float* dbeta, int rows, int D, int chunk) {
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < D; c += gridDim.x * blockDim.x) {
		float sg = 0.f, sb = 0.f;
		for (int r = r0; r < r1; r++) {
			long long q = (long long)r * D + c;
			sg += dy[q] * ((x[q] - mean[r]) * invstd[r]);
			sb += dy[q];
		}
		atomicAdd(&dgamma[c], sg);
		atomicAdd(&dbeta[c], sb);
	}
}

// ops_bn_at is the offset of the i-th value of channel ch in [N, C, inner].
__device__ __forceinline__ long long ops_bn_at(long long i, int ch, int C, long long inner) {
	return ((i / inner) * C + ch) * inner + i % inner;
}

// bn_stats: per channel, mean and invstd = 1/sqrt(var + eps) of the batch
// (train != 0; biased variance), and the running statistics moved by mom
// (unbiased variance); or (train == 0) those of the running statistics.
extern "C" __global__ void bn_stats(const float* x, float* mean, float* invstd, float* rmean, float* rvar, int N, int C,
                                    long long inner, float eps, float mom, int train) {
	long long m = (long long)N * inner;
	for (int ch = blockIdx.x; ch < C; ch += gridDim.x) {
		if (!train) {
			if (threadIdx.x == 0) {
				mean[ch] = rmean[ch];
				invstd[ch] = (float)(1.0 / sqrt((double)rvar[ch] + (double)eps));
			}
			continue;
		}
		double s = 0.0;
		for (long long i = threadIdx.x; i < m; i += blockDim.x) s += x[ops_bn_at(i, ch, C, inner)];
		double mu = ops_block_sum(s) / m;
		double v = 0.0;
		for (long long i = threadIdx.x; i < m; i += blockDim.x) {
			double d = x[ops_bn_at(i, ch, C, inner)] - mu;
			v += d * d;
		}
		v = ops_block_sum(v);
		if (threadIdx.x == 0) {
			double dm = mom;
			mean[ch] = (float)mu;
			invstd[ch] = (float)(1.0 / sqrt(v / m + (double)eps));
			rmean[ch] = (float)((1.0 - dm) * rmean[ch] + dm * mu);
			rvar[ch] = (float)((1.0 - dm) * rvar[ch] + dm * v / (m - 1));
		}
	}
}

// bn_apply: y = gamma·x̂ + beta over the total = N*C*inner values.
extern "C" __global__ void bn_apply(const float* x, const float* mean, const float* invstd, const float* gamma,
                                    const float* beta, float* y, long long total, int C, long long inner) {
	GRID_LOOP(i, total) {
		int ch = (i / inner) % C;
		y[i] = gamma[ch] * ((x[i] - mean[ch]) * invstd[ch]) + beta[ch];
	}
}

// bn_bwd_reduce: dgamma[ch] = Σ dy·x̂ and dbeta[ch] = Σ dy over the channel.
extern "C" __global__ void bn_bwd_reduce(const float* x, const float* dy, const float* mean, const float* invstd,
                                         float* dgamma, float* dbeta, int N, int C, long long inner) {
	long long m = (long long)N * inner;
	for (int ch = blockIdx.x; ch < C; ch += gridDim.x) {
		float mu = mean[ch], is = invstd[ch];
		double sg = 0.0, sb = 0.0;
		for (long long i = threadIdx.x; i < m; i += blockDim.x) {
			long long q = ops_bn_at(i, ch, C, inner);
			sg += (double)(dy[q] * ((x[q] - mu) * is));
			sb += dy[q];
		}
		sg = ops_block_sum(sg);
		sb = ops_block_sum(sb);
		if (threadIdx.x == 0) {
			dgamma[ch] = (float)sg;
			dbeta[ch] = (float)sb;
		}
	}
}

// bn_bwd_dx: dx = gamma·invstd/m·(m·dy − dbeta − x̂·dgamma) with batch
// statistics (train != 0), dy·gamma·invstd with running ones; m = N*inner.
extern "C" __global__ void bn_bwd_dx(const float* x, const float* dy, const float* mean, const float* invstd,
                                     const float* gamma, const float* dgamma, const float* dbeta, float* dx,
                                     long long total, int C, long long inner, float m, int train) {
	GRID_LOOP(i, total) {
		int ch = (i / inner) % C;
		float k0 = gamma[ch] * invstd[ch];
		if (train) {
			float h = (x[i] - mean[ch]) * invstd[ch];
			dx[i] = k0 / m * (m * dy[i] - dbeta[ch] - h * dgamma[ch]);
		} else {
			dx[i] = dy[i] * k0;
		}
	}
}
