// gnn.cu is the one compilation unit of gnnlib/cuda's kernels: it includes
// the family files, which nvcc compiles into the one PTX module gnn.ptx
// (gen.sh). Each family file includes common.cuh itself, so that it reads
// on its own; opcodes.cuh is generated (gnnlib/cuda/internal/opgen).
//
// Conventions: every kernel is extern "C" so that the Go side finds it by
// name; matrices are row-major float32; CSR arrays are int32 (row v's edges
// are indptr[v]..indptr[v+1], indices hold the source nodes); scalar
// parameters are int, long long or float, passed from Go in 8-byte slots.
// Index arithmetic that can exceed 2^31 (row * width on a 2.4M-node graph)
// is done in long long; grid-stride loops use GRID_LOOP.

#include "common.cuh"
#include "opcodes.cuh"

#include "gemm.cu"        // dense GEMM: gemm_*, gemm2_*, gemm2k8_*, gemm2n_*
#include "gemm_skinny.cu" // weight gradients Xᵀ·dY with outputs at most 32 wide
#include "spmm.cu"        // CSR SpMM (vec4 and warp mappings), transpose permutation
#include "aggregate.cu"   // degree-aware max aggregation and its backward pass
#include "attnmerge.cu"   // the attention kernels' heavy rows: their edge tiles merged
#include "gatv2.cu"       // fused GATv2 attention
#include "gat.cu"         // fused GAT (v1) attention, per-node scores
#include "transformer.cu" // fused Graph Transformer attention
#include "elementwise.cu" // bias + activation + dropout, maps, binary ops, copies
#include "reduce.cu"      // column and full sums, ops along an axis, gathers and scatters
#include "loss.cu"        // fused losses with their gradients
#include "optim.cu"       // Adam, SGD, the sum of squares of ClipGradNorm
#include "norm.cu"        // LayerNorm, BatchNorm
#include "conv.cu"        // permutations, im2col/col2im, pooling
#include "int8.cu"        // INT8 GEMM and SpMM with INT32 sums
#include "half.cu"        // float32 <-> bfloat16, rounding to BF16/FP16 (Autocast)
#include "sample.cu"      // neighbour sampling, scans, block transposes on the device
