package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The differentiable graph operations below wrap gnnlib/graph's kernels as
// autograd ops (tensor.NewOp): each takes dense node features [N, F] and
// returns new ones, and its backward pass runs the transposed kernel on the
// graph's cached transpose. None of them builds a per-edge feature matrix.

// checkNodes panics unless x is a dense [n, ·] matrix.
func checkNodes(op string, x *tensor.Tensor, n int) int {
	s := x.Shape()
	if x.IsSparse() {
		panic(&tensor.ShapeError{Op: op, A: s, Msg: "needs dense node features (project sparse features with a Linear layer first, or call ToDense)"})
	}
	if len(s) != 2 || s[0] != n {
		panic(&tensor.ShapeError{Op: op, A: s, B: []int{n}, Msg: "needs [N, F] node features with one row per source node"})
	}
	return s[1]
}

// SpMM returns the weighted sum aggregation A·x: row v is Σ_{u→v} w·x[u],
// with w the graph's edge weights (1 when it has none). With
// g.GCNNorm() it is the propagation of a GCN layer.
func SpMM(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return spmm("SpMM", g, g.Weights, x)
}

// SumAggregate is SpMM ignoring edge weights: row v is Σ_{u→v} x[u].
func SumAggregate(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return spmm("SumAggregate", g, nil, x)
}

func spmm(name string, g *graph.Graph, w []float32, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() {
		return deviceSpMM(name, g, w != nil, x)
	}
	start := backend.OpStart()
	f := checkNodes(name, x, g.NumSrc())
	out := make([]float32, g.NumNodes()*f)
	kernels.SpMM(g, out, x.Data(), f, w)
	return backend.NewGraphOpSince(start, name, g.NumEdges(), tensor.Wrap(out, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx := make([]float32, g.NumSrc()*f)
		kernels.SpMMT(g, dx, grad.Data(), f, w)
		return []*tensor.Tensor{tensor.Wrap(dx, g.NumSrc(), f)}
	})
}

// MeanAggregate returns the mean of the in-neighbours' rows (zero for a
// node without in-neighbours), GraphSAGE's mean aggregator.
func MeanAggregate(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() {
		return deviceMean(g, x)
	}
	start := backend.OpStart()
	f := checkNodes("MeanAggregate", x, g.NumSrc())
	out := make([]float32, g.NumNodes()*f)
	kernels.MeanAggregate(g, out, x.Data(), f)
	return backend.NewGraphOpSince(start, "MeanAggregate", g.NumEdges(), tensor.Wrap(out, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx := make([]float32, g.NumSrc()*f)
		kernels.MeanAggregateT(g, dx, grad.Data(), f)
		return []*tensor.Tensor{tensor.Wrap(dx, g.NumSrc(), f)}
	})
}

// MaxAggregate returns the element-wise maximum of the in-neighbours' rows
// (zero for a node without in-neighbours); the gradient flows to the
// neighbour that won each element.
func MaxAggregate(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() {
		return deviceMax(g, x)
	}
	start := backend.OpStart()
	f := checkNodes("MaxAggregate", x, g.NumSrc())
	out := make([]float32, g.NumNodes()*f)
	arg := make([]int, len(out))
	kernels.AggregateMax(g, out, x.Data(), f, arg)
	return backend.NewGraphOpSince(start, "MaxAggregate", g.NumEdges(), tensor.Wrap(out, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx := make([]float32, g.NumSrc()*f)
		kernels.ScatterArg(dx, grad.Data(), f, arg)
		return []*tensor.Tensor{tensor.Wrap(dx, g.NumSrc(), f)}
	})
}

// attention holds one GAT attention pass: per-edge scalars per head only.
type attention struct {
	g           *graph.Graph
	heads, f    int
	slope       float32
	alpha       []float32 // softmax output, E×H
	mask        []float32 // dropout mask (scaled), nil without dropout
	alphaDrop   []float32 // alpha·mask, the weights actually used
	prePositive []bool    // logit before LeakyReLU was > 0 (GAT only)
}

// softmaxAndAggregate normalises the scores (E×H) per destination, applies
// attention dropout and aggregates the source rows hs with the weights.
func (a *attention) softmaxAndAggregate(scores, hs []float32, p float32, r *tensor.RNG, training bool) []float32 {
	g, h := a.g, a.heads
	kernels.EdgeSoftmax(g, scores, scores, h)
	a.alpha = scores
	a.alphaDrop = scores
	if training && p > 0 {
		a.mask = dropMask(len(scores), p, r)
		a.alphaDrop = make([]float32, len(scores))
		for i, m := range a.mask {
			a.alphaDrop[i] = scores[i] * m
		}
	}
	out := make([]float32, g.NumNodes()*h*a.f)
	kernels.AttentionAggregate(g, out, hs, a.alphaDrop, h, a.f)
	return out
}

// backwardScores returns dL/dscores (E×H, before the softmax) and, when
// wantH, the gradient of the aggregated rows hs, from the output's
// gradient grad.
func (a *attention) backwardScores(grad, hs []float32, wantH bool) (dScores, dhs []float32) {
	g, h := a.g, a.heads
	if wantH {
		dhs = make([]float32, g.NumSrc()*h*a.f)
		kernels.AttentionAggregateT(g, dhs, grad, a.alphaDrop, h, a.f)
	}
	d := make([]float32, g.NumEdges()*h)
	kernels.SDDMM(g, d, hs, grad, h, a.f)
	if a.mask != nil {
		for i := range d {
			d[i] *= a.mask[i]
		}
	}
	kernels.EdgeSoftmaxBackward(g, d, a.alpha, d, h)
	return d, dhs
}

// GATAttention is the fused attention of GATConv (Veličković et al.):
// for each edge u→v and head k, the logit LeakyReLU(aSrc[u,k] + aDst[v,k])
// is normalised by a softmax over v's in-edges, dropped out with
// probability p while training, and weights the sum of h[u,k,:] into
// row v. h is [NumSrc, heads·f], aSrc [NumSrc, heads], aDst [NumNodes,
// heads]; the result is [NumNodes, heads·f]. Only per-edge scalars per
// head are stored. rng draws the dropout mask. On a device it runs the
// backend's fused kernel, or, for a shape that kernel refuses, the same
// arithmetic composed of device ops.
func GATAttention(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	start := backend.OpStart()
	hf := checkNodes("GATAttention", h, g.NumSrc())
	if heads < 1 || hf%heads != 0 {
		panic(&tensor.ShapeError{Op: "GATAttention", A: h.Shape(), Msg: fmt.Sprintf("width not divisible by %d heads", heads)})
	}
	if checkNodes("GATAttention", aSrc, g.NumSrc()) != heads || checkNodes("GATAttention", aDst, g.NumNodes()) != heads {
		panic(&tensor.ShapeError{Op: "GATAttention", A: aSrc.Shape(), B: aDst.Shape(), Msg: fmt.Sprintf("attention logits need %d columns", heads)})
	}
	if h.IsOnDevice() {
		return deviceGAT(g, h, aSrc, aDst, heads, slope, p, rng, training)
	}
	a := &attention{g: g, heads: heads, f: hf / heads, slope: slope}
	e := g.NumEdges()
	scores := make([]float32, e*heads)
	kernels.SDDMMAdd(g, scores, aSrc.Data(), aDst.Data(), heads)
	a.prePositive = make([]bool, len(scores))
	for i, s := range scores {
		if s > 0 {
			a.prePositive[i] = true
		} else {
			scores[i] = s * slope
		}
	}
	hd := h.Data()
	out := a.softmaxAndAggregate(scores, hd, p, rng, training)
	n := g.NumNodes()
	return backend.NewOpSince(start, "GATAttention", tensor.Wrap(out, n, hf), []*tensor.Tensor{h, aSrc, aDst}, func(grad *tensor.Tensor) []*tensor.Tensor {
		d, dh := a.backwardScores(grad.Data(), hd, h.RequiresGrad())
		for i := range d {
			if !a.prePositive[i] {
				d[i] *= slope
			}
		}
		dSrc := make([]float32, g.NumSrc()*heads)
		dDst := make([]float32, n*heads)
		for v := 0; v < n; v++ {
			for ed := g.Indptr[v]; ed < g.Indptr[v+1]; ed++ {
				u := g.Indices[ed]
				for k := 0; k < heads; k++ {
					dSrc[u*heads+k] += d[ed*heads+k]
					dDst[v*heads+k] += d[ed*heads+k]
				}
			}
		}
		var dhT *tensor.Tensor
		if dh != nil {
			dhT = tensor.Wrap(dh, g.NumSrc(), hf)
		}
		return []*tensor.Tensor{dhT, tensor.Wrap(dSrc, g.NumSrc(), heads), tensor.Wrap(dDst, n, heads)}
	})
}

// GATv2Attention is the fused attention of GATv2Conv (Brody et al.): the
// logit of edge u→v and head k is Σ_j att[k,j]·LeakyReLU(hs[u,k,j] +
// hd[v,k,j]), computed edge by edge without storing the per-edge sum;
// softmax, dropout and aggregation of hs follow as in GATAttention. hs is
// [NumSrc, heads·f], hd [NumNodes, heads·f], att [heads, f]. The backward
// pass recomputes the sums instead of keeping them. On a device it runs
// the backend's fused kernel, or, for a shape that kernel refuses, the
// same arithmetic composed of device ops (which stores the per-edge
// sums).
func GATv2Attention(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	if hs.IsOnDevice() {
		checkGATv2("GATv2Attention", g, hs, hd, att, heads)
		return deviceGATv2(g, hs, hd, att, heads, slope, p, rng, training)
	}
	start := backend.OpStart()
	hf := checkGATv2("GATv2Attention", g, hs, hd, att, heads)
	f := hf / heads
	a := &attention{g: g, heads: heads, f: f, slope: slope}
	n := g.NumNodes()
	sd, dd, ad := hs.Data(), hd.Data(), att.Data()
	scores := make([]float32, g.NumEdges()*heads)
	parallelRows(g.Indptr, func(lo, hi, _ int) {
		for v := lo; v < hi; v++ {
			xv := dd[v*hf : v*hf+hf]
			for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
				xu := sd[g.Indices[e]*hf : g.Indices[e]*hf+hf]
				for k := 0; k < heads; k++ {
					var s float32
					for j := k * f; j < k*f+f; j++ {
						z := xu[j] + xv[j]
						if z < 0 {
							z *= slope
						}
						s += ad[j] * z
					}
					scores[e*heads+k] = s
				}
			}
		}
	})
	out := a.softmaxAndAggregate(scores, sd, p, rng, training)
	return backend.NewOpSince(start, "GATv2Attention", tensor.Wrap(out, n, hf), []*tensor.Tensor{hs, hd, att}, func(grad *tensor.Tensor) []*tensor.Tensor {
		d, dhs := a.backwardScores(grad.Data(), sd, true)
		dhd := make([]float32, n*hf)
		workers := workerCount(g.Indptr)
		datts := make([][]float32, workers)
		// By destination: dhd and the attention vector's gradient (one
		// accumulator per worker, summed in a fixed order).
		parallelRows(g.Indptr, func(lo, hi, w int) {
			// Worker w's rows come in pieces, in order (parallelRows).
			if datts[w] == nil {
				datts[w] = make([]float32, hf)
			}
			datt := datts[w]
			for v := lo; v < hi; v++ {
				xv := dd[v*hf : v*hf+hf]
				gv := dhd[v*hf : v*hf+hf]
				for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
					xu := sd[g.Indices[e]*hf : g.Indices[e]*hf+hf]
					for k := 0; k < heads; k++ {
						de := d[e*heads+k]
						for j := k * f; j < k*f+f; j++ {
							z := xu[j] + xv[j]
							dz := de * ad[j]
							if z < 0 {
								datt[j] += de * z * slope
								dz *= slope
							} else {
								datt[j] += de * z
							}
							gv[j] += dz
						}
					}
				}
			}
		})
		// By source, on the transpose: the logit's share of dhs.
		t, emap := g.Transpose(), g.TransposeEdges()
		parallelRows(t.Indptr, func(lo, hi, _ int) {
			for u := lo; u < hi; u++ {
				xu := sd[u*hf : u*hf+hf]
				gu := dhs[u*hf : u*hf+hf]
				for q := t.Indptr[u]; q < t.Indptr[u+1]; q++ {
					v, e := t.Indices[q], emap[q]
					xv := dd[v*hf : v*hf+hf]
					for k := 0; k < heads; k++ {
						de := d[e*heads+k]
						for j := k * f; j < k*f+f; j++ {
							dz := de * ad[j]
							if xu[j]+xv[j] < 0 {
								dz *= slope
							}
							gu[j] += dz
						}
					}
				}
			}
		})
		datt := make([]float32, hf)
		for _, part := range datts {
			for j, v := range part {
				datt[j] += v
			}
		}
		return []*tensor.Tensor{tensor.Wrap(dhs, g.NumSrc(), hf), tensor.Wrap(dhd, n, hf), tensor.Wrap(datt, att.Shape()...)}
	})
}

// checkGATv2 checks the operands of GATv2Attention and returns the width.
func checkGATv2(op string, g *graph.Graph, hs, hd, att *tensor.Tensor, heads int) int {
	hf := checkNodes(op, hs, g.NumSrc())
	if heads < 1 || hf%heads != 0 {
		panic(&tensor.ShapeError{Op: op, A: hs.Shape(), Msg: fmt.Sprintf("width not divisible by %d heads", heads)})
	}
	if checkNodes(op, hd, g.NumNodes()) != hf || att.Len() != hf {
		panic(&tensor.ShapeError{Op: op, A: hd.Shape(), B: att.Shape(), Msg: "target features and att must match the source width"})
	}
	return hf
}

// aggregationMinWork is the edges plus rows below which the attention
// loops stay on one goroutine.
const aggregationMinWork = 1 << 12

// workerCount is the number of row ranges parallelRows cuts indptr into.
func workerCount(indptr []int) int { return parallel.Workers(indptr, aggregationMinWork) }

// parallelRows is parallel.RowsByWorker: fn(lo, hi, w) on workerCount(indptr)
// ranges of about equal edges plus rows, each on its goroutine in pieces
// taken in order, cut the same way every run so per-worker partial sums
// add up in a fixed order.
func parallelRows(indptr []int, fn func(lo, hi, w int)) {
	parallel.RowsByWorker(indptr, aggregationMinWork, fn)
}

// loopCache keeps the graphs with self-loops that attention layers use, so
// that a training loop over one graph builds them (and their transposes)
// once.
var loopCache graphMemo[*graph.Graph]

// withSelfLoops returns g with a self-loop on every node (PyG's
// add_remaining_self_loops), cached.
func withSelfLoops(g *graph.Graph) *graph.Graph {
	return loopCache.get(g, g.AddSelfLoops)
}
