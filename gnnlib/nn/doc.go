// Package nn builds and trains neural networks on gnnlib/tensor: layers,
// graph neural network layers, ready models, losses, optimisers and
// parameter files. It is preloaded in gnnlab notebooks and reads like
// PyTorch (Geometric):
//
//	ds, err := data.Planetoid("cora")
//	ds.NormalizeFeatures()
//	model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
//	opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
//	for epoch := 0; epoch < 200; epoch++ {
//		model.Train()
//		loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
//		opt.ZeroGrad(); loss.Backward(); opt.Step()
//	}
//	model.Eval()
//	acc := nn.Accuracy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx)
//
// # Modules and layers
//
// A Module has Params (the tensors an optimiser updates) and SetTraining.
// A Layer adds Forward(x); a GraphLayer adds Forward(g, x) over a
// *graph.Graph. The API is non-generic and the interfaces are small
// because notebook cells run in the yaegi interpreter: a type declared in
// a cell with the three methods of Layer is a Layer, and Sequential
// collects its parameters and switches its mode like a built-in layer's.
// (The interpreter hands compiled code only the methods of the interface
// a value is converted to, so Params and SetTraining are part of Layer
// rather than discovered by type assertion.) Layers embed Mode, whose Train,
// Eval and Training methods they share; the zero Mode is training mode,
// as in PyTorch.
//
// Dense layers: Linear (weight [in, out], so y = x·W + B; x may be a
// sparse CSR tensor), Conv2D (NCHW, stride, padding), MaxPool2D,
// AvgPool2D, Flatten, Dropout (also on sparse inputs), BatchNorm (1-D over
// [N, C], 2-D over [N, C, H, W], running statistics), LayerNorm,
// activations (ReLU, LeakyReLU, ELU, Sigmoid, Tanh, GELU, Softmax,
// LogSoftmax), Func for any function and Sequential to chain them.
// BatchNorm and LayerNorm are fused ops with hand-written backward passes.
//
// # Graph layers
//
// GCNConv, SAGEConv (mean or max aggregation with a root weight),
// GATConv, GATv2Conv (multi-head, concatenated or averaged, LeakyReLU 0.2,
// attention dropout, self-loops added as PyG adds them) and GINConv.
// They are built on differentiable graph ops that wrap gnnlib/graph's
// kernels with tensor.NewOp: SpMM, SumAggregate, MeanAggregate,
// MaxAggregate, GATAttention and GATv2Attention, usable directly in
// custom layers. GCNConv multiplies by the weight before propagating, so
// sparse features cost one sparse product, and propagates over the
// graph's cached normalisation (g.GCNNorm()), computed once per graph.
// Attention runs as one fused op per layer: the edge softmax is taken per
// destination over the CSR rows, and only per-edge scalars per head are
// stored — no edge×feature tensor is ever built; GATv2's backward pass
// recomputes the per-edge sums instead of keeping them. The layers also
// accept a rectangular graph (a graph.Block from neighbour sampling),
// whose first rows of x are the destination nodes: GCNConv normalises it
// by the block's own degrees (DGL's GraphConv on a block), GATConv and
// GATv2Conv add each destination's self-loop. GCN, GraphSAGE and GAT have
// ForwardBlocks(blocks, x) for the mini-batches of data.NeighborLoader.
//
// # Heterogeneous graphs
//
// On a graph.HeteroGraph, layers map features per node type
// (map[string]*tensor.Tensor) to features per node type. RGCNConv is the
// relational GCN of Schlichtkrull et al. with basis decomposition (one
// weight per relation, each a learned mix of shared bases, a mean per
// relation, a shared root weight); HeteroConv runs any GraphLayer per
// relation and sums per destination type, as PyG's HeteroConv;
// HeteroLinear projects each type to a common width; HeteroFeatures and
// HeteroReLU are helpers. A two-layer RGCN (2 bases, hidden 16) recovers
// 97.3% of the held-out classes of a generated typed SBM (800 papers, 400
// authors, 4 classes, features with little signal; the tests check
// ≥ 95%).
//
// # Explanations
//
// ExplainNode is GNNExplainer (Ying et al. 2019) for node classification:
// it learns an edge mask and a feature mask by Adam so that the model,
// run with them, keeps its prediction for the node, with the paper's size
// and entropy regularisers (PyG's coefficients and start by default) over
// the mask entries that reach the prediction; on a symmetric graph the
// edge mask is symmetric, as in the paper. The model is given as a
// function of the graph, features and edge mask, and ExplainNode runs it
// on the node's computation subgraph, where a model of Hops layers
// predicts what it predicts on the whole graph. GCNConv.ForwardWeighted
// takes the mask as edge weights, normalised by the weighted degrees, so
// that a masked-out edge is gone; GCNConv.ForwardMasked scales each
// message and keeps the degrees, as PyG's explain hook does (both on
// WeightedSpMM, SpMM with differentiable edge weights). The Explanation
// holds both masks, the node's neighbourhood, the edges that reach the
// prediction and Top(k); viz.DrawExplanation draws it. On BA-Shapes
// (graph.BAShapes, constant features), the paper's three-layer GCN
// (ForwardWeighted; Adam at 0.005 for 3,000 epochs) and the edge mask
// alone (EdgesOnly, 100 epochs per node) rank the edges of each explained
// node's own house above the other edges of its 3-hop neighbourhood with
// ROC-AUC 0.961 ± 0.017, pooled over every 7th house node (58 nodes, all
// roles), over the 9 of 10 seeds whose GCN reaches 90% (the paper: 0.925;
// the tests check ≥ 0.90); among the edges that reach the prediction
// alone it is 0.902 ± 0.041.
//
// Graph classification reads a batch of graphs out with GlobalAddPool,
// GlobalMeanPool or GlobalMaxPool (PyG's global_*_pool, on the CPU).
//
// # Propagation and transformer layers
//
// APPNP (Klicpera et al.: Z ← (1−α)·Â·Z + α·H for K steps, with edge
// dropout), SGConv (Wu et al.: Â^K·x·W, the propagated features cached
// when asked), ChebConv (Defferrard et al.: Σ_k T_k(L̃)·x·W_k with
// L̃ = 2L/λmax − I, λmax = 2 as in PyG, evaluated by Clenshaw's recurrence
// on the projected features), GraphConv (Morris et al.: x_v·WRoot +
// Σ_u w_uv·x_u·WRel) and TransformerConv (Shi et al.: multi-head scaled
// dot-product attention over in-neighbours with PyG's root weight and
// beta gate). Each doc comment gives the layer's formula. APPNP, SGConv
// and ChebConv repeat Â·x and need a square graph; GraphConv and
// TransformerConv also run on sampled blocks. TransformerConv's
// attention is one fused op, TransformerAttention, which stores only
// per-edge scalars per head; the layer around it is made of ordinary
// ops (its doc comment lists the boundaries). On a device the op runs
// the backend's fused kernel (one log-sum-exp per node and head, the
// weights recomputed in the backward pass), or the same arithmetic
// composed of device ops for a shape the kernel refuses. Ready models: NewAPPNPNet (an MLP, then APPNP),
// NewChebNet and NewGraphTransformer (two layers each); SGConv alone is
// the SGC model.
//
// # Link prediction
//
// graph.RandomLinkSplit cuts a graph's undirected pairs into training,
// validation and test links with negative pairs, and
// graph.NegativeSampling draws fresh negatives each epoch. NewGAE is Kipf
// and Welling's graph auto-encoder (two GCN layers); DotDecode scores
// pairs by the inner product of their embeddings, ReconLoss is the
// binary cross-entropy on positive and negative pair logits, and
// LinkMetrics returns the ROC-AUC and average precision (ROCAUC,
// AveragePrecision, with scikit-learn's treatment of ties).
//
// # Ready models
//
// NewMLP(sizes...), NewLeNet5 (conv 6@5×5 padding 2, max pool, conv
// 16@5×5, max pool, dense 120, 84, 10, ReLU), NewGCN (two layers, dropout
// 0.5, ReLU), NewGraphSAGE, NewGAT (the paper's Cora model with
// NewGAT(in, 8, 8, classes): dropout 0.6, ELU, one output head) and
// NewGIN. On Cora's public split with row-normalised features and seed 1,
// 200 epochs of Adam reach 82.3% test accuracy (GCN, lr 0.01, weight
// decay 5e-4), 82.2% (GAT, lr 0.005) and 81.1% (GraphSAGE, hidden 64);
// LeNet-5 trained for three epochs on 8,000 MNIST digits reaches 97.9% on
// the other 2,000. The tests check these.
//
// The newer layers on the same split, mean ± standard deviation over
// seeds 1–10 (GNNLAB_SEEDS=10 go test -run 'TestCoraPropagationLayers|
// TestCoraGAE'; the tests alone train seed 1):
//
//	APPNP (NewAPPNPNet(1433, 64, 7, 10, 0.1), 300 epochs, test
//	accuracy at the best validation epoch)     83.5 ± 0.7 %
//	SGC (K 2, lr 0.2, weight decay 5e-5)       81.1 ± 0.05 %
//	ChebNet (hidden 16, K 3)                   81.7 ± 0.9 %
//	GraphTransformer (8 heads of 8, best
//	validation epoch)                          80.9 ± 0.6 %
//	GAE link prediction (RandomLinkSplit 5 % / 10 %, 400 epochs):
//	test ROC-AUC 0.909 ± 0.008, AP 0.914 ± 0.008
//
// # Performance
//
// One training epoch (forward, backward, Adam step), from cpubench
// (gnnlib/nn/bench) on a 16-core Xeon with 2 and 16 threads:
//
//	model        Cora (2,708 nodes)     SBM 100k nodes, ~1M edges, 128 features
//	GCN (16)     5.5 / 5.1 ms           275 / 93 ms
//	GraphSAGE    19.9 / 16.4 ms         590 / 235 ms
//	GAT (8×8)    23.3 / 18.7 ms         1,214 / 578 ms
//	LeNet-5, 8,000 MNIST digits, batches of 32: 2.2 / 1.8 s (before
//	the direct convolution, which cut it 2.3× on the 2-core machine)
//
// `make bench-pyg` runs the same cases beside PyTorch Geometric with the
// same thread count and prints the ratios; gnnlib/nn/bench/BENCHMARKS.md
// records them (every GNN case is faster than PyG; LeNet-5 projects to
// about PyTorch's time, not yet re-measured on the host).
//
// # Training
//
// Losses: CrossEntropy(logits, labels, idx) over the rows in idx (nil
// for all), NLL, MSE and BCEWithLogits; Accuracy for evaluation.
// Optimisers: NewSGD (momentum, weight decay), NewAdam (L2 weight decay
// added to the gradient, as PyTorch's Adam, so Kipf and Welling's 5e-4
// works) and NewAdamW (decoupled decay). ClipGradNorm rescales gradients.
// Schedules change an optimiser's rate once per epoch (any LRSetter):
// NewStepLR, NewCosineAnnealingLR and NewReduceLROnPlateau, as PyTorch's;
// NewEarlyStopping watches a validation metric and says when to stop and
// when the model was best. Embedding is a trainable lookup table.
// Summary, GraphSummary and InputSummary describe a model (its layers by
// field path, parameter shapes and counts, output shapes); a
// *ModelSummary prints as a text table and renders as an HTML table in
// a notebook.
// Initialisers (XavierUniform, XavierNormal, KaimingUniform,
// KaimingNormal, LeCunUniform, Uniform, Constant) fill weights in place;
// Linear.Reset and Conv2D.Reset apply one.
//
// # Mixed precision
//
// Train under tensor.Autocast for 16-bit activations with float32 master
// weights; with tensor.Float16, scale the loss with a GradScaler, as
// PyTorch's torch.amp.GradScaler does: scaler.Scale(loss).Backward(),
// scaler.Step(opt, model.Params()) (skipped when a gradient overflowed),
// scaler.Update(). Measured on Cora over 10 seeds with the CPU emulation
// (TestCoraMixedPrecision, MatMul reading both operands rounded): GCN
// 81.73 ± 0.74 % in float32, 81.69 ± 0.75 in bfloat16 and 81.72 ± 0.75 in
// float16 with the scaler; GAT 82.09 ± 0.51 and 82.02 ± 0.54 in bfloat16.
// On an H100 (gnnlib/cuda, bfloat16 storage): GCN 81.47 ± 1.09 and 81.59
// ± 1.14; GAT 82.13 ± 0.83 and 81.53 ± 1.41, 0.60 points under float32
// (see the BUG note).
//
// # Reproducibility
//
// Parameter initialisation and the dropout generators of layers and
// models draw from the package's random source: after Seed(n), building
// and training a model gives the same numbers every run. Each layer
// seeds its own dropout generator when it is built, so its masks do not
// depend on other layers.
//
// # Parameter files
//
// Save and Load write and read a model's Params in the safetensors
// format (an 8-byte little-endian header length, a JSON header, raw
// little-endian float32 data), readable by Python's safetensors package.
// Tensors are named by their position in Params ("0", "1", …). Load
// checks the whole file before changing the model and reports a
// different count or shape with an error wrapping ErrMismatch that names
// the parameter and both shapes; a file that is not float32 safetensors
// gives ErrFormat.
//
// # Devices
//
// The same model code trains on a GPU once its parameters and inputs are
// moved there:
//
//	dev, err := tensor.Device("cuda") // error without -tags cuda or a GPU
//	nn.To(model, dev)                 // the parameters, in place
//	x := ds.X.To(dev)
//	opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
//	loss := nn.CrossEntropy(model.Forward(ds.Graph, x), ds.Y, ds.TrainIdx)
//	loss.Backward()
//	opt.Step()
//
// Graphs stay *graph.Graph values: the backend uploads each one (and its
// transpose) the first time a layer uses it on the device and frees it
// with the host graph. On a device run GCNConv, GATv2Conv and GATConv at
// every shape the CPU takes (any heads and channels per head, concatenated
// or averaged, on square graphs and sampled blocks): the backend's fused
// attention kernels where they take the shape, with attention dropout
// inside them (its mask drawn on the device), and otherwise the same
// attention composed of device ops (edge gathers, a softmax per
// destination, sums over the edges), which stores per-edge tensors;
// SAGEConv (mean and max), GINConv (ε fixed or trained), Linear,
// BatchNorm (its running statistics move to the input's device), LayerNorm,
// the activations, Dropout (its mask drawn on the device, so it differs
// from the CPU's for the same seed), SpMM, SumAggregate, MeanAggregate,
// MaxAggregate, GATAttention, GATv2Attention, every loss, SGD, Adam,
// AdamW and ClipGradNorm (which copies back only the norm), and the CNN
// layers (Conv2D, MaxPool2D, AvgPool2D, Flatten: LeNet-5); Accuracy
// copies back only the predicted classes, and Save and Load copy the
// parameters through the host. An op without a device version panics
// with a *tensor.DeviceError naming it. A backend provides the graph,
// norm and optimiser kernels through the GraphOps capability of
// gnnlib/tensor/backend.
//
// On a device GCNConv, and GATv2Conv with concatenated heads (or one) on a
// square graph, run as one recorded op each, through the backend calls of
// the ops they stand for (so with the same values), and give their
// intermediates back to the device as soon as they are spent rather than
// when the garbage collector finds them: GCN's x·W and Â·x·W at once,
// GATv2's x·W_src, x·W_dst and attention output once the layer's backward
// pass has read them (a second backward pass through the layer then panics
// with a *tensor.DeviceError, as gnnlib/cuda's fused attention does). A
// GCNConv that widens its input (fewer input than output features)
// computes (Â·x)·W + B instead, propagating at the narrower width and
// keeping Â·x for the weight gradient (GCNAggregateFirst, equal up to
// rounding; on by default, GCNAggregateFirst false turns it off; under
// Autocast too with AggregateFirstUnderAutocast). On a device with
// GATv2PairOps (gnnlib/cuda's) GATv2Conv makes one product x·[W_src
// W_dst], which the attention reads as its two halves, and one each for
// the weights' and x's gradients (GATv2OneProduct, on by default), as
// gnnbench's hand-written epoch does. ForwardReLUDropout(layer, g, x, d)
// is ReLUDropout(layer.Forward(g, x), d) with, on a device with
// BiasActOps, the bias, ReLU and dropout applied in the GCNConv's or
// GATv2Conv's own pass (the propagation's epilogue, or in place over its
// product or attention output), so that the biased output the two calls
// would make (which lives until the garbage collector finds it) is never
// made (FuseLayerActivation, on by default; GATv2Conv's under
// tensor.Autocast too with FuseLayerActivationUnderAutocast, whose
// backward pass, as GCNConv's, takes the activation's gradient and the
// bias gradient in one call with ActColSumUnderAutocast). ReLUDropout is a
// hidden layer's ReLU and dropout as one op on a device that fuses them
// (ReLUDropoutOps; gnnlib/cuda's does), with the values of the two ops and
// one activation-sized tensor less per layer; GCN and GraphSAGE use it.
// Over a GCNConv's or GATv2Conv's output, on a device with
// ReLUDropoutColSumOps (gnnlib/cuda's), its backward pass also sums the
// columns of the gradient it makes and hands them to the layer as its bias
// gradient, so that the layer does not read the gradient again (unless
// another op read the layer's output too; HandOffBiasGrad, on by
// default). With RebuildGATv2Output on (the default), on a device with GATv2OutOps (gnnlib/cuda's), a
// ReLUDropout over GATv2Conv's output also frees the layer's attention
// output at once, and the layer's backward pass rebuilds it from the
// activation (equal up to rounding where its gradient is not zero, the
// only place the backward pass reads it; when another op read the layer's
// output too, it computes it again): one more N×F tensor less per layer,
// in float32 (under Autocast the layer keeps its output). When the layer's
// own op applies the ReLU and dropout (ForwardReLUDropout), its backward
// pass makes the activation's gradient, the bias gradient and the rebuilt
// output in one pass over the activation on a device with
// ReLUDropoutGradUnbiasOps (gnnlib/cuda's; RebuildInActBackward, on by
// default), where gnnbench's hand-written epoch reads the activation
// twice. With ActOutInAttention (on by default) it stores no rebuilt
// output at all: it hands the activation and the bias to the attention's
// backward pass (backend.OutAct), which rebuilds the output's values as it
// reads them, so the layer holds no more than the hand-written epoch.
// With RecomputeGATv2Product (on by default) a model's first GATv2Conv,
// whose input needs no gradient, frees its product x·[W_src W_dst] once
// the attention's forward pass has read it and makes it again in its
// backward pass, when the product holds 64 MiB or more: N×2HC values
// fewer held while the layers above run their backward passes, where a
// deep model's epoch peaks, for one more product as wide as the features
// (the arxiv-sized epoch's peak fell from 1.793 to 1.551 GiB on an H100,
// 1.468 on gnnlib/cuda's recording driver, for 0.51 ms more an epoch).
// With SAGEFused (on by default), a float32 SAGEConv with the mean
// aggregator is one op on a device with PrefixMatMulOps (under Autocast it
// runs the composed ops): the root term's product is added in place over
// the destinations' rows of x, with ForwardReLUDropout the bias, ReLU and
// dropout follow in one pass, and its backward pass adds the root term's
// input gradient into the aggregation's in place.
//
// # Errors
//
// As in gnnlib/tensor, a shape mismatch is a programmer error: layers
// panic with a *tensor.ShapeError naming both shapes, which the notebook
// session reports as a clean error. I/O returns errors.
package nn

// BUG(nn): Parameter files name tensors by position, not by layer, so a
// file fits any model whose parameters have the same shapes in the same
// order, and PyTorch state dicts cannot be loaded by name.
//
// BUG(nn): The package's random source is global to the process (as
// tensor.NoGrad is): building models on several goroutines at once is
// safe but draws in an unpredictable order, so it is not reproducible.
//
// BUG(nn): GATv2Attention's backward pass sums the attention vector's
// gradient per worker, so its last bits depend on the thread count
// (results are still identical run to run with the same count).
//
// BUG(nn): On an H100 with bfloat16 storage, GAT on Cora under
// Autocast(BFloat16) ended 0.53 points under float32 over 10 seeds (81.60
// ± 1.09 % against 82.13 ± 0.83 %), just outside the 0.5-point rule that
// gnnlib/cuda's TestDeviceCoraAutocast checks, while the CPU emulation
// lost 0.07 (paired over the same 10 seeds: −0.07 ± 0.04 points, 95 % CI
// [−0.17, 0.03]; no seed moved more than 0.4, so seed noise of that size
// does not make −0.53). One difference between the two was removed since
// (the device stored GAT's attention logits, HeadDot, in bfloat16; the
// CPU in float32), and the device still ends 0.60 under (81.53 ± 1.41 %,
// H100, 2026-12-06 09:00): paired −0.60 ± 0.44 points, 95 % CI [−1.60,
// 0.40], per seed +0.2 −0.9 −1.1 +0.3 −1.2 −0.8 +0.3 +0.4 −4.0 +0.8, so
// one seed (9) makes most of it. In the final run that day (H100, 16:31)
// TestDeviceCoraAutocast passed: GCN and GAT within 0.5 points. The CPU
// emulation still rounds the products h·att before its float32 sum, which
// the device (and PyTorch) do not.
//
// BUG(nn): On a device, the tensors a model's forward pass hands from op
// to op and then drops (a layer's activation once the backward pass has
// read it, the logits, a layer's output when Forward and ReLUDropout run
// apart) go back to the allocator only when the garbage collector
// finalises them, so a device's peak lies between devicetest.Fake's live
// peak (instant collection) and its held one (none): on the Fake, an
// arxiv-sized GCN epoch through ForwardReLUDropout holds 1.05 GiB at most
// against 0.83 live, GATv2 1.60 against 1.23 (1.76 against 1.56 before
// RecomputeGATv2Product). Freeing them when spent
// would change what a notebook may read after Backward, and a collection
// on demand took about 4 ms at that size, more than half an epoch.
// CollectAfterBackward (on by default) starts one collection on another
// goroutine at the end of a large model's backward pass, so that the
// step's activations are back before the next step allocates; within a
// step they still wait for the collector.
//
// BUG(nn): TransformerConv has no edge features (PyG's edge_dim). A SGConv's
// cache is kept for one graph and one input tensor, compared by identity:
// changing x's values in place is not noticed.
//
// BUG(nn): BatchNorm and LayerNorm run on one goroutine, and the
// per-edge attention gradients of GATAttention are summed serially.
//
// BUG(nn): The max aggregator of SAGEConv densifies sparse features.
//
// BUG(nn): The GCN of the BA-Shapes test, with the paper's constant
// features, reaches 90% for 9 of 10 seeds (seed 6: 85.7%); degree
// features make every seed train (≥ 98%) but let the model classify
// without the edges, and the explanations fall below 0.8.
//
// BUG(nn): RGCNConv, HeteroConv, WeightedSpMM, GCNConv.ForwardMasked,
// GCNConv.ForwardWeighted, ExplainNode and the global pooling ops run on
// the CPU only. HeteroConv needs one feature width for a relation's two
// node types.
//
// BUG(nn): LeNet-5 trained about 2.3 times slower per epoch than PyTorch
// on the same CPU and threads; after the direct convolution it projects
// to 0.9–1.0 times, still to be confirmed on the benchmark host
// (gnnlib/nn/bench/BENCHMARKS.md).
//
// BUG(nn): On a device, the fused attention kernels take heads of up to
// 1024 channels, and GATv2Conv's only on square graphs; wider heads and
// GATv2Conv on sampled blocks run the composed attention, which stores
// several edges × heads·channels tensors and their gradients where the
// fused kernels store one value per node and head. The device's
// max aggregator sends the gradient of a tie in a row of more than 128
// in-edges to the neighbour with the smallest index, the CPU's to the
// first in edge order (the same when the graph's rows are sorted by
// source).
