// ---------------------------------------------------------------------------
// reduce.cu: reductions: column sums (with the fused activation
// gradient), the full sum, and along an axis softmax, sums and
// arg-extrema, and rows gathered and scatter-added by index.
//
// An op along an axis sees its operand as [outer, n, inner] around that
// axis: a "line" is the n values x[o, 0..n, i], inner apart, and there are
// outer*inner lines; line j starts at (j / inner) * n * inner + j % inner.
// Reductions accumulate in double, as the CPU reference does, unless noted.
// ---------------------------------------------------------------------------

#include "common.cuh"

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

// act_backward_colsum_unbias is act_backward_colsum that also writes into
// xo the pre-activation unbias_act rebuilds from y = dropout(relu(x + b))
// (y·(1−p) − b where y != 0, 0 elsewhere; y − b without relu and p): a
// layer's backward pass that needs both reads y once. dx may be g; xo is
// neither y nor g.
extern "C" __global__ void act_backward_colsum_unbias(const float* y, const float* g, const float* b, float* dx, float* out,
                                                      float* xo, int rows, int F, int chunk, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < F; c += gridDim.x * blockDim.x) {
		const float bb = b ? b[c] : 0.f;
		float s = 0.f;
		for (int r = r0; r < r1; r++) {
			long long i = (long long)r * F + c;
			const float v = y[i];
			float m = (relu || p > 0.f) ? (v != 0.f ? keep : 0.f) : 1.f;
			float d = g[i] * m;
			dx[i] = d;
			s += d;
			if (relu || p > 0.f) xo[i] = v != 0.f ? v * (1.f - p) - bb : 0.f;
			else xo[i] = v - bb;
		}
		atomicAdd(&out[c], s);
	}
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

// Along an axis: softmax, sums, arg-extrema.

// softmax_lines: y = softmax (logm == 0) or log-softmax of each line, one
// warp per line, the maximum subtracted first (0 when every value is -inf).
extern "C" __global__ void softmax_lines(const float* x, float* y, long long lines, int n, int inner, int logm) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long j = w; j < lines; j += nw) {
		long long base = (j / inner) * (long long)n * inner + j % inner;
		float m = -INFINITY;
		for (int k = lane; k < n; k += WARP) m = fmaxf(m, x[base + (long long)k * inner]);
		for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, o));
		if (m == -INFINITY) m = 0.f;
		float s = 0.f;
		for (int k = lane; k < n; k += WARP) s += expf(x[base + (long long)k * inner] - m);
		s = ops_warp_sumf(s);
		if (logm) {
			float ls = logf(s) + m;
			for (int k = lane; k < n; k += WARP) {
				long long q = base + (long long)k * inner;
				y[q] = x[q] - ls;
			}
		} else {
			float inv = 1.f / s;
			for (int k = lane; k < n; k += WARP) {
				long long q = base + (long long)k * inner;
				y[q] = expf(x[q] - m) * inv;
			}
		}
	}
}

// softmax_lines_bwd: the gradient of softmax_lines' input from its output y
// and the output's gradient g: y·(g − Σ g·y) for softmax, g − e^y·Σ g for
// log-softmax.
extern "C" __global__ void softmax_lines_bwd(const float* g, const float* y, float* dx, long long lines, int n, int inner,
                                             int logm) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long j = w; j < lines; j += nw) {
		long long base = (j / inner) * (long long)n * inner + j % inner;
		float s = 0.f;
		for (int k = lane; k < n; k += WARP) {
			long long q = base + (long long)k * inner;
			s += logm ? g[q] : g[q] * y[q];
		}
		s = ops_warp_sumf(s);
		for (int k = lane; k < n; k += WARP) {
			long long q = base + (long long)k * inner;
			dx[q] = logm ? g[q] - expf(y[q]) * s : y[q] * (g[q] - s);
		}
	}
}

// sum_lines: out[j] = scale * Σ_k x[line j, k], one thread per line.
extern "C" __global__ void sum_lines(const float* x, float* out, long long lines, int n, int inner, float scale) {
	GRID_LOOP(j, lines) {
		long long base = (j / inner) * (long long)n * inner + j % inner;
		float s = 0.f;
		for (int k = 0; k < n; k++) s += x[base + (long long)k * inner];
		out[j] = s * scale;
	}
}

// expand_lines: dx[o, k, i] = scale * g[o, i] for every k < n: the adjoint
// of sum_lines, over the total = outer*n*inner elements of dx.
extern "C" __global__ void expand_lines(const float* g, float* dx, long long total, int n, int inner, float scale) {
	GRID_LOOP(e, total) {
		long long o = e / ((long long)n * inner);
		dx[e] = g[o * inner + e % inner] * scale;
	}
}

// argext_lines: arg[j] = the index of the first maximum (want_max != 0) or
// minimum of line j, one thread per line; a NaN is replaced by the first
// number after it, as the CPU's argReduce does.
extern "C" __global__ void argext_lines(const float* x, int* arg, long long lines, int n, int inner, int want_max) {
	GRID_LOOP(j, lines) {
		long long base = (j / inner) * (long long)n * inner + j % inner;
		float best = x[base];
		int bi = 0;
		for (int k = 1; k < n; k++) {
			float v = x[base + (long long)k * inner];
			if ((want_max && v > best) || (!want_max && v < best) || (best != best && v == v)) {
				best = v;
				bi = k;
			}
		}
		arg[j] = bi;
	}
}

// Rows by index: gather (IndexSelect) and scatter-add (its adjoint), and the

// gather_rows: y[i, :] = x[idx[i], :] for rows of w values.
extern "C" __global__ void gather_rows(const float* x, const int* idx, float* y, long long nidx, long long w) {
	GRID_LOOP(t, nidx * w) {
		long long i = t / w;
		y[t] = x[(long long)idx[i] * w + t % w];
	}
}

// scatter_add_rows: out[idx[i], :] += src[i, :] (out zeroed first; repeated
// indices add atomically, in no fixed order).
extern "C" __global__ void scatter_add_rows(const float* src, const int* idx, float* out, long long nidx, long long w) {
	GRID_LOOP(t, nidx * w) {
		long long i = t / w;
		atomicAdd(&out[(long long)idx[i] * w + t % w], src[t]);
	}
}
