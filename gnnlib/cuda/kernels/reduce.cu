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

// The _v4 forms of col_sum, act_backward_colsum and
// act_backward_colsum_unbias, for F a multiple of 4 and 16-byte aligned
// rows. The forms above give a thread one column and walk its rows one
// load after another (a store between them, which may alias the next
// load), so a warp has one 128-byte load in flight and the kernel waits
// on the memory's latency, not its bandwidth. Here a block of 8 warps
// takes 128 columns and a chunk of rows; lane l holds columns c0 = 128·bx
// + 4l .. c0+3 in 16-byte loads, warp w the rows r0+w, r0+w+8, ..., four
// of them a step with every load of the step issued before its stores
// (dx may be g: a step's rows are its own). The warps add their column
// sums in shared memory and make one atomic add a column (colsum4_flush).
// dx (and xo) are the scalar forms' values bit for bit; the sums are of
// the same values in another order. Blocks of 256 threads, grid
// (ceil(F/128), row chunks).
#define COLSUM4_STEP 4

__device__ __forceinline__ void colsum4_flush(float4 s, float* out, int F) {
	__shared__ float4 part[8][WARP];
	part[threadIdx.x / WARP][threadIdx.x % WARP] = s;
	__syncthreads();
	const int c = blockIdx.x * 128 + threadIdx.x;
	if (threadIdx.x < 128 && c < F) {
		float t = 0.f;
#pragma unroll
		for (int w = 0; w < 8; w++) t += reinterpret_cast<const float*>(part[w])[threadIdx.x];
		atomicAdd(&out[c], t);
	}
}

__device__ __forceinline__ void add4(float4& s, float4 v) {
	s.x += v.x;
	s.y += v.y;
	s.z += v.z;
	s.w += v.w;
}

// mask4 is act_backward's mask of g by y, one float4.
__device__ __forceinline__ float4 mask4(float4 g, float4 y, bool masked, float keep) {
	if (!masked) return g;
	return make_float4(g.x * (y.x != 0.f ? keep : 0.f), g.y * (y.y != 0.f ? keep : 0.f), g.z * (y.z != 0.f ? keep : 0.f),
	                   g.w * (y.w != 0.f ? keep : 0.f));
}

// unbias1 is act_backward_colsum_unbias's rebuilt pre-activation of one value.
__device__ __forceinline__ float unbias1(float v, float bb, bool masked, float p) {
	return masked ? (v != 0.f ? v * (1.f - p) - bb : 0.f) : v - bb;
}

extern "C" __global__ void __launch_bounds__(256) col_sum_v4(const float* x, float* out, int rows, int F, int chunk) {
	const int c0 = blockIdx.x * 128 + threadIdx.x % WARP * 4;
	const int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
	if (c0 < F) {
		for (int r = r0 + threadIdx.x / WARP; r < r1; r += 8 * COLSUM4_STEP) {
			float4 v[COLSUM4_STEP];
#pragma unroll
			for (int j = 0; j < COLSUM4_STEP; j++)
				v[j] = r + 8 * j < r1 ? ld4(x + (long long)(r + 8 * j) * F + c0) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
			for (int j = 0; j < COLSUM4_STEP; j++) add4(s, v[j]);
		}
	}
	colsum4_flush(s, out, F);
}

// act_colsum4_body is act_backward_colsum_v4 and, with UNBIAS (b may be
// null), act_backward_colsum_unbias_v4, which also writes the rebuilt
// pre-activation into xo.
template <bool UNBIAS>
__device__ __forceinline__ void act_colsum4_body(const float* y, const float* g, const float* b, float* dx, float* out,
                                                 float* xo, int rows, int F, int chunk, int relu, float p) {
	const float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	const bool masked = relu || p > 0.f;
	const int c0 = blockIdx.x * 128 + threadIdx.x % WARP * 4;
	const int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
	float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
	if (c0 < F) {
		const float4 bb = UNBIAS && b ? ld4(b + c0) : make_float4(0.f, 0.f, 0.f, 0.f);
		for (int r = r0 + threadIdx.x / WARP; r < r1; r += 8 * COLSUM4_STEP) {
			float4 yv[COLSUM4_STEP], gv[COLSUM4_STEP];
#pragma unroll
			for (int j = 0; j < COLSUM4_STEP; j++) {
				if (r + 8 * j < r1) {
					const long long i = (long long)(r + 8 * j) * F + c0;
					yv[j] = ld4(y + i);
					gv[j] = ld4(g + i);
				}
			}
#pragma unroll
			for (int j = 0; j < COLSUM4_STEP; j++) {
				if (r + 8 * j < r1) {
					const long long i = (long long)(r + 8 * j) * F + c0;
					const float4 v = mask4(gv[j], yv[j], masked, keep);
					st4(dx + i, v);
					add4(s, v);
					if (UNBIAS)
						st4(xo + i, make_float4(unbias1(yv[j].x, bb.x, masked, p), unbias1(yv[j].y, bb.y, masked, p),
						                        unbias1(yv[j].z, bb.z, masked, p), unbias1(yv[j].w, bb.w, masked, p)));
				}
			}
		}
	}
	colsum4_flush(s, out, F);
}

extern "C" __global__ void __launch_bounds__(256) act_backward_colsum_v4(const float* y, const float* g, float* dx, float* out,
                                                                        int rows, int F, int chunk, int relu, float p) {
	act_colsum4_body<false>(y, g, nullptr, dx, out, nullptr, rows, F, chunk, relu, p);
}

extern "C" __global__ void __launch_bounds__(256) act_backward_colsum_unbias_v4(const float* y, const float* g, const float* b,
                                                                               float* dx, float* out, float* xo, int rows,
                                                                               int F, int chunk, int relu, float p) {
	act_colsum4_body<true>(y, g, b, dx, out, xo, rows, F, chunk, relu, p);
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
