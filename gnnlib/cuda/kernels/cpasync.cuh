// ---------------------------------------------------------------------------
// cpasync.cuh: cp.async (sm_80 and later) for sm80.cu's kernels: copies
// from global to shared memory that hold no registers while they fly,
// grouped and waited for by commit groups.
// ---------------------------------------------------------------------------

#pragma once

#include "common.cuh"

__device__ __forceinline__ unsigned smem_u32(const void* p) {
	return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp_async copies V halves (V = 8, 4 or 2) from src to shared dst, or
// zero-fills them when !ok (src is then not read).
template <int V>
__device__ __forceinline__ void cp_async(unsigned dst, const unsigned short* src, bool ok) {
	const int n = ok ? 2 * V : 0;
	if (V == 8) {
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
	} else if (V == 4) {
		asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(n));
	} else {
		asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(n));
	}
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
