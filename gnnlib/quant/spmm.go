package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// AggregateInt8 sums INT8 node features over in-neighbours with INT32
// accumulation: dst[v, :] = Σ_{u→v} x[u, :] for the n×f matrix x
// (n = g.NumSrc()) into dst (g.NumNodes()×f, overwritten). Edge weights
// are not applied: summing integers is exact only at one scale, so
// weights that factor into per-node scales (GCN's D^−1/2·Â·D^−1/2) are
// folded into the scales around the call instead — see QGCN. The sum of
// up to 2^24 int8 values fits in int32, so no degree can overflow it.
// Rows are split over tensor.Threads() goroutines.
func AggregateInt8(g *graph.Graph, dst []int32, x []int8, f int) {
	n := g.NumNodes()
	if len(dst) != n*f || len(x) != g.NumSrc()*f {
		panic(fmt.Errorf("quant: AggregateInt8: dst %d, x %d for %d×%d nodes, %d features: %w", len(dst), len(x), n, g.NumSrc(), f, ErrRange))
	}
	// Small graphs stay on one goroutine: starting one costs microseconds.
	grain := n
	if (g.NumEdges()+n)*f >= 1<<15 {
		grain = max(1, n/(4*tensor.Threads()))
	}
	parallelFor(n, grain, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			row := dst[v*f : v*f+f : v*f+f]
			clear(row)
			for _, u := range g.Indices[g.Indptr[v]:g.Indptr[v+1]] {
				src := x[u*f : u*f+f : u*f+f]
				for j, q := range src {
					row[j] += int32(q)
				}
			}
		}
	})
}

// AggregateInt8Ref is the naive reference of AggregateInt8.
func AggregateInt8Ref(g *graph.Graph, dst []int32, x []int8, f int) {
	clear(dst)
	src, dstNodes := g.Edges()
	for e := range src {
		for j := 0; j < f; j++ {
			dst[dstNodes[e]*f+j] += int32(x[src[e]*f+j])
		}
	}
}
