// sm80.cu is the second compilation unit of gnnlib/cuda's kernels, compiled
// by gen.sh for compute_80 into sm80.ptx: the kernels that need the tensor
// cores' bfloat16 and TF32 instructions (mma.sync, sm_80 and later). The
// driver loads this module only on such GPUs; gnn.ptx (compute_70) stays
// the one every GPU gets. Every kernel here is named sm80_*, which tells
// the launcher which module holds it.

#include "common.cuh"

#include "gemm_bf16.cu" // sm80_gemm_bf16: tensor-core GEMM, bf16 in, f32 sums
#include "gemm_tf32.cu" // sm80_gemm_tf32x3: float32 GEMM as three TF32 products
#include "spmm_bf16.cu" // sm80_spmm_bf16_*: CSR SpMM over bf16 features
#include "gatv2_sm80.cu" // sm80_gatv2_bwd_srce_*_balcp: the GATv2 source pass with cp.async gathers
