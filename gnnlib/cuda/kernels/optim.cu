// ---------------------------------------------------------------------------
// optim.cu: optimiser steps (Adam, Adam with weight decay, SGD) and the
// sum of squares of ClipGradNorm.
// ---------------------------------------------------------------------------

#include "common.cuh"

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

// adam_wd: gnnlib/nn's Adam.Step (PyTorch's arrangement): with decoupled,
// p *= shrink (AdamW), else g += wd * p; then the moments, and
// p -= step * m / (sqrt(v) / sc2 + eps) with step = lr / (1 - b1^t) and
// sc2 = sqrt(1 - b2^t).
extern "C" __global__ void adam_wd(float* p, const float* g, float* m, float* v, long long n, float step, float b1,
                                   float b2, float eps, float sc2, float wd, float shrink, int decoupled) {
	GRID_LOOP(i, n) {
		float pi = p[i], gi = g[i];
		if (decoupled) {
			pi *= shrink;
		} else {
			gi += wd * pi;
		}
		float mi = b1 * m[i] + (1.f - b1) * gi;
		float vi = b2 * v[i] + (1.f - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] = pi - step * mi / (sqrtf(vi) / sc2 + eps);
	}
}

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
