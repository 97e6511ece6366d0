// ---------------------------------------------------------------------------
// optim.cu: optimiser steps (Adam, Adam with weight decay, SGD), one
// parameter a launch or many (adam_multi, sgd_multi), and the sum of
// squares of ClipGradNorm.
// ---------------------------------------------------------------------------

#include "common.cuh"
#include "half.cu" // bf16_bits_f32, f32_bf16_bits

// adam: one Adam step (Kingma & Ba) with bias corrections bc1 = 1-b1^t,
// bc2 = 1-b2^t computed by the caller.
extern "C" __global__ void adam(float* p, const float* g, float* m, float* v, long long total, float lr, float b1,
                                float b2, float eps, float bc1, float bc2) {
	GRID_LOOP(i, total) {
		float gi = g[i];
		float mi = b1 * m[i] + (1.f - b1) * gi;
		float vi = b2 * v[i] + (1.f - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
	}
}

// adam_value is the Adam update of one value pi with gradient gi: with
// decoupled, pi *= shrink (AdamW), else gi += wd * pi; then the moments
// m[i], v[i], and it returns pi - step * m / (sqrt(v) / sc2 + eps).
// adam_wd1 and adam_wd_bf16 both call it, so that float32 and bfloat16
// training compute each value alike.
__device__ __forceinline__ float adam_value(float pi, float gi, float* m, float* v, long long i, float step, float b1,
                                            float b2, float eps, float sc2, float wd, float shrink, int decoupled) {
	if (decoupled) {
		pi *= shrink;
	} else {
		gi += wd * pi;
	}
	float mi = b1 * m[i] + (1.f - b1) * gi;
	float vi = b2 * v[i] + (1.f - b2) * gi * gi;
	m[i] = mi;
	v[i] = vi;
	return pi - step * mi / (sqrtf(vi) / sc2 + eps);
}

// adam_wd1 is adam_wd's update of value i (adam_value). adam_wd and
// adam_multi both call it, so that the two compute each value alike.
__device__ __forceinline__ void adam_wd1(float* p, const float* g, float* m, float* v, long long i, float step, float b1,
                                         float b2, float eps, float sc2, float wd, float shrink, int decoupled) {
	p[i] = adam_value(p[i], g[i], m, v, i, step, b1, b2, eps, sc2, wd, shrink, decoupled);
}

// adam_wd: gnnlib/nn's Adam.Step (PyTorch's arrangement) for one
// parameter of n values (adam_wd1), with step = lr / (1 - b1^t) and
// sc2 = sqrt(1 - b2^t).
extern "C" __global__ void adam_wd(float* p, const float* g, float* m, float* v, long long n, float step, float b1,
                                   float b2, float eps, float sc2, float wd, float shrink, int decoupled) {
	GRID_LOOP(i, n) adam_wd1(p, g, m, v, i, step, b1, b2, eps, sc2, wd, shrink, decoupled);
}

// adam_wd_bf16 is adam_wd for bfloat16 training: the gradient g16 is
// bfloat16, the parameter p and the moments m, v stay float32 (the master
// weights), and the step also writes p16 = bf16(p), the copy that the
// next forward pass multiplies on the tensor cores — one pass instead of
// the step and a conversion.
extern "C" __global__ void adam_wd_bf16(float* p, const unsigned short* __restrict__ g16, float* m, float* v,
                                        unsigned short* __restrict__ p16, long long n, float step, float b1, float b2,
                                        float eps, float sc2, float wd, float shrink, int decoupled) {
	GRID_LOOP(i, n) {
		float pi = adam_value(p[i], bf16_bits_f32(g16[i]), m, v, i, step, b1, b2, eps, sc2, wd, shrink, decoupled);
		p[i] = pi;
		p16[i] = f32_bf16_bits(pi);
	}
}

// OPTIM_MULTI is the most tensors one adam_multi or sgd_multi launch
// updates (optimMulti in optim.go).
#define OPTIM_MULTI 32

// AdamList is adam_multi's tensors, passed by value as the kernel's last
// parameter (kernel parameters are copied at launch and, in a CUDA
// graph, updated in place), so that the gradients, new tensors every
// step, need no upload. Entries from count on are unused.
struct AdamList {
	long long n[OPTIM_MULTI];
	float* p[OPTIM_MULTI];
	const float* g[OPTIM_MULTI];
	float* m[OPTIM_MULTI];
	float* v[OPTIM_MULTI];
};

// adam_multi: adam_wd over count tensors in one launch (a multi-tensor
// step, as PyTorch's foreach Adam). Every block walks every tensor with
// the grid-stride loop, so a tensor's values go to the threads that
// adam_wd would give them, and a small bias costs one pass of the loop.
extern "C" __global__ void adam_multi(int count, float step, float b1, float b2, float eps, float sc2, float wd,
                                      float shrink, int decoupled, AdamList l) {
	for (int t = 0; t < count; t++) {
		float* p = l.p[t];
		const float* g = l.g[t];
		float* m = l.m[t];
		float* v = l.v[t];
		GRID_LOOP(i, l.n[t]) adam_wd1(p, g, m, v, i, step, b1, b2, eps, sc2, wd, shrink, decoupled);
	}
}

// sgd1 is sgd_step's update of value i: g += wd·p; with momentum,
// g += mom·buf once started, buf = g; then p −= lr·g.
__device__ __forceinline__ void sgd1(float* p, const float* g, float* buf, long long i, float lr, float mom, float wd,
                                     int started) {
	float pi = p[i];
	float gi = g[i] + wd * pi;
	if (mom != 0.f) {
		if (started) gi += mom * buf[i];
		buf[i] = gi;
	}
	p[i] = pi - lr * gi;
}

// sgd_step: gnnlib/nn's SGD.Step (PyTorch's SGD) for one parameter of n
// values (sgd1). buf may be null when mom == 0.
extern "C" __global__ void sgd_step(float* p, const float* g, float* buf, long long n, float lr, float mom, float wd,
                                    int started) {
	GRID_LOOP(i, n) sgd1(p, g, buf, i, lr, mom, wd, started);
}

// SGDList is sgd_multi's tensors (AdamList's layout without v; buf
// entries null when mom == 0).
struct SGDList {
	long long n[OPTIM_MULTI];
	float* p[OPTIM_MULTI];
	const float* g[OPTIM_MULTI];
	float* buf[OPTIM_MULTI];
};

// sgd_multi: sgd_step over count tensors in one launch (adam_multi's
// walk).
extern "C" __global__ void sgd_multi(int count, float lr, float mom, float wd, int started, SGDList l) {
	for (int t = 0; t < count; t++) {
		float* p = l.p[t];
		const float* g = l.g[t];
		float* buf = l.buf[t];
		GRID_LOOP(i, l.n[t]) sgd1(p, g, buf, i, lr, mom, wd, started);
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
