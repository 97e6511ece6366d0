// ---------------------------------------------------------------------------
// conv.cu: axis permutations, and 2-D convolution as im2col + GEMM
// (the GEMM is gemm.cu's) and pooling, over NCHW images.
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "opcodes.cuh"

// permute_nd: y = x with its axes reordered, y in row-major order of its
// shape; meta holds the rank r, y's shape (r ints) and, for each axis of
// y, the stride of the matching axis of x (r ints).
extern "C" __global__ void permute_nd(const float* x, float* y, long long total, const int* meta) {
	const int r = meta[0];
	const int* shape = meta + 1;
	const int* st = meta + 1 + r;
	GRID_LOOP(t, total) {
		long long rem = t, src = 0;
		for (int k = r - 1; k >= 0; k--) {
			src += (rem % shape[k]) * (long long)st[k];
			rem /= shape[k];
		}
		y[t] = x[src];
	}
}

// im2col_rows: the receptive fields of x [N, C, H, W] one row per output
// pixel: cols[(n·OH + oy)·OW + ox, (c·KH + i)·KW + j] = x[n, c, oy·stride −
// pad + i, ox·stride − pad + j], 0 in the padding.
extern "C" __global__ void im2col_rows(const float* x, float* cols, int N, int C, int H, int W, int KH, int KW, int OH,
                                       int OW, int stride, int pad) {
	const long long ckk = (long long)C * KH * KW;
	GRID_LOOP(t, (long long)N * OH * OW * ckk) {
		long long row = t / ckk;
		int col = t % ckk;
		int ox = row % OW, oy = (row / OW) % OH;
		long long n = row / ((long long)OW * OH);
		int j = col % KW, i = (col / KW) % KH, c = col / (KW * KH);
		int y = oy * stride - pad + i, xx = ox * stride - pad + j;
		cols[t] = (y >= 0 && y < H && xx >= 0 && xx < W) ? x[((n * C + c) * H + y) * W + xx] : 0.f;
	}
}

// col2im_rows: im2col_rows' adjoint: dx[n, c, y, x] = the sum of the
// entries of cols that im2col_rows copies from (n, c, y, x), gathered per
// input element (no atomics).
extern "C" __global__ void col2im_rows(const float* cols, float* dx, int N, int C, int H, int W, int KH, int KW, int OH,
                                       int OW, int stride, int pad) {
	const long long ckk = (long long)C * KH * KW;
	GRID_LOOP(t, (long long)N * C * H * W) {
		int xx = t % W, y = (t / W) % H, c = (t / ((long long)W * H)) % C;
		long long n = t / ((long long)W * H * C);
		float s = 0.f;
		for (int i = 0; i < KH; i++) {
			int ty = y + pad - i;
			if (ty < 0 || ty % stride != 0 || ty / stride >= OH) continue;
			for (int j = 0; j < KW; j++) {
				int tx = xx + pad - j;
				if (tx < 0 || tx % stride != 0 || tx / stride >= OW) continue;
				s += cols[((n * OH + ty / stride) * OW + tx / stride) * ckk + (c * KH + i) * KW + j];
			}
		}
		dx[t] = s;
	}
}

// pool2d_fwd: y[plane, oy, ox] = the maximum (op POOL_MAX) or mean
// (POOL_AVG) of x over the K×K window at (oy·stride, ox·stride) of each
// H×W plane; total = planes·OH·OW.
extern "C" __global__ void pool2d_fwd(const float* x, float* y, long long total, int H, int W, int OH, int OW, int K,
                                      int stride, int op) {
	GRID_LOOP(t, total) {
		int ox = t % OW, oy = (t / OW) % OH;
		const float* src = x + (t / ((long long)OW * OH)) * H * W + (long long)oy * stride * W + ox * stride;
		float r = op == POOL_MAX ? src[0] : 0.f;
		for (int i = 0; i < K; i++) {
			for (int j = 0; j < K; j++) {
				float v = src[i * W + j];
				if (op == POOL_MAX) {
					if (v > r) r = v;
				} else {
					r += v;
				}
			}
		}
		y[t] = op == POOL_MAX ? r : r * (1.f / (K * K));
	}
}

// pool2d_bwd: dx (zeroed first) += the gradient g of each window: all of it
// to the window's first maximum in row-major order (POOL_MAX), or 1/K²
// of it to every element (POOL_AVG); overlapping windows add atomically.
extern "C" __global__ void pool2d_bwd(const float* g, const float* x, float* dx, long long total, int H, int W, int OH,
                                      int OW, int K, int stride, int op) {
	GRID_LOOP(t, total) {
		int ox = t % OW, oy = (t / OW) % OH;
		long long off = (t / ((long long)OW * OH)) * H * W + (long long)oy * stride * W + ox * stride;
		if (op == POOL_MAX) {
			float best = x[off];
			long long bi = off;
			for (int i = 0; i < K; i++) {
				for (int j = 0; j < K; j++) {
					long long q = off + (long long)i * W + j;
					if (x[q] > best) {
						best = x[q];
						bi = q;
					}
				}
			}
			atomicAdd(&dx[bi], g[t]);
		} else {
			float v = g[t] * (1.f / (K * K));
			for (int i = 0; i < K; i++) {
				for (int j = 0; j < K; j++) atomicAdd(&dx[off + (long long)i * W + j], v);
			}
		}
	}
}
