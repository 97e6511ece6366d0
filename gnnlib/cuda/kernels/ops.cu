// ops.cu holds the device kernels of the tensor and nn ops beyond what a
// GCN/GAT training epoch needs (row softmax, gathers and scatters, the
// other losses and optimisers). It is compiled as part of gnn.cu, which
// includes it, into the one PTX module.
//
// Conventions are gnn.cu's (extern "C", row-major float32, long long index
// math, GRID_LOOP for grid-stride loops). An op along an axis sees its
// operand as [outer, n, inner] around that axis: a "line" is the n values
// x[o, 0..n, i], inner apart, and there are outer*inner lines; line j
// starts at (j / inner) * n * inner + j % inner. Reductions accumulate in
// double, as the CPU reference does, unless noted.

// ops_block_sum returns the sum of v over the block to every thread. All
// threads of the block must call it (blockDim.x a multiple of 32, at most
// 1024); it may be called several times in a row.
__device__ double ops_block_sum(double v) {
	__shared__ double part[32];
	__shared__ double total;
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	int lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
	__syncthreads();  // a previous call's readers are done with part and total
	if (lane == 0) part[w] = v;
	__syncthreads();
	if (w == 0) {
		v = lane < blockDim.x / WARP ? part[lane] : 0.0;
		for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
		if (lane == 0) total = v;
	}
	__syncthreads();
	return total;
}

__device__ __forceinline__ float ops_warp_sumf(float v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

__device__ __forceinline__ double ops_warp_sumd(double v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
	return v;
}

__device__ __forceinline__ float ops_sigmoid(float v) {
	// split on the sign so that expf never overflows
	if (v >= 0.f) return 1.f / (1.f + expf(-v));
	float e = expf(v);
	return e / (1.f + e);
}

// ---------------------------------------------------------------------------
// Element-wise ops that map_fwd/map_bwd and binary_op (gnn.cu) lack.
// ---------------------------------------------------------------------------

#define OPS_GELU_K 0.7978845608028654f

// map_ext_fwd: y = op(x) for op 0 gelu (tanh approximation), 1 sqrt, 2 abs,
// 3 square, 4 pow (exponent p); the Go side's mapOps table lists them.
extern "C" __global__ void map_ext_fwd(const float* x, float* y, long long n, int op, float p) {
	GRID_LOOP(i, n) {
		float v = x[i], r;
		switch (op) {
		case 0: r = 0.5f * v * (1.f + tanhf(OPS_GELU_K * (v + 0.044715f * v * v * v))); break;
		case 1: r = sqrtf(v); break;
		case 2: r = fabsf(v); break;
		case 3: r = v * v; break;
		default: r = powf(v, p); break;
		}
		y[i] = r;
	}
}

// map_ext_bwd: dx = g * op'(x) given x and y = op(x), the CPU's conventions
// (abs'(0) = 0).
extern "C" __global__ void map_ext_bwd(const float* g, const float* x, const float* y, float* dx, long long n, int op,
                                       float p) {
	GRID_LOOP(i, n) {
		float gi = g[i], v = x[i], r;
		switch (op) {
		case 0: {
			float th = tanhf(OPS_GELU_K * (v + 0.044715f * v * v * v));
			float d = 0.5f * (1.f + th) + 0.5f * v * (1.f - th * th) * OPS_GELU_K * (1.f + 3.f * 0.044715f * v * v);
			r = gi * d;
			break;
		}
		case 1: r = gi * 0.5f / y[i]; break;
		case 2: r = v > 0.f ? gi : (v < 0.f ? -gi : 0.f); break;
		case 3: r = 2.f * gi * v; break;
		default: r = gi * p * powf(v, p - 1.f); break;
		}
		dx[i] = r;
	}
}

// div_op: y = a / b, b of a's length or (row != 0) F values broadcast over
// the rows of a (F == 1: one value).
extern "C" __global__ void div_op(const float* a, const float* b, float* y, long long n, int F, int row) {
	GRID_LOOP(i, n) y[i] = a[i] / b[row ? i % F : i];
}

// ---------------------------------------------------------------------------
// Along an axis: softmax, sums, arg-extrema.
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Rows by index: gather (IndexSelect) and scatter-add (its adjoint), and the
// gradient of the max aggregation.
// ---------------------------------------------------------------------------

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

// scatter_arg: dx[arg[i], c] += g[i] with c = i % F, for arg[i] >= 0 (dx
// zeroed first): the backward pass of agg_max_* (gnn.cu), whose arg holds
// the winning source of each output element.
extern "C" __global__ void scatter_arg(const int* arg, const float* g, float* dx, long long total, int F) {
	GRID_LOOP(i, total) {
		int u = arg[i];
		if (u >= 0) atomicAdd(&dx[(long long)u * F + i % F], g[i]);
	}
}

// ---------------------------------------------------------------------------
// Losses: the mean loss into loss[0] (zeroed first) and its gradient for a
// unit upstream gradient into grad, fused.
// ---------------------------------------------------------------------------

// elem_loss: op 0 is the mean squared error of x against t, op 1 the mean
// binary cross-entropy of sigmoid(x) against t computed from the logits as
// max(x, 0) − x·t + log(1 + e^−|x|); inv = 1/n.
extern "C" __global__ void elem_loss(const float* x, const float* t, float* grad, float* loss, long long n, int op,
                                     float inv) {
	double s = 0.0;
	GRID_LOOP(i, n) {
		float v = x[i], y = t[i];
		if (op == 0) {
			float d = v - y;
			s += (double)d * d;
			grad[i] = 2.f * inv * d;
		} else {
			double xv = v, tv = y;
			s += fmax(xv, 0.0) - xv * tv + log1p(exp(-fabs(xv)));
			grad[i] = inv * (ops_sigmoid(v) - y);
		}
	}
	s = ops_block_sum(s);
	if (threadIdx.x == 0) atomicAdd(loss, (float)(s * inv));
}

// nll_rows: the mean negative log-likelihood of logp (rows x C) over the
// listed rows, ry holding (row, label) pairs; a row listed twice counts
// twice. grad is zeroed first.
extern "C" __global__ void nll_rows(const float* logp, const int* ry, float* grad, float* loss, long long nrows, int C,
                                    float inv) {
	double s = 0.0;
	GRID_LOOP(i, nrows) {
		long long k = (long long)ry[2 * i] * C + ry[2 * i + 1];
		s -= logp[k];
		atomicAdd(&grad[k], -inv);
	}
	s = ops_block_sum(s);
	if (threadIdx.x == 0) atomicAdd(loss, (float)(s * inv));
}

// ---------------------------------------------------------------------------
// Optimisers.
// ---------------------------------------------------------------------------

// sgd_step: gnnlib/nn's SGD.Step (PyTorch's SGD): g += wd·p; with momentum,
// g += mom·buf once started, buf = g; then p −= lr·g. buf may be null when
// mom == 0.
extern "C" __global__ void sgd_step(float* p, const float* g, float* buf, long long n, float lr, float mom, float wd,
                                    int started) {
	GRID_LOOP(i, n) {
		float pi = p[i];
		float gi = g[i] + wd * pi;
		if (mom != 0.f) {
			if (started) gi += mom * buf[i];
			buf[i] = gi;
		}
		p[i] = pi - lr * gi;
	}
}

// sum_sq: out[0] += Σ x² in double (ClipGradNorm's norm), one atomic per
// block.
extern "C" __global__ void sum_sq(const float* x, double* out, long long n) {
	double s = 0.0;
	GRID_LOOP(i, n) s += (double)x[i] * x[i];
	s = ops_block_sum(s);
	if (threadIdx.x == 0) atomicAdd(out, s);
}

// ---------------------------------------------------------------------------
// Normalisation layers. LayerNorm normalises rows of D values (one warp per
// row) and keeps each row's mean and 1/std; BatchNorm normalises channels
// of x seen as [N, C, inner] (one block per channel) and keeps each
// channel's. The backward passes recompute x̂ = (x − mean)·invstd.
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Axis permutation, and 2-D convolution as im2col + GEMM (the GEMM is
// gnn.cu's) and pooling, over NCHW images.
// ---------------------------------------------------------------------------

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

// pool2d_fwd: y[plane, oy, ox] = the maximum (op 0) or mean (op 1) of x
// over the K×K window at (oy·stride, ox·stride) of each H×W plane; total
// = planes·OH·OW.
extern "C" __global__ void pool2d_fwd(const float* x, float* y, long long total, int H, int W, int OH, int OW, int K,
                                      int stride, int op) {
	GRID_LOOP(t, total) {
		int ox = t % OW, oy = (t / OW) % OH;
		const float* src = x + (t / ((long long)OW * OH)) * H * W + (long long)oy * stride * W + ox * stride;
		float r = op == 0 ? src[0] : 0.f;
		for (int i = 0; i < K; i++) {
			for (int j = 0; j < K; j++) {
				float v = src[i * W + j];
				if (op == 0) {
					if (v > r) r = v;
				} else {
					r += v;
				}
			}
		}
		y[t] = op == 0 ? r : r * (1.f / (K * K));
	}
}

// pool2d_bwd: dx (zeroed first) += the gradient g of each window: all of it
// to the window's first maximum in row-major order (op 0), or 1/K² of it
// to every element (op 1); overlapping windows add atomically.
extern "C" __global__ void pool2d_bwd(const float* g, const float* x, float* dx, long long total, int H, int W, int OH,
                                      int OW, int K, int stride, int op) {
	GRID_LOOP(t, total) {
		int ox = t % OW, oy = (t / OW) % OH;
		long long off = (t / ((long long)OW * OH)) * H * W + (long long)oy * stride * W + ox * stride;
		if (op == 0) {
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
