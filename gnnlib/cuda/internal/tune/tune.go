package tune

import (
	"os"
	"time"
)

// GEMMKernel names a family of MatMul kernels in kernels/gemm.cu.
type GEMMKernel string

const (
	// GEMMv1 is gemm_*: 128x128 tiles, BK = 8, 8x8 outputs per thread,
	// scalar global loads, double-buffered shared memory.
	GEMMv1 GEMMKernel = "v1"
	// GEMMv2 is gemm2_*: the same tiling with BK = 16, float4 global loads
	// and stores where the shapes allow (the _v4 entry points), both
	// operands k-major in padded shared memory and warp-shaped thread
	// patches (see gemm.cu).
	GEMMv2 GEMMKernel = "v2"
	// GEMMv2K8 is GEMMv2 with BK = 8 (gemm2k8_*), kept to compare.
	GEMMv2K8 GEMMKernel = "v2k8"
	// GEMMv2N is GEMMv2 with a narrow-output tile: products
	// whose output has at most 64 columns (a class layer's x·W, its
	// weight gradient Xᵀ·dY with split-K, dY·Wᵀ into a narrow input) run
	// gemm2n_*, 256x64 tiles with 8x8 outputs per thread, so a 47- or
	// 48-wide output fills 48 of 64 columns rather than 48 of 128; wider
	// outputs run gemm2_*.
	GEMMv2N GEMMKernel = "v2n"
	// GEMMv2S is GEMMv2N with a skinny path for weight
	// gradients: Xᵀ·dY with an output at most 32 wide (a Cora-sized
	// layer's 1433x2708·2708x16) runs gemm_skinny*_tn (kernels/gemm_skinny.cu),
	// one lane per output row and K split across blocks, instead of a
	// 256x64 tile whose threads mostly idle. On the H100 (BENCHMARKS.md)
	// it ran the Cora-sized weight gradients 5.9-9.1x faster than
	// GEMMv2N (1433x2708·2708x16: 435 -> 50 us), the arxiv-sized
	// 128x169343·169343x16 3.6x and ·x40 (K split from 1024) 1.4x.
	GEMMv2S GEMMKernel = "v2s"
	// GEMMTF32x3, the default, runs float32 products on the tensor cores
	// (sm_80 and later; GEMMv2S's kernels elsewhere and for its skinny
	// weight gradients): sm80_gemm_tf32x3_* (kernels/gemm_tf32.cu) split each
	// operand into two TF32 parts and sum three of their four products
	// in float32, close to float32 FMA's accuracy. On an H100
	// (2026-12-07) the first version passed TestGEMMKernels and (one
	// block of 202 registers a thread an SM, each value split at every
	// fragment read) was slower than GEMMv2S at two of the three
	// arxiv-sized layer shapes: x·W 0.727 against 0.654 ms, Xᵀ·dY 0.704
	// against 0.667, dY·Wᵀ 0.404 against 0.444 (the nn GATv2 epoch 12.86
	// against 12.45 ms). The second (values split once, into shared
	// tiles; 2 blocks an SM) passed TestGEMMKernels on an H100 and ran
	// them faster than GEMMv2S (2026-12-07 15:16): x·W 0.621 against
	// 0.737 ms, Xᵀ·dY 0.573 against 0.780, dY·Wᵀ 0.404 against 0.411 (the
	// nn GATv2 epoch 11.01 against 12.35 ms), and the whole device suite
	// passed on it (H100, 2026-12-07 17:06: 1029 tests; one launch count
	// assumed gemm2_ names and was mended). Default since then; on
	// that run the arxiv-sized nn epochs took GCN 5.41-5.49 against
	// 5.60-5.76 ms and GATv2 11.11 against 11.99-12.01 ms with GEMMv2S.
	GEMMTF32x3 GEMMKernel = "tf32x3"
)

// GEMM is the kernel family gnnlib/cuda's MatMul launches. Set it before
// work is queued, not concurrently with MatMul calls.
var GEMM = GEMMTF32x3

// PoolFastPath lets gnnlib/cuda's caching allocator hand out a cached
// block on the allocating goroutine, under its mutex, instead of on the
// device goroutine (a channel round trip per allocation); the driver is
// still called on the device goroutine only. On by default; gnnbench
// compares the two on launch-bound epochs.
var PoolFastPath = true

// AsyncLaunch makes gnnlib/cuda's kernel launches return as soon as they
// are queued for the device goroutine, instead of after the driver call
// (a channel round trip per kernel); a launch's error then comes back
// from the next call that waits, as CUDA's own errors do. On by default;
// CUDA_LAUNCH_BLOCKING=1 in the environment turns it off (each launch
// then waits and returns its own error, as in PyTorch). gnnbench's nnbf16
// part compares the two on launch-bound epochs.
var AsyncLaunch = os.Getenv("CUDA_LAUNCH_BLOCKING") != "1"

// DeviceSpin is how long gnnlib/cuda's device goroutine, after its last
// work, and a caller waiting for its work (a fill, an allocation, a
// download) poll before they park. The device goroutine holds a locked
// OS thread (the CUDA context is current on it), and handing work to a
// parked locked thread and back took 30-50 µs a turn on a 2-core dev
// machine (BenchmarkDeviceRoundTrip) where polling took about 1 µs.
// 0 parks at once, as before; spinning needs GOMAXPROCS of 2 or more
// and is skipped below that.
var DeviceSpin = 100 * time.Microsecond

// CacheLabels lets gnnlib/cuda's CrossEntropy keep its device labels per
// label and row slice (labelcache.go) instead of uploading them every
// call. On by default; gnnbench compares the two on the arxiv-sized
// epochs.
var CacheLabels = true

// CheckLabelsOnUpload makes gnnlib/cuda's CrossEntropy check its rows
// and labels when it uploads them (a cache miss), and tells
// tensor.CrossEntropy so (tensor.LabelChecker), which then skips its own
// pass over every label at every call: 531 -> 99 µs of host time a
// call on 169,343 labels (gnnlib/cuda's BenchmarkCrossEntropyHost on the
// recording driver, 2-core dev machine; what was left was mostly the
// label cache's comparison, since done with bytes.Equal: 34 µs), time
// that is part of the op profile's 0.7 ms CrossEntropy on the H100. On
// by default; on an H100 (2026-12-06 17:18, the whole cuda suite passing)
// the arxiv-sized GCN epoch's CrossEntropy took 0.51 ms in the op profile
// (0.45 ms under bfloat16) against 1.69 ms (1.76) with this and
// LossBlockSum off.
var CheckLabelsOnUpload = true

// LossBlockSum makes gnnlib/cuda's SoftmaxNLL (CrossEntropy) sum the loss
// per block and add it to the result once a block (softmax_nll_blk)
// instead of once a row into one address (softmax_nll), whose atomic
// adds serialise: about 1 ms of the arxiv-sized nn epochs on an H100
// (gnnbench's op profile, 2026-12-06). On by default; its device check,
// TestSoftmaxNLLBlockSum, passed on an H100 (2026-12-06, final run);
// gnnbench's -nnepoch-ab turns it off with the nn epochs' other old paths.
var LossBlockSum = true

// BF16Loss makes gnnlib/cuda's CrossEntropy read bfloat16 logits
// (Autocast) as they are and store its gradient in bfloat16
// (softmax_nll_blk_bf16, float32 math inside, with LossBlockSum),
// instead of widening the logits into a float32 copy and rounding the
// float32 gradient in another pass: two N×C passes and two launches less
// per epoch (TestBF16EpochLaunches), the same values (TestSoftmaxNLLBF16
// on a device). On by default.
var BF16Loss = true

// BF16ActColSum makes gnnlib/cuda's ReLUDropoutGradColSum of bfloat16
// storage (Autocast) take the activation's gradient and the bias
// gradient in one pass (act_backward_colsum_bf16) instead of reading
// both through float32 copies; with it gnnlib/nn's fused layer
// activation asks for the two in one call under Autocast too
// (nn.ActColSumUnderAutocast), where it made act_backward_bf16 and then
// col_sum_bf16. On by default.
var BF16ActColSum = true

// BF16Narrow makes gnnlib/cuda's Narrow of bfloat16 storage under
// Autocast(BFloat16) copy the slice as it is into bfloat16 storage
// (copy_cols_bf16) instead of widening the whole input into a float32
// copy and slicing that, which Autocast then rounds to bfloat16 again:
// GATv2Conv's two weight gradients, sliced from one product, take 1
// launch each instead of 3. On by default.
var BF16Narrow = true

// BF16Concat makes gnnlib/cuda's Concat under Autocast(BFloat16) store
// its result in bfloat16, each operand copied (and a float32 one rounded)
// in one pass (copy_cols_f32_bf16, copy_cols_bf16), instead of a float32
// result that Autocast, or the tensor-core product reading it, rounds in
// another pass: GATv2Conv's concatenated weights reach its forward and
// backward products without the two conversions a layer. On by default.
var BF16Concat = true

// BF16SplitF32 makes gnnlib/cuda's MatMul under Autocast(BFloat16)
// return the float32 sums of a product whose inner dimension it splits
// across blocks (a weight gradient Xᵀ·dY, summed in float32 anyway)
// instead of rounding them into bfloat16 storage in another pass: with
// tensor.RoundParamGradsInPlace the parameter's gradient is then rounded
// where it lies and taken as it is, one pass where the bfloat16 result
// took two (its rounding and the parameter's float32 copy). On by
// default.
var BF16SplitF32 = true

// BF16Vec8 makes gnnlib/cuda's float32-to-bfloat16 conversion (ToBF16),
// its bias, activation and dropout pass (BiasActBF16), the activation's
// gradient with the bias gradient
// (act_backward_colsum_bf16) and GATv2's rebuilt attention output
// (UnbiasAct, then one pass from the activation instead of a copy and a
// pass over it) read and write bfloat16 rows 8 values (16 bytes) a
// thread when the width is a multiple of 8, instead of 2 bytes a thread
// (and, for the column sums, one column a thread): on an H100
// (2026-12-06, TestNNEpochKernelTimes) the arxiv-sized 256-wide passes
// took 0.13, 0.27 and 0.17 ms (+0.10 for the copy), about twice what
// their bytes need. The same values (the sums in another order). On by
// default.
var BF16Vec8 = true

// ColSumVec4 makes gnnlib/cuda's float32 column sums (ColSum, the bias
// gradient) and the activation's gradient with them
// (ActBackwardColSum, with or without the rebuilt pre-activation) read
// and write rows 4 columns (16 bytes) a lane, 8 warps a block over
// interleaved rows with four rows' loads in flight, when the width is a
// multiple of 4 (the _v4 kernels), instead of one column a thread
// walking its rows one load at a time: on an H100 (2026-12-07) the two
// arxiv-sized 256-wide act_backward_colsum calls of the nn GATv2 epoch
// took 0.78 ms, about 2.5 times what their bytes need. The same values
// (the sums in another order). On by default: TestColSumVec4 and the
// whole device suite with it on passed on an H100 (2026-12-07, 07:12),
// where gnnbench -colsum-ab took the arxiv-sized nn epochs (with
// nn.ReLUDropout) from 6.06 to 5.59 ms (GCN) and from 13.92 to 13.36 ms
// (GATv2).
var ColSumVec4 = true

// BF16Add makes gnnlib/cuda's Binary add two bfloat16 tensors of one
// shape under Autocast(BFloat16) in one pass into bfloat16 storage
// (add_bf16, in float32 and rounded once), instead of widening both to
// float32 copies and storing a float32 sum, which the next op rounds
// again. In the products-sized sampled GraphSAGE step under Autocast
// (H200, 2026-12-07) the conversions between the formats took 0.97 ms of
// its 3.31 ms of device time; with BF16Add the step makes 6 widenings
// instead of 12 and 14 roundings instead of 17 (BenchmarkSampledStepHost,
// recording driver). On by default: TestAddBF16 (each sum bit for bit
// against the host's rounding) and the whole device suite with it on
// passed on an H100 (2026-12-07, 07:12); its time is not measured apart.
var BF16Add = true

// PoolGCFixed makes gnnlib/cuda's caching allocator ask for a garbage
// collection every 1 GiB it hands out, as it did before, instead of
// whenever it has handed out a quarter of the bytes in use (at least 64
// MiB) since the last one. Off by default; gnnbench compares the two
// (peak memory and epoch time).
var PoolGCFixed = false

// GEMMBF16Kernel names the tensor-core kernel gnnlib/cuda's MatMulBF16
// (and MatMulBF16Out) launches, in kernels/gemm_bf16.cu.
type GEMMBF16Kernel string

const (
	// GEMMBF16Reg is sm80_gemm_bf16: one 128x128 tile a block, k-tiles of
	// 32 read into registers while the previous one is multiplied, 2-byte
	// scattered shared-memory stores for transposed operands, no ldmatrix.
	GEMMBF16Reg GEMMBF16Kernel = "reg"
	// GEMMBF16Pipe, the default, is sm80_gemm_bf16p_*: persistent blocks,
	// a multi-stage cp.async pipeline over the block's tiles, ldmatrix
	// fragments and 16-byte epilogue stores, its stages padded
	// (sm80_gemm_bf16p_*). Products whose operands' leading dimensions are
	// odd (2-byte aligned rows, which cp.async cannot copy) still run
	// GEMMBF16Reg, but for an nn product's odd-wide B of at most 4M
	// values (a layer's weight), which is copied into padded rows first.
	GEMMBF16Pipe GEMMBF16Kernel = "pipe"
	// GEMMBF16PipeSW is GEMMBF16Pipe with unpadded, swizzled
	// shared-memory stages (sm80_gemm_bf16s_*): 8 KB a stage instead of
	// 12 KB, so 5 or 6 stages in flight instead of 3 or 4.
	GEMMBF16PipeSW GEMMBF16Kernel = "pipesw"
	// GEMMBF16PipeRes keeps B resident: each block keeps
	// its n tile of B (up to 128 rows of k at 128 columns, 224 at 64) in
	// shared memory for all its tiles and streams only A through
	// swizzled stages (sm80_gemm_bf16r_*), halving what the SMs read
	// from L2 when K is as long as the tile is wide — on the H100 the
	// padded kernel ran x·W arxiv at 81 % of the L2's throughput and 56 %
	// of the DRAM's. Other products (split-K, longer K) run GEMMBF16Pipe.
	GEMMBF16PipeRes GEMMBF16Kernel = "piperes"
	// GEMMBF16Big runs the dynamic-shared-memory kernels
	// (sm80_gemm_bf16d_* and sm80_gemm_bf16dr_*): swizzled stages of
	// k-steps of 32, tiles 128 x 256 (one block an SM) for products
	// wider than 128 columns, 128 x 128 (two) above 64 and 128 x 64
	// (three) else, so that a product up to 256 wide reads A from L2
	// once; B resident (up to 256 k-rows) for nn and nt products of no
	// longer K, else streamed through up to 160 KB of stages. Where the
	// GPU's shared memory does not hold them (less than an H100's 227 KB
	// a block), or an operand's rows are only 2-byte aligned, it runs
	// GEMMBF16Pipe's choice.
	GEMMBF16Big GEMMBF16Kernel = "big"
	// GEMMBF16BigStream is GEMMBF16Big with B always streamed
	// (sm80_gemm_bf16d_*, never sm80_gemm_bf16dr_*), for comparison.
	GEMMBF16BigStream GEMMBF16Kernel = "bigs"
	// GEMMBF16Auto, the default, runs GEMMBF16WG's choice on GPUs of
	// compute capability 9.0 for the products it takes whose output is a
	// multiple of 8 wide (every tn product it takes): on an H100
	// (2026-12-08, gnnbench -only bf16) it took 0.62-0.93x of the time
	// of the kernels below at the GNN layers' shapes, but 1.09x at the
	// products-sized classifier's 47 columns with a float32 output. Else
	// it runs GEMMBF16Big's choice for products
	// whose inner dimension K is at least 256 and GEMMBF16Pipe's below:
	// on an H200 (2026-12-06 21:05, gnnbench -only bf16) the large tiles
	// took 0.64-0.96x of the pipelined kernel's time at the GNN shapes
	// with K of 256 or more (products-sized x·W 256x48 0.548 against
	// 0.857 ms), and up to 1.18x at K of 100 (x·W products-sized
	// 100x256, float32 out); the square 8192 product was within 4 %.
	GEMMBF16Auto GEMMBF16Kernel = "auto"
	// GEMMBF16WG runs Hopper's warp-group MMA (sm90_gemm_bf16_wg_nt,
	// kernels/gemm_wg.cu: wgmma from shared memory, 128 x 128 tiles of
	// two warp groups, k-steps of 64 in the 128-byte swizzle) on GPUs of
	// compute capability 9.0, for nt products and for nn products whose B
	// (k x n, at most 4M values: a layer's weight) it first transposes,
	// both with 16-byte aligned operands and K a multiple of 8, and
	// (sm90_gemm_bf16_wg_tn, the operands m- and n-contiguous) for tn
	// products with m and n multiples of 8, K split over the blocks. Other
	// products, and other GPUs, run GEMMBF16Auto's choice. On an H100
	// (2026-12-08) the kernels passed TestMatMulBF16 at their first run.
	GEMMBF16WG GEMMBF16Kernel = "wg"
	// GEMMBF16WGDirect is GEMMBF16WG with nn products read as they are
	// (sm90_gemm_bf16_wg_nn: B n-contiguous through wgmma's transpose
	// flag, n a multiple of 8), without the transposed copy of B and for
	// a B of any size. Not yet run on a GPU.
	GEMMBF16WGDirect GEMMBF16Kernel = "wgd"
)

// GEMMBF16Kernels lists every GEMMBF16Kernel value.
var GEMMBF16Kernels = []GEMMBF16Kernel{GEMMBF16Auto, GEMMBF16Big, GEMMBF16BigStream, GEMMBF16Pipe, GEMMBF16PipeSW,
	GEMMBF16PipeRes, GEMMBF16Reg, GEMMBF16WG, GEMMBF16WGDirect}

// GEMMBF16 is the tensor-core kernel MatMulBF16 launches. Set it before
// work is queued, not concurrently with MatMulBF16 calls.
//
// Every kernel passed TestMatMulBF16 on an H200 (2026-12-06 21:00), the
// large-tile ones (GEMMBF16Big, GEMMBF16BigStream) TestMatMulBF16BigReplay
// too. If a device run fails TestMatMulBF16 for one kernel (its errors
// name it), set this to one that passed (GEMMBF16Reg at worst).
var GEMMBF16 = GEMMBF16Auto

// BF16SplitHeavy makes gnnlib/cuda's bfloat16 SpMM (SpMMBF16 and its
// transpose) leave the rows of more than one edge tile to
// sm80_spmm_bf16_heavy, as the float32 SpMM does, instead of one lane
// group walking all of a hub's edges. On by default; gnnbench's bf16 part
// compares the two on the skewed arxiv-sized graph (H100, 2026-12-06,
// final run: 0.132 against 6.022 ms at 48 columns; TestSpMMBF16 passed
// there with it on and off).
var BF16SplitHeavy = true

// BF16SpMMOnePass makes gnnlib/cuda's bfloat16 SpMM cover a row's width in
// one pass over its edges where it can: a lane group as wide as the row
// has vectors, rounded up to a power of two (a 48-wide row: 8 lanes, 6 of
// them busy, rather than 4 lanes of which 2 walk the edges twice), and
// 8-byte loads for widths that are a multiple of 4 but not of 8 (100:
// one pass of 25 lanes, rather than the warp kernel's four of 32). On by
// default; gnnbench's bf16 part compares the two at such widths (H100,
// arxiv-sized: 0.191 against 0.380 ms at 100 columns, 0.076 against 0.087
// at 48; TestSpMMBF16 passed on an H100 with it on and off, 2026-12-06).
var BF16SpMMOnePass = true

// GATv2Variant selects variants of the fused GATv2 destination backward
// passes, which gnnbench's attnbf16 and gatv2 parts time beside the
// current ones where gatv2.cu instantiates them (GATv2Variants): "lb3"
// and "lb4", compiled with __launch_bounds__(256, N) (at most
// 65536/(256·N) registers a thread, some spilled, so that N blocks of
// 256 threads share an SM, against 2 for the current kernels at 256
// channels a head). "", the default, runs the current kernels.
var GATv2Variant = ""

// GATv2Variants lists, for the head widths (channels, an exact kernel,
// float32 and bfloat16 in the 8-byte layout) gatv2.cu has variants of,
// the GATv2Variant values it has.
var GATv2Variants = map[int][]string{256: {"lb3"}, 64: {"lb3", "lb4"}}

// GATv2EdgeCoef selects gnnlib/cuda's edge-coefficient GATv2 backward
// at the exact head widths 64, 128, 256 and 512, float32 and bfloat16
// in the 8-byte layout (gatv2.cu's gatv2_fwde, gatv2_bwd_srce,
// gatv2_bwd_dste): the forward pass stores each edge's score and the
// signs of x_l[u] + x_r[v] (4 + C/8 bytes an edge and head), the pass
// over the transpose computes each edge's score gradient once and
// stores it, and the pass by destination then sums stored values
// without gathering a feature row, instead of both passes gathering
// rows and recomputing. The backward runs the source half first
// (cuda.GATv2.SourceFirst). Graphs whose edges would keep more than 8
// GiB (8 + C/8 bytes an edge and head), or a quarter of a GPU's memory
// under 32 GiB, run the other passes. It takes the edge-coefficient
// backward everywhere; GATv2EdgeAuto (on) chooses it where it was
// faster. Off by default; gnnbench's -gatv2-variants edge and noedge
// time the layers with it and without.
var GATv2EdgeCoef = false

// GATv2DattBlock makes the GATv2 backward passes that sum the attention
// vector's gradient (gnnlib/cuda's gatv2_bwd_dst, gatv2_bwd_dsts,
// gatv2_bwd_srce and gatv2_bwd_dste) sum it per block in shared memory
// and add each block's sum once (gatv2.cu's gatv2_datt_flush), instead of
// every lane of every group adding its own share: 4·VPL atomic adds a
// lane from the whole grid (4224 blocks of 256 threads on the H200) onto
// the same H·C floats, 32 times the L2 requests at 1x256. On the H200
// (2026-12-06, 21:00) each arxiv-sized pass at 1x256 with those adds
// took 1.2-1.5 ms more than its bytes need at 4 TB/s, the passes
// without them (forward, gatv2_bwd_srcs) about what their bytes need,
// and the wide bfloat16 layout, which spreads a lane's adds over twice
// the cache lines, twice the excess: the adds are the suspect by these
// times (no profiler ran). The same values, summed in another order.
// On by default: TestGATv2DattBlock passed on an H100 (2026-12-06
// 22:03), where the arxiv-sized nn GATv2 epoch took 13.86 ms with it
// (15.60 ms in the seventh session's H100 run, without it and before
// other changes); gnnbench's -gatv2-variants red and edge-red time it
// against the variant without it ("" turns it off).
var GATv2DattBlock = true

// GATv2EdgeAuto chooses the edge-coefficient GATv2 backward (as
// GATv2EdgeCoef does) in gnnlib/cuda's GATv2Auto mode, float32 and
// bfloat16 layers alike, at the widths the edge-coefficient kernels take
// and up to their 8 GiB (a quarter of a GPU's memory under 32 GiB). On an
// H100 (2026-12-07, with GATv2DattBlock and GATv2EdgeVariant "bal"):
//   - products-sized float32 layer, 1x256: 147.9 ms against 200.8
//     recomputing, for 19.7 against 14.5 GiB (on the H200 without
//     GATv2DattBlock: 130.9 against 155.6 ms);
//   - arxiv-sized float32 layer: 4.138-4.154 ms against 4.434-4.526 with
//     the saved edges at 1x256, 4.671-4.829 against 5.228-5.373 at 4x64,
//     at the same peak; the nn GATv2 epoch (3 x 256) 12.547 against 13.418
//     ms, its peak 1.802 against 1.716 GiB (each layer's per-edge values
//     live from its forward pass to its backward);
//   - arxiv-sized bfloat16 layer: 3.081 against 2.995 ms at 1x256 then,
//     so bfloat16 kept the saved edges until its source pass loaded each
//     edge's sign bits beside its row (2026-12-07, 15:20): 2.850 against
//     3.007 ms at 1x256 and 3.540 against 4.121 at 4x64, peak 0.590
//     against 0.599 GiB, since when bfloat16 layers take it too.
//
// (On the H200 without GATv2DattBlock the arxiv-sized float32 layer had
// been slower with it, 5.81 against 4.54 ms.) On by default since
// 2026-12-07; GATv2EdgeCoef on overrides it.
var GATv2EdgeAuto = true

// GATv2EdgeVariant selects variants of the edge-coefficient forward and
// source passes at 1x256 (float32 and bfloat16): "lb3",
// both compiled with __launch_bounds__(256, 3) (at most 85 registers a
// thread instead of 99-121, three blocks of 256 threads an SM instead of
// two); "e1", the forward so and the source pass one edge a step under
// the same bounds; "bal", the three passes with the sign bits stored as
// ballot words (C/8 contiguous bytes an edge in 16-byte stores from one
// lane, instead of C/128 byte stores from every other lane after as
// many shuffles: gatv2.cu's gatv2_ballots), the forward (72-80 registers) and
// the source pass (one edge a step, 80) under the same bounds, without
// spills at sm_90, the default from 2026-12-07 until "balcp" (on an H100
// the arxiv-sized float32 layer took 4.154 ms with it, 4.220 with e1; the
// products-sized one 147.9 against 151.3 with e1 and 150.5 with "").
// ("balpf", "balpf3" and "balpfa", which loaded the next edge's values
// a step ahead in registers, 113 of them a thread, were slower than "bal"
// on an H100 (float32 4.228 and 4.463 against 3.964 ms at 1x256) and
// were removed when "balcp" came.)
// "balcp" is "bal" with the source pass copying each edge's dOut row share,
// score, lse, D and sign words into shared memory with cp.async three
// edges ahead of the edge it sums (gatv2_sm80.cu, sm_80 and later; "bal"'s
// pass elsewhere), its indices loaded 32 at a time: Nsight Compute had the
// "bal" bfloat16 source pass waiting on its loads for 6.5 of 11.6 stall
// cycles an instruction (H100, 2026-12-07). The default since it passed
// TestGATv2EdgeCoef's cases for it (1 and 2 heads, with and without
// dropout, float32 and bfloat16) on an H100 (2026-12-07 17:50; the rest
// of the suite ran with "bal"), where the arxiv-sized layer at 1x256
// took 2.432-2.453 ms against "bal"'s 2.585-2.607 in bfloat16 (source
// pass 0.87-0.93 against 1.06-1.09) and 3.456-3.527 against 3.661-3.717
// in float32; products-sized 127.6 against 128.6 ms.
// "" runs the plain kernels; gnnbench's -gatv2-variants edge, edge-lb3,
// edge-e1, edge-bal and edge-balcp time them. The layout of the sign bits is the
// forward pass's choice: its backward follows it.
var GATv2EdgeVariant = "balcp"

// AttnPrefetch lets the fused GATv2 and Transformer kernels load each
// step's edge indices a step ahead (attn.cuh's edge_pairs and
// edge_next), so that a step waits for its row gathers only; off, they
// load them in the step, as before (a kernel argument: every width, both
// precisions). On by default; the attention tests passed with it on
// (and off, at a masked width) on an H100 (2026-12-06, final run), where
// gnnbench's -prefetch-ab, which times both, found no clear difference
// (arxiv-sized GATv2 layer at 1x256: 5.089 against 5.119 ms without; the
// hand-written GATv2 epoch 16.22 against 15.63, within the run's noise).
var AttnPrefetch = true
