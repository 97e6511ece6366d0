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
//   - 03-gnn.ipynb: graphs as data, message passing, a GCN from scratch,
//     Cora, over-smoothing, GAT attention and batched graph classification.
//   - 04-quantization.ipynb: symmetric and affine INT8/INT4, PTQ with
//     calibration methods, QAT with the straight-through estimator, the
//     FP32/INT8/INT4 report and Degree-Quant.
//   - 05-parallel-gpu.ipynb: Amdahl's law measured, data parallelism, the
//     roofline, the memory curve of a training step, graph reordering, and
//     GPU cells that skip with a note when there is no GPU.
//
// # Testing
//
// The notebooks are committed with their outputs cleared. go test runs
// each one top to bottom with `gnnlab run` (the binary is built once in
// TestMain) on the datasets in $GNNLAB_DATA (default ../../shared/datasets
// from this folder) and checks its key results in the executed outputs —
// accuracies, gradient checks, the Amdahl fit — and that every plotting
// cell produced a PNG. A failure names the notebook and the cell. The
// whole run takes about three minutes on two cores; go test -short skips
// it and only checks that the outputs are cleared.
//
// The Amdahl fit of notebook 5 measures the machine it runs on: on a
// loaded two-core machine the fitted p may be anywhere from 0 to 1, so the
// test checks only that a fraction was fitted and plotted.
package notebooks
