package kernels

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/internal/f32"
	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
)

// checkLen panics with an error wrapping graph.ErrShape: a wrong slice
// length is a programmer error, as a shape mismatch is in gonum.
func checkLen(op, what string, got, want int) {
	if got != want {
		panic(fmt.Errorf("kernels: %s: len(%s) = %d, want %d: %w", op, what, got, want, graph.ErrShape))
	}
}

// SpMM computes the sum aggregation dst = A·x: for each node v,
// dst[v,:] = Σ_{u→v} w[e]·x[u,:], where x is a row-major NumSrc×f matrix,
// dst is NumNodes×f and w holds one weight per edge (nil: every weight is
// 1; pass g.Weights to use the graph's own). dst is overwritten.
func SpMM(g *graph.Graph, dst, x []float32, f int, w []float32) {
	checkAgg(g, "SpMM", dst, x, w, 1, f)
	aggregate(g.Indptr, g.Indices, nil, w, 1, f, dst, x)
}

// SpMMT computes dst = Aᵀ·x, the backward pass of SpMM with respect to its
// input: dst[u,:] = Σ_{u→v} w[e]·x[v,:]. w is in g's edge order, as for
// SpMM; the kernel runs on the cached transpose.
func SpMMT(g *graph.Graph, dst, x []float32, f int, w []float32) {
	t := g.Transpose()
	checkAgg(t, "SpMMT", dst, x, w, 1, f)
	aggregate(t.Indptr, t.Indices, g.TransposeEdges(), w, 1, f, dst, x)
}

// MeanAggregate sets dst[v,:] to the mean of x[u,:] over v's in-neighbours,
// and to zero for a node without any (GraphSAGE's mean aggregator).
func MeanAggregate(g *graph.Graph, dst, x []float32, f int) {
	checkAgg(g, "MeanAggregate", dst, x, nil, 1, f)
	aggregate(g.Indptr, g.Indices, nil, nil, 1, f, dst, x)
	for v := 0; v < g.NumNodes(); v++ {
		if d := g.Indptr[v+1] - g.Indptr[v]; d > 1 {
			s := 1 / float32(d)
			row := dst[v*f : v*f+f]
			for j := range row {
				row[j] *= s
			}
		}
	}
}

// MeanAggregateT is the backward pass of MeanAggregate: dst[u,:] =
// Σ_{u→v} x[v,:]/deg(v), where x holds the gradient of the output.
func MeanAggregateT(g *graph.Graph, dst, x []float32, f int) {
	w := make([]float32, g.NumEdges())
	for v := 0; v < g.NumNodes(); v++ {
		lo, hi := g.Indptr[v], g.Indptr[v+1]
		for e := lo; e < hi; e++ {
			w[e] = 1 / float32(hi-lo)
		}
	}
	SpMMT(g, dst, x, f, w)
}

// AttentionAggregate computes the multi-head weighted sum of GAT:
// dst[v,k,:] = Σ_{u→v} alpha[e,k]·x[u,k,:] for heads k < h, where x is
// NumSrc×h×f, dst NumNodes×h×f and alpha has h weights per edge (its
// layout is E×h). No per-edge feature matrix is formed.
func AttentionAggregate(g *graph.Graph, dst, x, alpha []float32, h, f int) {
	checkAgg(g, "AttentionAggregate", dst, x, alpha, h, f)
	if alpha == nil {
		panic(fmt.Errorf("kernels: AttentionAggregate: nil alpha: %w", graph.ErrShape))
	}
	aggregate(g.Indptr, g.Indices, nil, alpha, h, f, dst, x)
}

// AttentionAggregateT is the backward pass of AttentionAggregate with
// respect to x: dst[u,k,:] = Σ_{u→v} alpha[e,k]·grad[v,k,:]. The gradient
// with respect to alpha is SDDMM(g, dAlpha, x, grad, h, f).
func AttentionAggregateT(g *graph.Graph, dst, grad, alpha []float32, h, f int) {
	t := g.Transpose()
	checkAgg(t, "AttentionAggregateT", dst, grad, alpha, h, f)
	aggregate(t.Indptr, t.Indices, g.TransposeEdges(), alpha, h, f, dst, grad)
}

func checkAgg(g *graph.Graph, op string, dst, x, w []float32, h, f int) {
	checkLen(op, "dst", len(dst), g.NumNodes()*h*f)
	checkLen(op, "x", len(x), g.NumSrc()*h*f)
	if w != nil {
		checkLen(op, "weights", len(w), g.NumEdges()*h)
	}
}

// aggregate is the one sum-aggregation kernel behind SpMM and attention:
// dst[v,k,:] = Σ_e w[emap[e],k]·x[u,k,:]. emap (nil: identity) maps the
// edges of a transpose back to the edge ids that w is laid out by.
func aggregate(indptr, indices, emap []int, w []float32, h, f int, dst, x []float32) {
	hf := h * f
	parallel.Rows(indptr, (indptr[len(indptr)-1]+len(indptr))*hf, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			d := dst[v*hf : v*hf+hf]
			clear(d)
			for e := indptr[v]; e < indptr[v+1]; e++ {
				u := indices[e]
				xs := x[u*hf : u*hf+hf]
				if w == nil {
					f32.Axpy(d, xs, 1)
					continue
				}
				we := e
				if emap != nil {
					we = emap[e]
				}
				for k := 0; k < h; k++ {
					f32.Axpy(d[k*f:k*f+f], xs[k*f:k*f+f], w[we*h+k])
				}
			}
		}
	})
}

// SDDMM computes per-edge, per-head dot products sampled by the graph:
// dst[e,k] = <a[u,k,:], b[v,k,:]> for each edge e = u→v and head k < h,
// with a NumSrc×h×f, b NumNodes×h×f and dst E×h. It is the gradient of
// AttentionAggregate with respect to alpha (a = x, b = the output's
// gradient) and the score of dot-product attention.
func SDDMM(g *graph.Graph, dst, a, b []float32, h, f int) {
	checkLen("SDDMM", "dst", len(dst), g.NumEdges()*h)
	checkLen("SDDMM", "a", len(a), g.NumSrc()*h*f)
	checkLen("SDDMM", "b", len(b), g.NumNodes()*h*f)
	hf := h * f
	parallel.Rows(g.Indptr, (g.NumEdges()+g.NumNodes())*hf, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			bv := b[v*hf : v*hf+hf]
			for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
				au := a[g.Indices[e]*hf : g.Indices[e]*hf+hf]
				for k := 0; k < h; k++ {
					dst[e*h+k] = f32.Dot(au[k*f:k*f+f], bv[k*f:k*f+f])
				}
			}
		}
	})
}

// SDDMMAdd computes per-edge sums of a source and a destination term, the
// attention logits of GAT before the LeakyReLU: dst[e,k] = aSrc[u,k] +
// aDst[v,k] for e = u→v, with aSrc NumSrc×h, aDst NumNodes×h, dst E×h.
func SDDMMAdd(g *graph.Graph, dst, aSrc, aDst []float32, h int) {
	checkLen("SDDMMAdd", "dst", len(dst), g.NumEdges()*h)
	checkLen("SDDMMAdd", "aSrc", len(aSrc), g.NumSrc()*h)
	checkLen("SDDMMAdd", "aDst", len(aDst), g.NumNodes()*h)
	parallel.Rows(g.Indptr, (g.NumEdges()+g.NumNodes())*h, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
				u := g.Indices[e]
				for k := 0; k < h; k++ {
					dst[e*h+k] = aSrc[u*h+k] + aDst[v*h+k]
				}
			}
		}
	})
}

// EdgeSoftmax normalises per-edge scores (E×h) over the in-edges of each
// destination, separately per head: dst[e,k] = exp(s[e,k]) / Σ_{e'→v}
// exp(s[e',k]). It subtracts each segment's maximum first, so large scores
// do not overflow. dst may be scores itself.
func EdgeSoftmax(g *graph.Graph, dst, scores []float32, h int) {
	checkLen("EdgeSoftmax", "dst", len(dst), g.NumEdges()*h)
	checkLen("EdgeSoftmax", "scores", len(scores), g.NumEdges()*h)
	parallel.Rows(g.Indptr, (g.NumEdges()+g.NumNodes())*h*8, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			a, b := g.Indptr[v], g.Indptr[v+1]
			for k := 0; k < h; k++ {
				m := float32(math.Inf(-1))
				for e := a; e < b; e++ {
					m = max(m, scores[e*h+k])
				}
				var sum float64
				for e := a; e < b; e++ {
					x := math.Exp(float64(scores[e*h+k] - m))
					dst[e*h+k] = float32(x)
					sum += x
				}
				inv := float32(1 / sum)
				for e := a; e < b; e++ {
					dst[e*h+k] *= inv
				}
			}
		}
	})
}

// EdgeSoftmaxBackward computes the gradient of the scores from the softmax
// output alpha and its gradient grad (both E×h): dst[e,k] =
// alpha[e,k]·(grad[e,k] − Σ_{e'→v} alpha[e',k]·grad[e',k]). dst may be grad.
func EdgeSoftmaxBackward(g *graph.Graph, dst, alpha, grad []float32, h int) {
	checkLen("EdgeSoftmaxBackward", "dst", len(dst), g.NumEdges()*h)
	checkLen("EdgeSoftmaxBackward", "alpha", len(alpha), g.NumEdges()*h)
	checkLen("EdgeSoftmaxBackward", "grad", len(grad), g.NumEdges()*h)
	parallel.Rows(g.Indptr, (g.NumEdges()+g.NumNodes())*h*2, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			a, b := g.Indptr[v], g.Indptr[v+1]
			for k := 0; k < h; k++ {
				var s float32
				for e := a; e < b; e++ {
					s += alpha[e*h+k] * grad[e*h+k]
				}
				for e := a; e < b; e++ {
					dst[e*h+k] = alpha[e*h+k] * (grad[e*h+k] - s)
				}
			}
		}
	})
}

// AggregateMax sets dst[v,j] to the largest x[u,j] over v's in-neighbours u
// and records u in arg[v*f+j] for the backward pass (ScatterArg). A node
// without in-neighbours gets 0 and arg −1. arg may be nil.
func AggregateMax(g *graph.Graph, dst, x []float32, f int, arg []int) {
	aggregateExt(g, "AggregateMax", dst, x, f, arg, func(a, b float32) bool { return a > b })
}

// AggregateMin is AggregateMax with the smallest value.
func AggregateMin(g *graph.Graph, dst, x []float32, f int, arg []int) {
	aggregateExt(g, "AggregateMin", dst, x, f, arg, func(a, b float32) bool { return a < b })
}

func aggregateExt(g *graph.Graph, op string, dst, x []float32, f int, arg []int, better func(a, b float32) bool) {
	checkAgg(g, op, dst, x, nil, 1, f)
	if arg != nil {
		checkLen(op, "arg", len(arg), len(dst))
	}
	parallel.Rows(g.Indptr, (g.NumEdges()+g.NumNodes())*f, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			a, b := g.Indptr[v], g.Indptr[v+1]
			d := dst[v*f : v*f+f]
			if a == b {
				clear(d)
				if arg != nil {
					for j := range d {
						arg[v*f+j] = -1
					}
				}
				continue
			}
			u0 := g.Indices[a]
			copy(d, x[u0*f:u0*f+f])
			if arg != nil {
				for j := range d {
					arg[v*f+j] = u0
				}
			}
			for e := a + 1; e < b; e++ {
				u := g.Indices[e]
				xs := x[u*f : u*f+f]
				for j, val := range xs {
					if better(val, d[j]) {
						d[j] = val
						if arg != nil {
							arg[v*f+j] = u
						}
					}
				}
			}
		}
	})
}

// ScatterArg is the backward pass of the max and min reductions: for each
// output entry i*f+j with arg[i*f+j] = r ≥ 0, it adds grad[i*f+j] to
// dst[r*f+j]. dst is accumulated into, not cleared.
func ScatterArg(dst, grad []float32, f int, arg []int) {
	checkLen("ScatterArg", "arg", len(arg), len(grad))
	for i, r := range arg {
		if r >= 0 {
			dst[r*f+i%f] += grad[i]
		}
	}
}

// SegmentSum sums the rows of x (row-major, f columns) within each segment
// [offsets[s], offsets[s+1]): dst[s,:] = Σ x[r,:]. With g.Indptr as offsets
// it reduces per-edge rows to their destinations.
func SegmentSum(dst, x []float32, f int, offsets []int) {
	segment("SegmentSum", dst, x, f, offsets, false)
}

// SegmentMean is SegmentSum divided by each segment's length (0 when empty).
func SegmentMean(dst, x []float32, f int, offsets []int) {
	segment("SegmentMean", dst, x, f, offsets, true)
}

func segment(op string, dst, x []float32, f int, offsets []int, mean bool) {
	n := len(offsets) - 1
	checkLen(op, "dst", len(dst), n*f)
	checkLen(op, "x", len(x), offsets[n]*f)
	parallel.Rows(offsets, (offsets[n]+n)*f, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			d := dst[s*f : s*f+f]
			clear(d)
			for r := offsets[s]; r < offsets[s+1]; r++ {
				f32.Axpy(d, x[r*f:r*f+f], 1)
			}
			if c := offsets[s+1] - offsets[s]; mean && c > 1 {
				inv := 1 / float32(c)
				for j := range d {
					d[j] *= inv
				}
			}
		}
	})
}

// SegmentMax takes the largest row entry within each segment and records
// its row in arg (length len(dst), may be nil); an empty segment gives 0
// and arg −1.
func SegmentMax(dst, x []float32, f int, offsets []int, arg []int) {
	segmentExt("SegmentMax", dst, x, f, offsets, arg, func(a, b float32) bool { return a > b })
}

// SegmentMin is SegmentMax with the smallest entry.
func SegmentMin(dst, x []float32, f int, offsets []int, arg []int) {
	segmentExt("SegmentMin", dst, x, f, offsets, arg, func(a, b float32) bool { return a < b })
}

func segmentExt(op string, dst, x []float32, f int, offsets []int, arg []int, better func(a, b float32) bool) {
	n := len(offsets) - 1
	checkLen(op, "dst", len(dst), n*f)
	checkLen(op, "x", len(x), offsets[n]*f)
	if arg != nil {
		checkLen(op, "arg", len(arg), n*f)
	}
	parallel.Rows(offsets, (offsets[n]+n)*f, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			a, b := offsets[s], offsets[s+1]
			d := dst[s*f : s*f+f]
			if a == b {
				clear(d)
				if arg != nil {
					for j := range d {
						arg[s*f+j] = -1
					}
				}
				continue
			}
			copy(d, x[a*f:a*f+f])
			if arg != nil {
				for j := range d {
					arg[s*f+j] = a
				}
			}
			for r := a + 1; r < b; r++ {
				for j, val := range x[r*f : r*f+f] {
					if better(val, d[j]) {
						d[j] = val
						if arg != nil {
							arg[s*f+j] = r
						}
					}
				}
			}
		}
	})
}
