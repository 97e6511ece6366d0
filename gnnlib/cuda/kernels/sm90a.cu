// sm90a.cu is the third compilation unit of gnnlib/cuda's kernels: the
// kernels that need sm_90a's PTX (wgmma, Hopper's warp-group MMA), named
// sm90_*. nvcc 11.8 cannot name that target, so gen.sh compiles this unit
// for compute_80 and rewrites the PTX's .version and .target lines (the
// inline wgmma assembly passes through nvcc as text); the driver loads
// sm90a.ptx on GPUs of compute capability 9.0 only, and a GPU whose driver
// cannot compile it still runs everything else.

#include "common.cuh"

#include "gemm_wg.cu" // sm90_gemm_bf16_wg_{nt,nn,tn}: the bf16 GEMM on wgmma
