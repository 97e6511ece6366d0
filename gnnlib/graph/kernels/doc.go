// Package kernels holds the message-passing kernels of graph neural
// networks on plain float32 slices over a graph.Graph: SpMM and its
// transpose SpMMT, mean aggregation and its transpose MeanAggregateT, max
// and min aggregation (AggregateMax, AggregateMin) with ScatterArg as
// their backward pass, SDDMM (also the gradient of AttentionAggregate with
// respect to its weights alpha) and SDDMMAdd, the per-destination EdgeSoftmax
// and EdgeSoftmaxBackward, the multi-head AttentionAggregate and its
// transpose AttentionAggregateT, and the segment reductions over row
// offsets (SegmentSum, SegmentMean, SegmentMax, SegmentMin).
//
// They are the CPU implementations that gnnlib/nn wraps into autograd
// operations (nn.SpMM, nn.MeanAggregate, nn.GATAttention, ...); a model
// calls those. A notebook imports this package to take a layer apart:
// to compute GAT's attention by hand, or to time the sum aggregation
// alone. They are functions of the graph rather than methods of it, so
// that completion on a graph offers its structure, not raw-slice
// plumbing.
//
// Kernels take row-major matrices as []float32 with their column count,
// the graph first (the segment reductions take offsets instead, ScatterArg
// neither) and then the destination, as in gonum:
// SpMM(g, dst, x, f, w) computes dst[v,:] = Σ_{u→v} w[e]·x[u,:]. Per-edge
// arrays are indexed by edge id, the position of the edge in g.Indices.
// No kernel materialises a per-edge feature matrix. They run over row
// blocks on tensor.Threads() goroutines, the blocks cut by edge count so
// that hubs do not leave cores idle. A slice of the wrong length is a
// programmer error and panics with an error wrapping graph.ErrShape.
//
// BUG(gnnlab): Kernels are plain Go loops, unrolled by hand but not
// vectorised; the sparse feature matrix product X·W lives in gnnlib/tensor.
//
// BUG(gnnlab): ScatterArg runs on one goroutine.
package kernels
