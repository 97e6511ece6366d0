// Command cpubench is the gnnlab side of the CPU benchmark against PyTorch
// Geometric (`make bench-pyg`, driven by gnnlib/nn/bench/run.sh).
//
// # Measuring
//
//	cpubench [-threads N] [-reps R] [-warmup W] [-export DIR] [-only LIST]
//
// trains, full batch with Adam, a GCN (hidden 16), a GraphSAGE (mean,
// hidden 64) and a GAT (8 heads × 8) on Cora and on a 100,000-node
// stochastic block model (10 classes, about 1M directed edges, 128
// features), and LeNet-5 for one epoch over 8,000 MNIST digits in
// mini-batches, and prints one tab-separated line per case:
//
//	gnnlab	MODEL	DATASET	MS_PER_EPOCH	NOTE
//
// The time is the median of R epochs after W warm-up epochs, with
// tensor.SetThreads(N) and GOMAXPROCS N. -export writes the synthetic graph to
// DIR as .npy files (indptr, indices, x, y, train) before measuring, so
// that pyg_bench.py trains on the identical graph; -only picks cases by
// model or dataset name (comma-separated).
//
// # The table
//
//	cpubench -table GO.tsv PYG.tsv [INTERP.txt]
//
// joins the two sides' lines into one table with the ratio gnnlab/PyG and
// the goal of each row (issue 3: GCN on Cora ≤ 0.5, others ≤ 1.0), and adds
// the interpreter's overhead (cell/compiled) from the output of
// `go test ./interp -bench TrainingLoop` when given.
package main
