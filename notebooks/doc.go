// Package notebooks holds gnnlab's teaching notebooks (the .ipynb files in
// this folder) and the test that runs them.
//
// # The notebooks
//
//   - 01-backprop.ipynb: a neuron by hand, a two-layer network's backward
//     pass checked against autograd and a numerical gradient check, the
//     learning rate, vanishing and exploding gradients and their fixes.
//   - 02-cnn.ipynb: convolution by hand, filters, stride, padding and
//     pooling, LeNet-5 on MNIST with live curves, learned filters and a
//     confusion matrix.
//   - 03-gnn.ipynb: graphs as data, message passing, Weisfeiler–Lehman
//     colour refinement, a GCN from scratch, an MLP baseline and the GCN on
//     Cora, over-smoothing with paired per-seed comparisons, GAT attention
//     and batched graph classification.
//   - 04-quantization.ipynb: symmetric and affine INT8/INT4, PTQ with
//     calibration methods, QAT with the straight-through estimator, the
//     FP32/INT8/INT4 report and Degree-Quant.
//   - 05-parallel-gpu.ipynb: Amdahl's law measured, data parallelism, the
//     roofline, the memory curve of a training step, graph reordering, the
//     IO-aware ideas as CPU experiments (a cached library-style SpMM
//     against fused custom kernels among them), and GPU cells that show
//     results recorded on a GPU (or say why they skip) when there is none.
//   - 06-cuda.ipynb: how a GPU runs gnnlab's own SpMM, max-aggregation
//     and attention kernels, their CUDA source shown, with recorded results.
//   - 07-scaling.ipynb: neighbour sampling and mini-batches, BF16, FP16
//     and INT8 rounding of a GCN, mixed-precision training (tensor.Autocast,
//     nn.GradScaler), data parallelism with a ring all-reduce written in
//     the notebook, graph partitioning, and GPU cells (tensor cores,
//     mixed precision, sampling, a cached graph and a fused kernel on a
//     GPU) that show results recorded on one when there is none.
//   - 08-applications.ipynb: link prediction with a GAE, graph
//     classification on a generated TU-format dataset, an RGCN on a
//     heterogeneous graph, and GNNExplainer on BA-Shapes.
//
// # Testing
//
// The notebooks are committed with their outputs cleared. go test runs
// each one top to bottom with `gnnlab run` (the binary is built once in
// TestMain) on the datasets in $GNNLAB_DATA (default ../../shared/datasets
// from this folder) and checks its key results in the executed outputs —
// accuracies, gradient checks, paired 95 % intervals (gnnlib/stats), the
// Amdahl fit — that every plotting cell produced a PNG, that every GPU
// cell shows measured or recorded results, and that at least three
// exercise-checking cells ran. A failure names the notebook and the cell.
// The eight take about 113 s of CPU time (106 s before 05's library-style
// SpMM and 07's mixed-precision training, 68 s before the paired
// comparisons of issue 30). go test -short skips the runs and checks only that the outputs
// are cleared and that the published HTML (html/, written by make
// notebooks) matches the notebooks' code. With GNNLAB_EXECUTED=DIR,
// TestExecutedDir runs the same checks on notebooks executed elsewhere.
//
// The Amdahl fit of notebook 5 measures the machine it runs on: on a
// loaded two-core machine the fitted p may be anywhere from 0 to 1, so the
// test checks only that a fraction was fitted and plotted.
package notebooks
