// ---------------------------------------------------------------------------
// loss.cu: fused losses with their gradients: softmax + NLL for
// cross-entropy, the element-wise mean losses and NLL over rows.
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "opcodes.cuh"
#include "half.cu"  // f32_bf16_bits, bf16_bits_f32

// softmax_nll: one warp per row of logits (rows x C). For rows with
// label >= 0: loss += -log softmax[label] / count, grad = (softmax -
// onehot) / count; other rows get grad 0. Forward and backward fused.
extern "C" __global__ void softmax_nll(const float* logits, const int* labels, float* grad, float* loss, int rows,
                                       int C, float invCount) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	for (long long r = w; r < rows; r += nw) {
		const float* x = logits + r * C;
		float* g = grad + r * C;
		int y = labels[r];
		float m = -INFINITY;
		for (int c = lane; c < C; c += WARP) m = fmaxf(m, x[c]);
		for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, o));
		float s = 0.f;
		for (int c = lane; c < C; c += WARP) s += __expf(x[c] - m);
		for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
		float ls = __logf(s);
		for (int c = lane; c < C; c += WARP) {
			float sm = __expf(x[c] - m - ls);
			g[c] = y >= 0 ? (sm - (c == y ? 1.f : 0.f)) * invCount : 0.f;
		}
		if (lane == 0 && y >= 0) atomicAdd(loss, -(x[y] - m - ls) * invCount);
	}
}

// loss_ld and loss_st read and write a logit or gradient value of the
// fused losses in float32 or bfloat16 storage (the math is float32).
__device__ __forceinline__ float loss_ld(const float* p, int i) { return p[i]; }
__device__ __forceinline__ float loss_ld(const unsigned short* p, int i) { return bf16_bits_f32(p[i]); }
__device__ __forceinline__ void loss_st(float* p, int i, float v) { p[i] = v; }
__device__ __forceinline__ void loss_st(unsigned short* p, int i, float v) { p[i] = f32_bf16_bits(v); }

// softmax_nll_blk_t is softmax_nll with the loss summed per block (in
// double, lane 0 of each warp over its rows, then ops_block_sum) and one
// atomic add per block, instead of one per row into one address, which
// serialises: 169,343 of them took about 1 ms of an arxiv-sized epoch on
// an H100 (gnnbench's op profile). The gradient is softmax_nll's. T is
// the storage of the logits and the gradient: float, or unsigned short
// for bfloat16 (softmax_nll_blk_bf16), whose values are read exactly and
// whose gradient is the float32 one rounded once.
template <typename T>
__device__ __forceinline__ void softmax_nll_blk_t(const T* logits, const int* labels, T* grad, float* loss, int rows,
                                                  int C, float invCount) {
	const int lane = threadIdx.x % WARP;
	long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	long long nw = (long long)gridDim.x * blockDim.x / WARP;
	double acc = 0.0;
	for (long long r = w; r < rows; r += nw) {
		const T* x = logits + r * C;
		T* g = grad + r * C;
		int y = labels[r];
		float m = -INFINITY;
		for (int c = lane; c < C; c += WARP) m = fmaxf(m, loss_ld(x, c));
		for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, o));
		float s = 0.f;
		for (int c = lane; c < C; c += WARP) s += __expf(loss_ld(x, c) - m);
		for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
		float ls = __logf(s);
		for (int c = lane; c < C; c += WARP) {
			float sm = __expf(loss_ld(x, c) - m - ls);
			loss_st(g, c, y >= 0 ? (sm - (c == y ? 1.f : 0.f)) * invCount : 0.f);
		}
		if (lane == 0 && y >= 0) acc += -(loss_ld(x, y) - m - ls) * invCount;
	}
	acc = ops_block_sum(acc);
	if (threadIdx.x == 0 && acc != 0.0) atomicAdd(loss, (float)acc);
}

// softmax_nll_blk: softmax_nll_blk_t over float32 logits.
extern "C" __global__ void softmax_nll_blk(const float* logits, const int* labels, float* grad, float* loss, int rows,
                                           int C, float invCount) {
	softmax_nll_blk_t(logits, labels, grad, loss, rows, C, invCount);
}

// softmax_nll_blk_bf16: softmax_nll_blk_t over bfloat16 logits (Autocast),
// the gradient stored in bfloat16, instead of a float32 copy of the
// logits and a float32 gradient rounded by another pass.
extern "C" __global__ void softmax_nll_blk_bf16(const unsigned short* logits, const int* labels, unsigned short* grad,
                                                float* loss, int rows, int C, float invCount) {
	softmax_nll_blk_t(logits, labels, grad, loss, rows, C, invCount);
}

// Losses: the mean loss into loss[0] (zeroed first) and its gradient for a
// unit upstream gradient into grad, fused.

// elem_loss: op LOSS_MSE is the mean squared error of x against t,
// LOSS_BCE_LOGITS the mean binary cross-entropy of sigmoid(x) against t
// computed from the logits as max(x, 0) − x·t + log(1 + e^−|x|); inv = 1/n.
extern "C" __global__ void elem_loss(const float* x, const float* t, float* grad, float* loss, long long n, int op,
                                     float inv) {
	double s = 0.0;
	GRID_LOOP(i, n) {
		float v = x[i], y = t[i];
		if (op == LOSS_MSE) {
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
