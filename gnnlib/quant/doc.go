// Package quant quantizes gnnlib models to INT8 and INT4: the schemes and
// formulas of the teaching text (sections 5 and 8.2 of
// ../shared/seeds/000_82bd3cf30aaf7010.txt), calibration observers,
// post-training quantization (PTQ), quantization-aware training (QAT) with
// the straight-through estimator, Degree-Quant for GNNs, and real integer
// kernels that run the quantized models.
//
// # Schemes
//
// Symmetric quantization maps [−α, α] onto [−127, 127]:
//
//	S = α/127,  x_q = round(x/S),  x' = x_q·S
//
// so that zero maps to zero. Affine (asymmetric) quantization maps [β, α]
// onto [0, 255]:
//
//	S = (α−β)/255,  Z = round(−β/S),  x_q = round(x/S) + Z,  x' = (x_q − Z)·S
//
// INT4 uses 7 and 15 in place of 127 and 255. NewParams, ParamsFor (per
// tensor or per channel), Quantize and QTensor.Dequantize implement these
// lines; values outside the range are clipped to the end codes. A QTensor
// stores INT8 codes one per byte and INT4 codes two per byte (PackInt4).
// Compare, MSE, SQNR and MaxAbsError measure the error.
//
// # Observers and PTQ
//
// Weights are known, so their ranges come from their values (per output
// channel by default). Activations are seen only when data flows: an
// Observer (MinMax, MovingAverage, Percentile, MSEOptimal) records them on
// a calibration set. NewSequential (an MLP or LeNet-5 from gnnlib/nn) and
// NewGNN (a GCN or GAT) wrap a trained model; Calibrate feeds the
// observers, Convert quantizes and packs the weights, and Forward runs the
// integer model:
//
//	q, _ := quant.NewGNN(gcn, quant.Config{})        // INT8, per-channel weights
//	q.Calibrate(ds.Graph, ds.X)
//	q.Convert()
//	q.PrepareInput(ds.X)                              // optional: quantize X once
//	logits, _ := q.Forward(ds.Graph, ds.X)
//
// Config.KeepFirst and KeepLast keep the most sensitive layers in float32
// (mixed precision); Config.Bits = 4 gives INT4 weights with INT8
// activations (W4A8).
//
// # QAT
//
// FakeQuant quantizes and dequantizes in the forward pass; its backward
// pass is the straight-through estimator: the gradient passes where x is
// inside the clipping range and is zero outside. LSQ learns the scale
// (Esser et al.). The wrappers' FakeForward runs the whole model with
// fake-quantized weights and activations, and FineTuneGNN and
// FineTuneSequential train the wrapper's own copy of the weights.
//
// # GNNs
//
// Summing many messages widens ranges, so aggregation accumulates in INT32
// (AggregateInt8) before requantization. A GCN layer computes
// Â·(x·W) with Â = D^−1/2·(A+I)·D^−1/2 as D^−1/2·Σ_u (D^−1/2·x·W)_u:
// the source-side D^−1/2 is applied before requantizing, the sum is over
// integers, and the destination side goes with the output scale.
//
// Forward runs each integer GCN layer in two passes over the nodes with
// no float32 activation in between: each row of the GEMM's INT32 sums is
// requantized while in cache into 16-bit lanes, four codes per 64-bit
// word; then the lanes of a node's in-neighbours are summed four features
// per addition, and the sums are scaled, biased, rectified (ReLU is the
// lower clamp of the codes) and quantized straight into the next layer's
// INT8 input. Sparse input rows whose codes are all equal (a binary or
// row-normalised bag of words) are sums of weight rows, also taken on
// 16-bit lanes. The result is bit for bit that of the unfused sequence of
// kernels. Transductive features are fixed, so PrepareInput quantizes them
// once; CompareGNN does so before timing.
//
// With Config.DegreeQuant, QAT keeps high in-degree nodes in full
// precision with a probability rising with their in-degree rank
// (Degree-Quant); the paper pairs it with percentile ranges, which
// Config.Observer set to a Percentile observer gives.
//
// # Kernels
//
// GEMMInt8 multiplies INT8 matrices into INT32 exactly. Go has no SIMD, so
// it packs three weights per 64-bit word (21-bit lanes) and does three
// multiply-adds per multiply instruction, with the lanes split off every 63
// steps before they could overflow. It was 2–5× faster than
// gnnlib/tensor's float32 kernel before that kernel gained its AVX2/FMA
// micro-kernel; on one core it is now about as fast at LeNet-5's first
// layer (784×25×6) and 1.7–15× slower at the other shapes of
// BenchmarkGEMM (medians of 3 runs of -cpu 1 on the shared development
// machine). SparseGEMMInt8 does the same for sparse features;
// AggregateInt8 sums INT8 rows over a graph. Convolutions run as an int8
// im2col followed by GEMMInt8.
//
// # Reports
//
// CompareGNN and CompareSequential return a Report — FP32, INT8 PTQ, INT8
// QAT and INT4 QAT with accuracy, parameter bytes and inference time — as
// text (String); in a notebook, viz/display/render shows it as an HTML
// table (the library knows no notebook type). Histogram and the wrappers'
// WeightDistribution return the data for a plot of values against the
// quantization grid.
//
// # Speed
//
// One INT8 GCN inference on Cora (row-normalised bag of words, after
// PrepareInput, one thread) executes 0.57× the instructions of the FP32
// model at hidden 16 and at hidden 64 (callgrind: 10.4M against 18.5M
// and 27.9M against 49.2M; the unfused path it replaced executed 1.07×
// and 1.05×), and takes 1.6–1.7× less CPU time (medians of interleaved
// rounds on the shared development machine: 1.45 against 2.42 ms and 3.6
// against 6.2 ms). On a 100,000-node stochastic block model with 64 dense
// features (average degree 20) it is 1.4–1.7× faster. Wall-clock figures
// from BenchmarkGCNInference vary by tens of percent on a busy machine:
// compare medians of -count 6 with benchstat.
//
// BUG(gnnlab): Only activations between layers are requantized; element-
// wise layers (ReLU, pooling, ELU) and GAT's attention softmax and
// weighted sum run in float32 between the integer products.
//
// BUG(gnnlab): INT4 weights are unpacked to INT8 for the GEMM: INT4
// halves the storage, not the arithmetic.
//
// BUG(gnnlab): NewGNN supports the two-layer nn.GCN and nn.GAT on
// unweighted square graphs; NewSequential supports Linear and Conv2D
// layers with parameter-free layers between them.
//
// BUG(gnnlab): The integer GCN path is pure Go (SWAR, no SIMD), while
// FP32's dense products use gnnlib/tensor's AVX2 kernel: with wide dense
// input features the dense INT8 GEMM gains least, and without
// PrepareInput quantizing the features costs about a tenth of a pass.
package quant
