// Package cuda is gnnlib's NVIDIA GPU backend: device tensors, a caching
// allocator and IO-aware graph kernels, on the CUDA driver API through
// gorgonia.org/cu.
//
// # Building
//
// The driver layer (driver_cuda.go) is compiled only with the cuda build
// tag and needs cgo and the CUDA 11.8 headers (install/setup-cuda.sh):
//
//	CGO_ENABLED=1 go build -tags cuda ./...
//
// Without the tag Open returns ErrNoCUDA, whose message says how to rebuild;
// everything else in the package is plain Go that builds, vets and tests in
// every configuration. The kernels are CUDA C, one file per family in
// kernels/ (gemm.cu, gemm_skinny.cu, spmm.cu, aggregate.cu, gatv2.cu, gat.cu, transformer.cu,
// elementwise.cu, reduce.cu, loss.cu, optim.cu, norm.cu, conv.cu, int8.cu, sample.cu,
// with common.cuh), all included by kernels/gnn.cu into one module,
// compiled to PTX for compute_70 by `go generate` (kernels/gen.sh, needs
// nvcc), committed and embedded; the driver JIT-compiles the PTX for the
// GPU present, so a binary built against CUDA 11.8 headers runs on a CUDA
// 13 driver. TestPTXFresh fails when the PTX is older than its sources.
// The Go file of each family has the family's name (gemm.go launches
// gemm.cu's kernels). The op codes the element-wise, loss and pooling
// kernels switch on are generated, with the typed codes of the device
// contract, from one table (gnnlib/tensor/backend/internal/opgen:
// opcodes_gen.go and kernels/opcodes.cuh here, the backend.MapOp,
// BinaryOp, LossOp and PoolOp constants, gnnlib/tensor's dispatch map and
// gnnlib/devicetest's references).
//
// # Machines without a GPU
//
// A -tags cuda binary needs the NVIDIA driver library (libcuda.so.1) to
// start. With the library but no usable GPU (none installed, all hidden by
// CUDA_VISIBLE_DEVICES, a driver that cannot initialise) it keeps running on
// the CPU: Open, Default and tensor.Device("cuda") return an error wrapping
// ErrNoDevice that names the driver's cuInit result, e.g.
// CUDA_ERROR_NO_DEVICE, and says how to fix it. gorgonia.org/cu calls cuInit
// in its package initialiser and exits the process when it fails, so
// cuinit_cuda.c defines cuInit in the executable: the linker binds cu's
// call to that definition before the driver library's, and it calls the
// driver's own cuInit (dlsym with RTLD_NEXT), records the result for Open
// and reports success to cu.
//
// # Kernel sources
//
// The CUDA C sources are embedded too: KernelFiles lists them and
// KernelSource returns a file or one function's definition (a kernel such
// as spmm_vec4 with its comment), the code the embedded PTX was compiled
// from, so that a notebook shows what the GPU runs.
//
// # Runtime
//
// Open starts a Device: one goroutine locked to an OS thread owns the CUDA
// context and runs every driver call, because a context is bound to a
// thread; the other goroutines queue closures to it. All kernels run in
// order on one stream. Device memory comes from a caching allocator (size
// classes, free lists, a peak counter in MemStats), so a training step makes
// no driver allocation after the first; Free returns a tensor's block at
// once, a finalizer otherwise, and the allocator starts a garbage
// collection whenever it has handed out a quarter of the bytes in use (at
// least 64 MiB) since the last, so that the blocks of unreachable tensors
// do not pile up (it was every 1 GiB: on the Fake ledger's emulation the
// quarter rule took the held peak of an arxiv-sized GCN epoch with
// nn.ReLUDropout from 1.20 to 0.95 GiB and left GATv2's at 1.73; on an
// H100, where finalisers run later than the emulation's, that GCN epoch
// held 1.09 GiB in the final run of 2026-12-06). Uploads larger than 64
// MiB go through pinned staging buffers. CrossEntropy keeps the device copy of its labels per
// label and row slice (weakly, like the graphs; at most 16 a device; the
// contents compared with the host slices at every call), so a training
// loop uploads them once.
//
// With GraphReplay on, launches and fills are recorded instead of sent one
// by one, and each recorded segment goes to the device in one round trip
// at the next call that waits or queues other work (and, with
// ReplaySegment set, every that many launches); a segment whose kernel
// sequence repeats (a training epoch with the same shapes) runs as a CUDA
// graph built at its second run and replayed after, with the arguments
// that changed updated in place. With AutoReplay (the default;
// GNNLAB_CUDA_GRAPHS=0 turns it off) each device turns replay on
// and off by itself: on while the spans between the calls that wait for
// it take under 100 µs a launch (a launch-bound loop, the Cora-sized
// epochs), off again over 160 µs (where the kernels take the time, the
// arxiv-sized ones) or when the replayed spans are no faster than those
// launched one by one before them, then tried again 64 spans later; and
// it launches one by one while sampled blocks come to the device
// (SampleBlocks, UploadBlocks: mini-batches, whose shapes change every
// step), until 64 spans after the last; GNNLAB_CUDA_GRAPHS=1 forces
// replay on.
// Device.Mapping (the session's %gpu)
// says how work meets the GPU: each graph on the device with the
// attention mapping its degrees chose, the launch mode and the replays.
//
// # Profiling
//
// A Device is a prof.EventTimer: prof.Time with Options{Device: dev} times
// each run between two events on the device's stream (StartTimer,
// StopTimer). The package's init registers DeviceMemory, the in-use bytes
// of the open devices' allocators, as its driver's memory counter
// (backend.Register, gnnlib/tensor/backend), so that
// prof.DeviceMemory reports them and
// prof.TrackMemory records a device curve beside the Go heap and
// viz.Memory draws both.
//
// # The tensor API on the GPU
//
// Device.Backend is the device as a tensor.Backend with the GraphOps
// capability of gnnlib/tensor/backend, registered there as "cuda" (for Default, the
// process's shared device 0), so notebook code trains on the GPU by moving
// its inputs and model:
//
//	dev, err := tensor.Device("cuda") // or: d, err := cuda.Default(); dev := d.Backend()
//	nn.To(model, dev)
//	x := ds.X.To(dev)
//
// The methods through which gnnlib/tensor and gnnlib/nn run their ops
// (MatMul, Map, GATv2Attention, AdamStep, ...) belong to that unexported
// adapter, not to Device: what this package exports is what a user calls
// — open a device, read its memory, upload graphs and tensors, and the
// documented kernels below, which gnnbench and the notebooks time.
//
// Device tensors are tensor.Tensor values whose Storage is a *Tensor of
// this package; gnnlib/tensor and gnnlib/nn record autograd for them on
// the usual tape with backward closures that launch this package's
// kernels. Host graphs are uploaded with their transpose at first use and
// cached per *graph.Graph (weakly: the device copy is freed when the host
// graph is collected). The backward pass frees the gradients it has
// spent, and gnnlib/nn's GCNConv and GATv2Conv their intermediates, at
// once; other intermediate tensors return to the allocator when the Go
// garbage collector finalises them: the allocator starts a collection
// whenever it has handed out a quarter of the bytes in use (see Runtime)
// and, when the driver runs out of memory, collects and waits for the
// finalisers before failing.
//
// # Sampled mini-batches
//
// Device.SampleBlocks samples a batch's blocks on the device, exactly the
// blocks of data.SampleBlocks (its host model: uniform with replacement
// from a counter-based hash) for the same seed. The graph's CSR stays on
// the device with two node-sized int32 arrays; per hop, one thread per
// destination draws its edges, the sources new to the hop are flagged,
// numbered by an exclusive scan of the flags and compacted (no sort), the
// edges are relabelled and each row sorted; each block's transpose is
// built by a counting sort (a histogram with atomics, a scan, a scatter)
// with GraphSAGE's mean weights, rather than the backward passes
// scattering along the block's edges with atomic adds: the sort costs
// one atomic an edge, the scatter one a channel an edge (256 at hidden
// width). On the CPU model (BenchmarkBlockMeanBackwardCPU: the first
// block of an arxiv-sized batch, 294k edges, 256 channels, 2 goroutines)
// building the transpose and gathering over it took 81–314 ms a pass and
// the atomic scatter 4.3–5.3× as long (three runs on a loaded machine);
// on a GPU, whose float atomics are cheaper, not yet measured. A hop costs
// about sixteen launches and no wait: its buffers are sized from bounds
// known on the host before it starts (its destinations' bound times the
// fan-out for the edges, plus the destinations for the sources, at most
// the graph's nodes), and its counts stay on the device, where the next
// kernels read them. A batch's seeds go up through pinned memory without
// a wait, its kernels are handed to the device goroutine without a round
// trip each (tune.SamplePostLaunch), and its counts and then its blocks
// come back through pinned memory by copies that do not wait, each
// followed by an event that the loader's goroutine polls
// (tune.SampleAsyncDownload; with another driver, one turn of the device
// goroutine that waits), so that the device goroutine goes on queueing
// the training step meanwhile; where the hops' bounds come to at most
// 64 MiB, the lists come back at their bounds with the counts, in one
// turn and one wait. The sampler's lock covers only the queueing of a
// batch's kernels (tune.SampleUnlocked): each call downloads into pinned
// buffers of its own and builds its host blocks outside it, on a
// goroutine a hop, widening its download in parallel chunks
// (tune.SampleParallelHost), so the loader's goroutines overlap there.
// With the
// loader's ReuseBlocks, a batch's host arrays are built in memory that
// the batch before gave back, and each call keeps its preps' scratch
// (tune.SampleReuse): on a products-sized graph, whose gigabyte of host
// arrays makes Go's collector run seldom, fresh memory costs a page fault
// per 4 KiB, and the host work of a batch (widening the download, the
// host graphs and their preps) took 3.0 ms instead of 32 ms on the 2-core
// dev machine (BenchmarkSampleBlocksHostProducts). Each transpose takes nine launches, and the heavy-row lists of
// the blocks go up through pinned memory without a wait. The blocks come
// back as graph.Graph values that ops on device tensors find already on
// the device, and that the layers which read host arrays (GCN's
// normalisation, GAT's self-loops) read. Device.UploadBlocks does the same
// for blocks sampled on the host: their CSRs, heavy-row lists and the
// gather's row list go up in one copy (its one wait) and the transposes
// are built on the device. Both gather the first block's feature rows
// from a tensor kept on the device, and the loader puts each batch's
// labels in CrossEntropy's label cache on its goroutine (PreloadLabels),
// so the training step waits for no upload. data.NeighborLoader's Device and
// SampleOnDevice options call them on the loader's goroutines
// (data.BlockSampler); gnnbench's sampled part times the three feeds
// side by side. Its device tests (TestDeviceScan, TestDeviceSampleBlocks,
// TestDeviceSampledSAGEStep, TestDeviceSampledLayers) passed on an H100
// (2026-12-06); on the CPU, TestSampleKernelsEmulated runs the kernels'
// thread loops written out in Go, in the same order and with the bounded
// buffers (garbage past the counts), against data.SampleBlocks, and
// TestSampleBlocksWaitsOnce, TestUploadBlocksWaitsOnce and
// TestLoaderPreloadsLabels count the waits on a recording driver; all of
// them passed again on an H100 in the final run of 2026-12-06. In that
// run an arxiv-sized GraphSAGE batch (3 x 256, fan-outs 15, 10, 5, 1024
// seeds) took 3.82 ms with the device feed, 25.6 ms with the features
// kept on the device and the host sampler, and 62-71 ms fed from the
// host, against 6.30 ms for a plain-torch GPU sampler with PyG's SAGEConv
// (products-sized: 8.63 ms against 6.03; BENCHMARKS.md). Nothing uses it
// unless asked: the loader's default stays on the host.
//
// The training step on a products-sized batch (3 x 256, 100 features, 47
// classes) is 56 launches; BenchmarkSampledStepHost counts its host work
// on the recording driver. Launched kernel by kernel it hands the device
// goroutine 69 items a step and waits for every one (56 launches, 10
// fills: the zeroed outputs of split-K products, bias-gradient column
// sums and the loss; 2 copies: gradients cloned to be summed, where a
// block's input feeds both the mean and the roots; the loss's
// read-back). With tune.AsyncLaunch (on by default), which posts the
// fills too, 3 are waited for, the copies and the read-back; with
// tune.PostFillCopy too (on by default), the read-back; the allocator's misses add a few, which vary with when the
// collector runs. Recorded and replayed (GraphReplay; AutoReplay does
// not replay while sampled blocks come to the device), the
// step waits 3 times, in 3 segments, and once with tune.PostFillCopy
// (the segments stay 3). Under Autocast(BFloat16) the step is 94
// launches (tensor-core products and 29 conversions). gnnbench
// -sampled-step-ab times these settings on a
// device and prints which mode AutoReplay ran in. Those counts are of the
// composed SAGEConv; as one op (nn.SAGEFused, on by default since
// 2026-12-07) the float32 step is 30 launches, without the copies and the
// separate adds (BenchmarkSampledStepHost's posted+fills+fused).
//
// # Kernels
//
// MatMul is a 128x128-tiled float32 GEMM with transposed variants and
// split-K for the weight gradients (gemm2_*: k-tiles of 16, float4 global
// loads and stores where the shapes are multiples of 4, both operands
// k-major in padded shared memory, register prefetch of the next k-tile),
// with a 256x64 tile (gemm2n_*) for outputs at most 64 wide, in all three
// forms, split-K kept for the weight gradient. The weight gradients
// Xᵀ·dY at most 32 wide (a Cora-sized layer's 1433x2708·2708x16) run
// gemm_skinny*_tn (kernels/gemm_skinny.cu): a lane per output row, 32
// rows a block, the N sums in registers, K split across blocks that add
// into the output atomically (the default family, GEMMv2S, which also
// splits K from 1024 rows on for wider outputs). The superseded families
// (the original gemm_*, k-tiles of 8 and scalar loads; gemm2_* without
// the narrow tile; gemm2k8_*) stay in the PTX for gnnbench to compare,
// selected through internal/tune, which only this package's benchmarks
// and tests can import. SpMM and SpMMT multiply by a Graph's
// adjacency and its transpose, which NewGraph builds once and keeps on the
// device; two thread mappings (SpMMVec4: a lane group per row moving
// float4s, two edges in flight; SpMMWarp: a warp per row, one float per
// lane) are selectable and compared by the benchmark; SpMMAuto takes the
// first for widths that are a multiple of 4 and the second otherwise. Both
// split the rows of more than 128 edges into edge tiles summed by atomics,
// listed per direction when the graph is uploaded; Graph's String reports
// those degree statistics and the split they chose. GATv2Forward fuses
// score, softmax and aggregation of a GATv2 layer into one pass per
// destination with an online softmax, storing only the output and one
// log-sum-exp per node and head (x_l and x_r may be the halves of one
// x·[W_l W_r] product or two tensors: GATv2ForwardLR). The backward pass
// runs over the destinations, recomputing each edge's attention from the
// log-sum-exp, then over the sources through the cached transpose; where
// it pays (GATv2BackwardMode) the first pass stores per edge and head the
// attention, its score gradient and one sign bit per channel (40 bytes at
// 256 channels) so that the second gathers only rows of dOut, not x_r too;
// BackwardDst and BackwardSrc let a caller consume x_r's gradient before
// x_l's is written into the same memory. Behind the internal switch
// tune.GATv2EdgeCoef (off by default; gnnbench times it beside the
// default) the forward pass at exact head widths also stores each edge's
// score and the signs of x_l[u] + x_r[v] (4 + C/8 bytes an edge and
// head), and the backward runs the other way round (GATv2.SourceFirst):
// the pass over the transpose, which gathers dOut's rows anyway, computes
// each edge's score gradient once and stores it, and the pass by
// destination then sums stored values without gathering a feature row.
// Attention dropout (PyG's dropout
// of GATConv/GATv2Conv) is applied inside the fused kernels from a seeded
// counter-based mask, recomputed backward: AttentionDropout. The GATv2
// kernels take heads of any multiple of 4 channels up to 512, and 1024:
// exact kernels for 8, 16, ..., 1024, and between them, up to 512, masked
// ones whose lanes past the head's width load zeros and store nothing (a
// 40-channel head runs on the 64-channel mapping); the tensor API pads
// other widths with zero channels: 7 or 47 classes to the next multiple
// of 4, heads between 512 and 1024 channels to 1024 (the masked kernels of
// that group gave wrong attention gradients with dropout on the H200).
// TransformerForward and Transformer.Backward are the Graph Transformer's
// attention (TransformerConv: scores q[v]·k[u]/√C, softmax over v's
// in-edges, a weighted sum of the values) in the same layout and with the
// same widths: an online-softmax forward storing one log-sum-exp per node
// and head, a destination pass for the queries' gradient and a source
// pass over the transpose for the keys' and values', nothing per edge;
// TransformerForwardFused reads the four projections as column blocks of
// one x·[W_q W_k W_v W_skip] product and adds the skip block as it stores
// each row.
// GATForward and GAT.Backward do the same for GAT (v1), whose logits
// LeakyReLU(as[u] + ad[v]) come from per-node scores (HeadDot): a warp per
// (destination, head) with an online softmax forward, a destination pass
// and a source pass over the transpose backward, 8 channels a lane up to
// 256 and 32 (the _w kernels) up to 1024, masked past the head's width.
// The caching allocator hands out a cached block on the allocating
// goroutine, under its mutex, calling the driver (on the device goroutine)
// only to grow; launches are posted to the device goroutine without
// waiting (internal/tune.AsyncLaunch; CUDA_LAUNCH_BLOCKING=1 makes each
// wait for its driver call, and gnnbench's nnbf16 part times both).
// The three attention families are degree-aware (SplitHeavyRows, on by
// default): when the graph has rows of more than 128 edges (the heavy
// rows Graph lists per direction at upload), each pass, forward and both
// backward, runs once over the rows with the heavy ones skipped and once
// over the heavy rows' 128-edge tiles, which leave their partial softmax
// state (output and log-sum-exp) or partial sums in scratch that a merge
// kernel (attn_merge_softmax, attn_merge_sum) folds into each heavy row;
// a 15k-edge hub of a power-law graph is then walked by 120 lane groups
// instead of one. The kernels share their lane helpers and the
// online-softmax step (kernels/attn.cuh), and the tensor API's three
// fused attention ops one lifecycle in Go (fusedAttention: pad, forward,
// unpad, backward once, free).
// Shapes the fused kernels do not take (heads over 1024 channels, sampled
// blocks for GATv2) are refused with an error wrapping tensor.ErrNotOnDevice that
// says why, and gnnlib/nn then composes the attention from other device
// ops (edge gathers, HeadDot, a softmax per destination, sums over the
// edges), so every shape the CPU takes runs on the device. SAGE's mean aggregation
// is an SpMM with weights 1/deg(v) uploaded once per graph. MatMulInt8
// and SpMMInt8 multiply int8 matrices into int32 sums (__dp4a), for
// gnnlib/quant; GEMMInt8 is the host-slice form. UnbiasAct lets a layer
// apply bias and activation in place over its pre-activation and rebuild
// it where its backward pass reads it, which is how gnnbench's GATv2 epoch
// keeps one tensor per layer; GATv2.OutAct goes further and lets the
// attention's destination pass read the activation itself, rebuilding
// each row's values as it reads them (gnnlib/nn's GATv2Conv does, through
// tensor/backend's OutAct), so that no rebuilt copy is stored at all.
// AggregateMax is degree-aware: rows of more than 128 edges are split into
// edge tiles combined by atomics on packed (value, index) keys. BiasAct,
// ActBackward, ColSum, SoftmaxNLL and Adam complete a training epoch;
// dropout masks are recomputed from a seed, never stored. gnnlib/nn's
// Adam, AdamW and SGD hand the device all of a step's parameters in one
// call, and one adam_multi or sgd_multi launch updates up to 32 of them
// (internal/tune.MultiTensorOptim),
// their pointers and sizes passed as the kernel's arguments, instead of
// one launch a parameter. SpMMBiasAct
// applies bias, ReLU and dropout as the SpMM stores its rows, and
// ActBackwardColSum masks the gradient and sums the bias gradient in one
// pass: the fusions of gnnbench's GCN epoch.
//
// The other families hold the rest of the tensor API's device ops: softmax and log-softmax along any axis (a warp per line),
// sums and arg-extrema along an axis, row gathers and atomic scatter-adds
// (IndexSelect, IndexAdd, ScatterAddRows and the backward pass of the
// max aggregation), the other element-wise maps and division, fused mean
// losses with their gradients (MSE, BCEWithLogits, NLL), SGD, the sum of
// squares of ClipGradNorm (in float64), and LayerNorm and BatchNorm
// (statistics in float64; the backward passes recompute x̂ from the saved
// mean and 1/std), axis permutations (Transpose, Permute), and Conv2D as
// im2col with one row per output pixel, one GEMM with the weight and a
// permutation to NCHW (col2im gathers the input gradient per element,
// without atomics), with max and average pooling whose backward pass
// finds each window's maximum again. Concat and Narrow are column copies
// (CopyCols).
//
// # Bfloat16 and the tensor cores
//
// A BF16Tensor holds a matrix in bfloat16, two bytes a value (the
// allocator counts half a Tensor's bytes). ToBF16 rounds a Tensor to it
// (to nearest even, bit for bit as gnnlib/internal/half) and Float32
// turns it back; RoundHalf rounds float32 values in place to bfloat16 or
// float16, which is how the backend runs tensor.Autocast(Float16) (it
// implements tensor.HalfBackend). Under tensor.Autocast(BFloat16) the
// backend keeps ops' outputs and gradients as BF16Tensor storage
// (tensor.HalfStorer, halfstore.go): MatMul runs MatMulBF16Out, the graph
// SpMMs SpMMBF16Out and SpMMBF16TOut, a bias row, ReLU, dropout and their
// gradients BiasActBF16 and ActBackwardBF16, the fused GAT, GATv2 and
// Graph Transformer attention, with BF16Attention on (the default),
// their _bf16 kernels (GATForwardBF16,
// GAT.BackwardBF16; GATv2ForwardBF16, BackwardDstBF16, BackwardSrcBF16;
// TransformerForwardBF16, TransformerForwardFusedBF16, BackwardBF16,
// BackwardFusedBF16: bfloat16 features, output, dOut and feature
// gradients, which GATv2's and the Transformer's read 4 channels in 8
// bytes a lane (8 in 16 bytes at 256, 512 and 1024 channels a head with
// BF16WideLoads, off by default), and GAT's one a lane; the softmax
// statistics, the sums over edges, the heavy rows' partial results,
// GATv2's att, GAT's per-node scores and their gradients in float32;
// each stored value rounded once), and every other op reads a float32
// copy. The attention
// ops without BF16Attention, and GATv2's and the Transformer's when
// their heads need padding (a width not a multiple of 4), read float32
// copies of their inputs, hand back a bfloat16 copy of their float32
// output and widen it again for their backward pass, which reads the
// output (Autocast frees the float32 storage of the outputs it keeps in
// bfloat16). These conversions and the _bf16 attention kernels live in
// gnn.ptx, for every GPU. MatMulBF16
// (float32 result) and MatMulBF16Out (bfloat16 result) multiply on the
// tensor cores with mma.sync.m16n8k16 (on sm_90, wgmma where it takes the
// product: below) and float32 sums, in the three forms, with split-K for
// long inner dimensions. Their kernel streams the
// tall operand of a GNN layer's products (hundreds of thousands of rows,
// 47 to 512 columns) through a multi-stage cp.async pipeline into
// persistent blocks, with ldmatrix fragments and 16-byte stores; a
// product whose operands have odd leading dimensions (rows only 2-byte
// aligned) runs the older register-prefetch kernel, but for an nn
// product's small odd-wide B (a 47-class layer's weight), which is
// copied into rows padded to a multiple of 8 first. With
// gnnlib/cuda/internal/tune's GEMMBF16 set to GEMMBF16Big, on a GPU that
// allows a block 227 KB of shared memory (H100, H200), the same products
// run larger tiles in dynamic shared memory instead: 128 x 256, one block
// an SM, for products wider than 128 columns (so that a product up to 256
// wide reads its tall operand from L2 once), 128 x 128 and 128 x 64
// below, with B kept in shared memory for nn and nt products of K up to
// 256. SpMMBF16, SpMMBF16Out
// and their transposes over the cached transposed CSR (SpMMBF16T,
// SpMMBF16TOut) read bfloat16 features 16 bytes at a time and sum in
// float32, rows of more than 128 edges split into edge tiles as the
// float32 SpMM splits them. ColSumBF16 (gnn.ptx) sums a bfloat16 matrix's columns
// in float32 (a bias gradient). BiasActBF16 and ActBackwardBF16 are a layer's bias, ReLU and
// dropout over bfloat16 storage, and AdamBF16 the Adam step that takes a
// bfloat16 gradient, updates the float32 master weight and moments and
// writes the weight's bfloat16 copy in the same pass (these three in
// gnn.ptx). The GEMM and the SpMMs need the bfloat16 mma instructions of compute capability
// 8.0: they are compiled for compute_80 into a second module, sm80.ptx
// (kernels/sm80.cu, every kernel named sm80_*), which the driver loads
// only on such GPUs; elsewhere they return an error wrapping ErrNoBF16.
// A third module, sm90a.ptx (kernels/sm90a.cu, kernels named sm90_*),
// holds a GEMM on Hopper's warp-group MMA (wgmma), which needs PTX for
// sm_90a: the driver loads it on GPUs of compute capability 9.0 only,
// where it is the default for the products it takes (an output a
// multiple of 8 wide, operands 16-byte aligned, K a multiple of 8 but
// for weight gradients); on an H100 (2026-12-08) it brought the
// bfloat16 GATv2 layer at 1x256 from 2.42 to 2.20 ms.
// gnnbench's bf16 part times them against the float32 kernels.
//
// # Your own kernels
//
// A user's CUDA C runs on the device beside gnnlib's kernels, with no
// host program of its own: Device.Compile compiles source for the GPU
// present, Device.LoadPTX loads PTX text, and Module.Launch starts a
// kernel by name on the device's stream with this package's tensors (or
// device tensor.Tensor values, or Ints for int arrays) and scalars as
// arguments:
//
//	m, err := dev.Compile(`extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) { ... }`)
//	err = m.Launch("saxpy", (n+255)/256, 256, n, float32(2), x, y)
//
// CompilePTX, which Compile calls, uses NVRTC when a -tags cuda binary
// finds the library at run time (opened with dlopen, so that a binary
// built against CUDA 11.8 uses the GPU machine's NVRTC 13), else nvcc;
// Module.Compiler says which. Without a compiler the error wraps
// ErrNoCompiler. Without the cuda tag or a GPU there is no Device to
// load a module on (Open returns ErrNoCUDA or ErrNoDevice), but
// CompilePTX still works where nvcc is installed.
// Notebook 06 launches the learner's SAXPY and edge-parallel aggregation
// this way.
//
// # Adding a device op
//
// The recipe is in gnnlib/tensor/backend's doc ("Adding a device op"):
// an element-wise map is a row in its op table, a case in
// kernels/elementwise.cu and the CPU op; an op with a method of its own
// is its kernel, its launcher and adapter method in the family's Go file
// here, the method in tensor.Backend or backend.GraphOps, its Fake
// version, the op that records it and its case in devicetest.OpCases.
// Kernels go in the family's file under kernels/ (a new family gets its
// own .cu file and an #include line in kernels/gnn.cu), extern "C", with
// the conventions of gnn.cu; one that switches on an op code uses the
// generated macro (MAP_EXT_GELU, LOSS_MSE, ...), never a literal code.
// go generate ./gnnlib/cuda rewrites the op-code tables and recompiles
// the PTX (nvcc), stamped with the sources' hash: commit the .cu, .cuh,
// PTX and generated Go files together. A launcher checks shapes
// (shapeErr), allocates outputs with Empty or Zeros, sizes the grid with
// gridFor and calls launch; export it only when a user times it.
//
// # Benchmarks
//
// bench/gnnbench is a command that times these kernels and full GCN and
// GATv2 training steps on synthetic graphs; bench/pyg_bench.py runs the same
// shapes through PyTorch Geometric, and bench/run.sh runs both on the GPU
// machine. Results are in BENCHMARKS.md.
//
// BUG(gnnlab): SampleBlocks sorts each block row with one thread, in time
// quadratic in its length: with a fan-out of −1 a hub's row of many
// thousand edges takes milliseconds. The sampler's kernels run on the
// device's one stream, between the training step's, and a batch's
// download completes only after the step queued before it: there is no
// second stream. UploadBlocks' one copy is from pageable memory.
//
// BUG(gnnlab): the tensor-core GEMM (MatMulBF16) reached 31-73 % of the
// HBM roofline at the GNN layers' shapes on an H100 (final run,
// 2026-12-06; the issue asks 70 %, met by the products-sized Xᵀ·dY at
// 72-73 % and, with a float32 output, dY·Wᵀ at 70 % with GEMMBF16PipeRes,
// 67 % with the default; x·W arxiv-sized 34-51 %), bound by the SMs'
// reads from L2; the B-resident kernel that halves them (GEMMBF16PipeRes)
// ran within 5 % of the pipelined one. All the kernels passed
// TestMatMulBF16 there (gnnlib/cuda/internal/tune's GEMMBF16 switches
// between them). The larger tiles in dynamic shared memory
// (GEMMBF16Big, which halves those reads again) ran 0.83-1.24x of the
// pipelined kernel in a mid-session H100 run (2026-12-06 18:44): 75-77 %
// of the roofline at the products-sized Xᵀ·dY, 41-63 % at the other GNN
// shapes, x·W arxiv-sized unchanged at 32 % with a bfloat16 output, so
// the L2 reads were not the limit; the shapes furthest from the roofline
// are those that write a large output. On an H200 (2026-12-06 21:05) the
// pipelined kernel reached 22-51 % of that GPU's higher roofline, and
// the large tiles took 0.64-0.96x of its time at inner dimensions of 256
// or more, up to 1.18x at 100; the default (GEMMBF16Auto) chooses them
// by that dimension, and on compute capability 9.0 takes the wgmma
// kernels first where they take the product (an H100, 2026-12-08: 5 of
// gnnbench's 10 shapes at 70 % or more of the roofline with a float32
// output, 2 with a bfloat16 one; x·W arxiv-sized 66 % and 48 %).
//
// BUG(gnnlab): the fused attention with BF16Attention off or, for GATv2 and the Transformer,
// with padded heads, GAT's per-node scores (HeadDot), the reductions
// other than the bias gradients, the losses other than CrossEntropy
// (softmax_nll_blk_bf16, tune.BF16Loss), SGD and the element-wise ops
// other than the bias, activation and dropout passes, Narrow and Concat
// (tune.BF16ActColSum, BF16Narrow, BF16Concat) have no bfloat16 versions
// in use yet: under Autocast they read float32 copies of their bfloat16
// operands, which the garbage collector's finalizer frees (the attention
// ops and HeadDot free theirs when their kernels are launched, and the
// attention ops widen their inputs again for the backward pass). So a
// GATv2 epoch held 0.99x of its float32 peak memory under
// Autocast(BFloat16) on the H100 and ran no faster (with BF16Attention
// on, in the final run of 2026-12-06, the nn GATv2 epoch ran 1.51x faster
// than in float32 at 0.60x its peak, the GCN epoch 1.30x; the issue asks
// 1.6x). On an H100 (2026-12-06) the bfloat16 attention kernels of GAT
// and the Transformer passed their tests against the float32 kernels (TestGATBF16,
// TestTransformerBF16; a TransformerConv layer at 4x64 took 5.43 ms
// against 8.69 in float32, peak 0.52x), and with BF16Attention on Cora's
// GCN and GAT trained under bfloat16 to within 0.5 points of float32
// (TestDeviceCoraAutocastBF16Attention). GATv2's tests, which then
// compared the bfloat16 kernels' results with the float32 kernels'
// within 2⁻⁸ of the value, failed: x_r's gradient in the wide layout (up
// to 7.8x, in hundreds of values a case), at 2 heads of 64 (5 values at
// 1.67x) and through the tensor API at 2 heads of 16 (0.063 off
// float32). The first is rounding: the two layouts sum a score's and a
// dot product's channels in different orders, and ds = α·(k·g − D) and
// dxr = Σ ds·a ⊙ lrelu'(z) cancel (TestGATv2LayoutsEmulated reproduces
// it on the CPU); TestGATv2BF16 now checks both kernels against a
// float64 evaluation within the float32 rounding bound on the sums of
// absolute terms (plus 2⁻⁸ of a bfloat16 value). The third is the
// rounding of the inputs: x_l, x_r and dOut rounded to bfloat16 move
// x_r's gradient by 0.13 on the CPU (LeakyReLU's derivative jumps where
// z crosses 0), and TestAttentionBackwardAfterHalfStore's float32
// reference now reads the rounded inputs. The second has no explanation
// yet: the float32 and bfloat16 kernels of that shape do the same
// float32 arithmetic at sm_90 (ptxas). In their new form TestGATv2BF16
// and TestAttentionBackwardAfterHalfStore passed on an H100 (2026-12-06,
// final run; the worst value at 0.994 of the bound); BF16Attention is on,
// BF16WideLoads off. There a GATv2
// layer at 1x256 took 3.57 ms in bfloat16 against 5.10 in float32
// (forward 0.61 ms, destination pass 1.92, source pass 0.65), peak 0.58x,
// and a TransformerConv layer at 4x64 5.05 ms against 8.88, peak 0.52x;
// GAT's kernels load one bfloat16 channel (2 bytes) a lane. Float16 has no 16-bit storage
// (Autocast(Float16) rounds float32 storage).
// The GEMM on sm_90 is wgmma fed by cp.async, not by the bulk copy
// engine (TMA) with a persistent, warp-specialised pipeline: on an H100
// (2026-12-08) it reached 48-90 % of the roofline at the GNN layers'
// shapes it takes, with a bfloat16 output (x·W arxiv-sized 0.134 ms, where
// cuBLAS's bf16 GEMM took 0.105 in an earlier run), and nn products
// whose B holds more than 4M values (the square 8192 product: 252
// TFLOP/s against cuBLAS's 740-755) still run mma.sync (BENCHMARKS.md).
//
// BUG(gnnlab): under Autocast(BFloat16) the arxiv-sized gnnlib/nn GCN
// epoch is bound by the host, not its kernels: on an H200
// (2026-12-06 21:00, posted launches) the host took 4.13 of the epoch's
// 4.70 ms to issue it, and the epoch ran 1.29x faster than in float32
// (the issue asks 1.6x); with each launch waiting for the device
// goroutine (CUDA_LAUNCH_BLOCKING=1) it took 9.29 ms. The bfloat16 GATv2
// epoch ran 1.43x faster. Each call that waits for the device goroutine
// (an allocation from the driver, a download) hands work to a locked OS
// thread and back, tens of microseconds or more a turn on that host.
// Fills have been queued without a wait since, and the device goroutine
// and its waiters poll before parking (tune.DeviceSpin); on an H100,
// whose host hands work over far faster, the bfloat16 epochs then ran
// 2.28x (GCN) and 1.68x (GATv2) faster than in float32 (2026-12-06
// 22:03). The H200 has not run them since.
//
// BUG(gnnlab): a -tags cuda binary is linked against the NVIDIA driver
// library, libcuda.so.1, and does not start at all where it is missing (the
// dynamic loader stops it); only the default build runs on machines without
// the driver.
//
// BUG(gnnlab): through the tensor API the GATv2 epoch is slower than
// gnnbench's hand-written one and holds more memory (H100, final run of
// 2026-12-06, arxiv-sized: 17.14 ms and 2.03 GiB against 16.22 ms and
// 1.74 GiB; the GCN epoch is level, 5.88 ms and 1.09 GiB against 5.86 ms
// and 1.23 GiB). Earlier that day, with nn.ReLUDropout between the
// layers, GCN took 7.38 ms and 1.34 GiB against 6.21 ms and 1.23 GiB,
// GATv2 17.6 ms and 2.35 GiB against 17.0 ms and 1.74 GiB. Three changes,
// on by default since they ran on an H100 (2026-12-06), closed part of it:
// nn.GCNAggregateFirst (the widening layer propagates at its input's
// width, which removes an SpMM and an SpMMT at width 256 from the GCN
// epoch), nn.HandOffBiasGrad (ReLUDropout hands its layer the bias
// gradient) and tensor.ReleaseSpentActivations (the backward pass lets
// each activation go once its last reader has run; the Fake ledger's
// arxiv-sized epochs with the allocator's collections emulated: GCN 0.85
// GiB, GATv2 1.55, against 0.95 and 1.92 off). On the H100, with
// nn.ReLUDropout, the arxiv-sized GCN epoch took 6.35 ms and 1.48 GiB
// with them and 7.22 ms and 1.45 GiB without, GAT 18.3 ms and 1.93 GiB
// against 18.3 and 2.22, GATv2 17.97 ms and 2.03 GiB against 17.90 and
// 2.16: the device's finalizers run later than the ledger's emulation,
// so the peaks stay above the ledger's. Since, GATv2Conv multiplies by
// [W_src W_dst] once (nn.GATv2OneProduct, GATv2AttentionPair: the
// arxiv-sized GATv2 epoch 17.57 against 18.06 ms on an H100), and three
// changes, whose device tests passed on the H100 in the final run
// (TestForwardReLUDropoutOnDevice, TestSoftmaxNLLBlockSum), remove the
// rest of what the nn epochs
// launched beyond the hand-written ones (TestGCNEpochLaunches,
// TestGATv2EpochLaunches): nn.ForwardReLUDropout (a hidden layer's bias,
// ReLU and dropout in the layer's own pass, SpMMBiasAct's epilogue or
// BiasAct over its output; a model that calls Forward and then
// ReLUDropout still makes them passes of their own, because a layer does
// not know the activation that follows it), CrossEntropy handing
// loss.Backward() its gradient without a scaled copy, and the loss summed
// once a block (tune.LossBlockSum; the per-row atomics took 1 ms of an
// arxiv-sized epoch). CrossEntropy checks its rows and labels when it
// uploads them, not at every call (tune.CheckLabelsOnUpload; a call with
// cached labels then reads them on the host once, the cache's
// comparison: 34 µs for 169,343 labels on a 2-core machine, against 329
// µs with the check at every call; on an H100, 2026-12-06 17:18, the
// arxiv-sized GCN epoch's CrossEntropy took 0.51 ms in the op profile
// against 1.69 ms with this and the block sum off). What is
// left: copy_cols over the weights (making
// [W_src W_dst] and splitting its gradient), the seed's fill, and the
// last GATv2 layer's bias as a pass of its own. Activations the
// program's code makes return to the allocator only when the garbage
// collector finalises them. Cora-sized epochs are launch-bound (1.3-2.0 ms
// eagerly, H100, 2026-12-06 08:40); GraphReplay takes them to 0.35-0.67
// ms but adds 1.7-2.7 ms to every arxiv-sized epoch (0.4-2.7 ms with
// segments sent every 16 or 64 launches, ReplaySegment); AutoReplay, on
// by default, chooses between the two from the time per launch and needs
// three epochs to choose (and two more for a graph to be built): on an
// H100 (2026-12-06) its epochs took 0.93-1.12x of the better forced mode
// (Cora-sized GCN, GraphSAGE, GAT, GATv2 0.33, 0.37, 0.49, 0.47 ms;
// arxiv-sized GCN 7.21 ms, GATv2 17.57; in the final run 0.44, 0.39,
// 0.50, 0.55 ms against PyG's 2.26, 2.32, 4.08, 4.48, and 5.84 and 16.52
// ms arxiv-sized). Sampled mini-batches fed from the host upload their
// features and blocks every step (62-71 ms a batch of 160k nodes,
// arxiv-sized, in the final H100 run, where a plain-torch sampler on the
// GPU with PyG's SAGEConv took 6.30 ms); sampled on the device (see
// Sampled mini-batches) they took 3.82 ms there, 1.65x faster than the
// anchor, but 8.63 ms products-sized against the anchor's 6.03 (the
// issue asks 2x faster). There the loader was the limit, and within it
// the host. In a mid-session H100 run (2026-12-06 18:43, gnnbench's
// sampled A/B in one run) the sampler as now (its lock around the
// queueing only, memory reused, launches posted, the download polled,
// one batch in flight a worker) took the products-sized batch from
// 8.33 to 5.78 ms (step 4.75 ms, 1.03 waiting for the loader) and the
// arxiv-sized from 3.77 to 2.74 ms; the step itself, 4.2-4.8 ms
// products-sized, is now most of the batch, above the 3.0 ms.
// That host is slow at the sampler's host work: a products-sized
// batch's host blocks took 9.8 ms there with reused memory
// (BenchmarkSampleBlocksHostProducts; 2.6-3.2 ms on the 2-core dev
// machine), widening its download 3.4 ms. Clamp, Max
// and Min along an axis
// and the batched MatMul have no device path yet. The ops beyond a GCN/GAT
// epoch (reduce.cu, loss.cu, norm.cu, conv.cu) are simple grid-stride kernels, not tuned: BatchNorm gives one block to
// each channel, Softmax one warp to each row, IndexSelect's and
// ScatterAddRows' indices are uploaded per call, and Conv2D materialises
// the im2col matrix of the whole batch (kept for the weight gradient, as
// on the CPU).
//
// BUG(gnnlab): split-K weight gradients (Xᵀ·dY with K past 1024 rows, or
// at most 32 wide) add their K chunks with atomics, so their last bits,
// and a training run's, can differ from run to run.
//
// BUG(gnnlab): MatMul's float32 products stay short of the tensor
// cores' rate. On GPUs of compute capability 8.0 and later they run on
// the tensor cores, three TF32 products a term (tune.GEMMTF32x3,
// sm80_gemm_tf32x3_*, the default since 2026-12-07, when the whole device
// suite passed on it on an H100; its tiling is checked on the CPU by
// TestGEMMTF32x3Emulated: exact on integers, within 1e-6 of float64 on
// normal draws), at 128x128 tiles of mma.sync with 2 blocks an SM; there
// the arxiv-sized layer's x·W took 0.621 ms against the float32-FMA
// kernel's 0.737 and Xᵀ·dY 0.573 against 0.780 (Nsight Compute: 43 % of
// the SMs' compute, 66 % of memory throughput, occupancy 24 %).
// Elsewhere (gnn.ptx targets compute_70, where TF32 mma does not exist),
// and for weight gradients at most 32 wide, MatMul uses float32 FMA
// (GEMMv2S: 33-43 TFLOP/s measured on the H200 at the layers' shapes,
// about 60 % of the FP32 peak; outputs 47 or 48 wide on the 256x64
// narrow tile at 24-30 TFLOP/s).

// BUG(gnnlab): the fused GAT (v1) kernels give a warp to each (node, head)
// with up to 8 channels per lane (32 past 256), so heads narrower than 32
// channels leave lanes idle (4x64 heads: 8.9 ms a layer against 4.5 ms
// for 1x256). The composed attention that takes the shapes the fused
// kernels refuse stores several edges × heads·channels tensors and their
// gradients, where the fused kernels store one value per node and head:
// a 2048-channel head on an arxiv-sized graph needs about 20 GiB per
// such tensor. At 513-1024 channels the GATv2 destination passes spill
// registers (about 350 bytes a thread at sm_90).
// SpMMInt8 reads one byte per lane (about 1.6 TB/s on arxiv-sized graphs);
// it does not yet move 4-byte words.
//
// BUG(gnnlab): which GATv2 backward runs is chosen by measurement on
// one GPU model. tune.GATv2EdgeAuto (on since 2026-12-07) takes the
// edge-coefficient backward for float32 and bfloat16 layers within a
// quarter of a GPU's memory under 32 GiB: on an H100 the products-sized
// float32 layer at 1x256 took 147.9 against 200.8 ms (19.7 against 14.5
// GiB), the arxiv-sized one 4.14 against 4.53 ms and the arxiv-sized nn
// GATv2 epoch 12.55 against 13.42 ms (peak 1.80 against 1.72 GiB: the
// per-edge values live from each layer's forward pass to its backward;
// since the source pass writes each edge's score gradient over its
// score, 12.45 ms and 1.79 GiB; since a model's first GATv2Conv makes
// its product again in its backward pass, nn.RecomputeGATv2Product with
// fusedAttention.again, 1.551 GiB on an H100, for 0.51 ms more an
// epoch). Bfloat16 layers kept the saved edges
// (3.081 against 2.995 ms at arxiv size) until the source pass loaded
// each edge's sign bits beside its row: then 2.850 against 3.007 ms.
// Its source pass at 1x256 on sm_80 and later copies each edge's
// gathers into shared memory with cp.async three edges ahead
// (tune.GATv2EdgeVariant "balcp", 2026-12-07): the arxiv-sized layer
// took 2.43-2.45 ms in bfloat16 and 3.46-3.53 ms in float32 on an H100;
// other widths still wait for each edge's loads. On
// the H200, before the attention vector's gradient was summed per block,
// the arxiv-sized float32 layer had been slower with it (5.81 against 4.54
// ms); the H200 has not run the choice. By arithmetic it leaves one
// gather of a feature row per edge in the backward (dOut's, over the
// transpose) instead of two (x_l's in the destination pass, dOut's in
// the source pass), or three where the edges are not saved (x_r's too
// in the source pass); it exists at the exact widths 64, 128, 256 and
// 512 only, float32 and bfloat16 in the 8-byte layout.
//
// BUG(gnnlab): GAT's backward kernels (gat.cu) add each lane's share of
// the attention vectors' gradients with atomic adds from every lane
// group of the grid onto the same floats, as the GATv2 passes did until
// they summed them per block first (tune.GATv2DattBlock, on: on the
// H200 each such arxiv-sized GATv2 pass at 1x256 had taken 1.2-1.5 ms
// more than its bytes need); GAT's have not been measured for that cost.
//
// BUG(gnnlab): kernels index edges with int32, so a graph has fewer than
// 2^31 edges. Reordering (graph.RCM, then Permute) is the caller's step
// before the upload; the device path does not reorder by itself.
package cuda
