// ---------------------------------------------------------------------------
// elementwise.cu: element-wise kernels: bias + activation + dropout
// and their backward passes, the activations by op code (map_fwd,
// map_ext_fwd; the codes are generated into opcodes.cuh), binary ops
// with a broadcast row, scaling, axpby and column copies.
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "opcodes.cuh"
#include "half.cu"  // f32_bf16_bits

// bias_act: y[r,c] = dropout(act(x[r,c] + b[c])) with act = relu when relu
// != 0 and dropout probability p (p == 0: none). In place allowed.
extern "C" __global__ void bias_act(const float* x, const float* b, float* y, long long total, int F, int relu,
                                    float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(i, total) y[i] = bias_act1(x[i] + (b ? b[i % F] : 0.f), relu, p, keep, seed, i);
}

// act_backward: the gradient through bias_act given its output y: zero where
// y == 0 (ReLU off or dropped), scaled by 1/(1-p) elsewhere. Valid for relu
// != 0 or p > 0; with neither it copies.
extern "C" __global__ void act_backward(const float* y, const float* g, float* dx, long long total, int relu, float p) {
	float keep = p > 0.f ? 1.f / (1.f - p) : 1.f;
	GRID_LOOP(i, total) {
		float m = (relu || p > 0.f) ? (y[i] != 0.f ? keep : 0.f) : 1.f;
		dx[i] = g[i] * m;
	}
}

// unbias_act undoes bias_act in place where it can: from y = dropout(relu(x
// + b)) it rebuilds x wherever y != 0 (y·(1−p) − b) and writes 0 elsewhere;
// without relu and dropout (relu == 0, p == 0) it is exact everywhere. The
// backward passes read the pre-activation only where the activation's
// gradient is non-zero, so a layer can keep one tensor instead of two.
extern "C" __global__ void unbias_act(float* y, const float* b, long long total, int F, int relu, float p) {
	GRID_LOOP(i, total) {
		const float v = y[i];
		const float bb = b ? b[i % F] : 0.f;
		if (relu || p > 0.f) y[i] = v != 0.f ? v * (1.f - p) - bb : 0.f;
		else y[i] = v - bb;
	}
}

// unbias_act_to is unbias_act from y into x (x != y): the same values in
// one pass over y where a copy and unbias_act in place make two.
extern "C" __global__ void unbias_act_to(const float* y, const float* b, float* x, long long total, int F, int relu,
                                         float p) {
	GRID_LOOP(i, total) {
		const float v = y[i];
		const float bb = b ? b[i % F] : 0.f;
		if (relu || p > 0.f) x[i] = v != 0.f ? v * (1.f - p) - bb : 0.f;
		else x[i] = v - bb;
	}
}

// map_fwd: y = op(x) for op MAP_RELU, MAP_LEAKY_RELU (slope p), MAP_ELU
// (alpha p), MAP_SIGMOID, MAP_TANH, MAP_EXP, MAP_LOG or MAP_ADD_SCALAR (p),
// the codes opgen writes into opcodes.cuh and gnnlib/cuda's mapOps.
extern "C" __global__ void map_fwd(const float* x, float* y, long long n, int op, float p) {
	GRID_LOOP(i, n) {
		float v = x[i], r;
		switch (op) {
		case MAP_RELU: r = v > 0.f ? v : 0.f; break;
		case MAP_LEAKY_RELU: r = v > 0.f ? v : v * p; break;
		case MAP_ELU: r = v > 0.f ? v : p * expm1f(v); break;
		case MAP_SIGMOID: r = 1.f / (1.f + expf(-v)); break;
		case MAP_TANH: r = tanhf(v); break;
		case MAP_EXP: r = expf(v); break;
		case MAP_LOG: r = logf(v); break;
		default: r = v + p; break; // MAP_ADD_SCALAR
		}
		y[i] = r;
	}
}

// map_bwd: dx = g * op'(x), given x and y = op(x); the CPU's conventions
// (relu'(0) = 0).
extern "C" __global__ void map_bwd(const float* g, const float* x, const float* y, float* dx, long long n, int op,
                                   float p) {
	GRID_LOOP(i, n) {
		float gi = g[i], v = x[i], r;
		switch (op) {
		case MAP_RELU: r = v > 0.f ? gi : 0.f; break;
		case MAP_LEAKY_RELU: r = v > 0.f ? gi : gi * p; break;
		case MAP_ELU: r = v > 0.f ? gi : gi * (y[i] + p); break;
		case MAP_SIGMOID: r = gi * y[i] * (1.f - y[i]); break;
		case MAP_TANH: r = gi * (1.f - y[i] * y[i]); break;
		case MAP_EXP: r = gi * y[i]; break;
		case MAP_LOG: r = gi / v; break;
		default: r = gi; break; // MAP_ADD_SCALAR
		}
		dx[i] = r;
	}
}

// binary_op: y = a op b for op BINARY_ADD, BINARY_SUB or BINARY_MUL; with
// row != 0, b holds F values broadcast over the rows of a (a bias).
extern "C" __global__ void binary_op(const float* a, const float* b, float* y, long long n, int F, int op, int row) {
	GRID_LOOP(i, n) {
		float u = a[i], v = b[row ? i % F : i];
		y[i] = op == BINARY_ADD ? u + v : (op == BINARY_SUB ? u - v : u * v);
	}
}

// scale_op: y = (x ? x[i] : 1) * (s ? s[0] : 1) * k: MulScalar, Full, and
// the backward passes that scale by an upstream scalar gradient without
// copying it to the host.
extern "C" __global__ void scale_op(const float* x, const float* s, float* y, long long n, float k) {
	float f = (s ? s[0] : 1.f) * k;
	GRID_LOOP(i, n) y[i] = (x ? x[i] : 1.f) * f;
}

// dropout_bwd: dx = g through the mask bias_act drew from (seed, index).
extern "C" __global__ void dropout_bwd(const float* g, float* dx, long long n, float p, unsigned long long seed) {
	float keep = 1.f / (1.f - p);
	GRID_LOOP(i, n) dx[i] = hash01(seed, i) < p ? 0.f : g[i] * keep;
}

// axpby: y = a*x + b*y.
extern "C" __global__ void axpby(const float* x, float* y, long long total, float a, float b) {
	GRID_LOOP(i, total) y[i] = a * x[i] + b * y[i];
}

// copy_cols_cvt converts a value copied by copy_cols_t: as it is, or a
// float32 rounded to bfloat16 bits.
__device__ __forceinline__ float copy_cols_cvt(float v, float*) { return v; }
__device__ __forceinline__ unsigned short copy_cols_cvt(unsigned short v, unsigned short*) { return v; }
__device__ __forceinline__ unsigned short copy_cols_cvt(float v, unsigned short*) { return f32_bf16_bits(v); }

// copy_cols_t: dst[r, doff+c] = src[r, soff+c] for c < width (row strides
// sF, dF), values of type S stored as type D (copy_cols_cvt).
template <typename S, typename D>
__device__ __forceinline__ void copy_cols_t(const S* src, D* dst, int rows, int width, int sF, int soff, int dF, int doff) {
	GRID_LOOP(i, (long long)rows * width) {
		long long r = i / width;
		int c = i % width;
		dst[r * dF + doff + c] = copy_cols_cvt(src[r * sF + soff + c], dst);
	}
}

// copy_cols: copy_cols_t of float32 values.
extern "C" __global__ void copy_cols(const float* src, float* dst, int rows, int width, int sF, int soff, int dF, int doff) {
	copy_cols_t(src, dst, rows, width, sF, soff, dF, doff);
}

// copy_cols_bf16: copy_cols_t of 16-bit values (bfloat16 storage: Narrow
// under Autocast), copied as they are.
extern "C" __global__ void copy_cols_bf16(const unsigned short* src, unsigned short* dst, int rows, int width, int sF,
                                          int soff, int dF, int doff) {
	copy_cols_t(src, dst, rows, width, sF, soff, dF, doff);
}

// copy_cols_f32_bf16: copy_cols_t from float32 into bfloat16 storage,
// each value rounded (Concat of float32 operands under Autocast).
extern "C" __global__ void copy_cols_f32_bf16(const float* src, unsigned short* dst, int rows, int width, int sF,
                                              int soff, int dF, int doff) {
	copy_cols_t(src, dst, rows, width, sF, soff, dF, doff);
}

#define OPS_GELU_K 0.7978845608028654f

// map_ext_fwd: y = op(x) for op MAP_EXT_GELU (tanh approximation),
// MAP_EXT_SQRT, MAP_EXT_ABS, MAP_EXT_SQUARE or MAP_EXT_POW (exponent p).
extern "C" __global__ void map_ext_fwd(const float* x, float* y, long long n, int op, float p) {
	GRID_LOOP(i, n) {
		float v = x[i], r;
		switch (op) {
		case MAP_EXT_GELU: r = 0.5f * v * (1.f + tanhf(OPS_GELU_K * (v + 0.044715f * v * v * v))); break;
		case MAP_EXT_SQRT: r = sqrtf(v); break;
		case MAP_EXT_ABS: r = fabsf(v); break;
		case MAP_EXT_SQUARE: r = v * v; break;
		default: r = powf(v, p); break; // MAP_EXT_POW
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
		case MAP_EXT_GELU: {
			float th = tanhf(OPS_GELU_K * (v + 0.044715f * v * v * v));
			float d = 0.5f * (1.f + th) + 0.5f * v * (1.f - th * th) * OPS_GELU_K * (1.f + 3.f * 0.044715f * v * v);
			r = gi * d;
			break;
		}
		case MAP_EXT_SQRT: r = gi * 0.5f / y[i]; break;
		case MAP_EXT_ABS: r = v > 0.f ? gi : (v < 0.f ? -gi : 0.f); break;
		case MAP_EXT_SQUARE: r = 2.f * gi * v; break;
		default: r = gi * p * powf(v, p - 1.f); break; // MAP_EXT_POW
		}
		dx[i] = r;
	}
}

// div_op: y = a / b, b of a's length or (row != 0) F values broadcast over
// the rows of a (F == 1: one value).
extern "C" __global__ void div_op(const float* a, const float* b, float* y, long long n, int F, int row) {
	GRID_LOOP(i, n) y[i] = a[i] / b[row ? i % F : i];
}
