package nn

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The composed attention is GATAttention and GATv2Attention on a device
// whose fused kernels do not take the shape (a head width or a graph they
// refuse with an error wrapping tensor.ErrNotOnDevice): the same
// arithmetic as the CPU's, written with device ops that take any width —
// row gathers by edge (IndexSelect), element-wise maps, per-head dot
// products (HeadDot), a softmax per destination built from a max and a
// sum over the graph from edges to their destinations (MaxAggregate,
// SumAggregate) and a sum of the weighted messages over the same graph.
// Autograd runs through those ops, so the backward pass needs nothing of
// its own. It stores a few E × heads·f tensors where the fused kernels
// store one value per node and head: it trades memory for generality.

// edgeView is what the composed attention needs of a graph g: each edge's
// source and destination, and the rectangular graph from g's edges (as
// NumEdges source nodes) to g's destinations, over which a sum or a max
// of per-edge rows is a sum or a max over each destination's in-edges.
type edgeView struct {
	src, dst []int
	toDst    *graph.Graph
}

// edgeViews keeps the edge views of the graphs alive, so that a training
// loop uploads each one once.
var edgeViews graphMemo[*edgeView]

func edgesOf(g *graph.Graph) *edgeView {
	return edgeViews.get(g, func() *edgeView {
		e := g.NumEdges()
		ev := &edgeView{src: g.Indices[:e], dst: make([]int, e)}
		ids := make([]int, e)
		for v := 0; v < g.NumNodes(); v++ {
			for i := g.Indptr[v]; i < g.Indptr[v+1]; i++ {
				ev.dst[i] = v
			}
		}
		for i := range ids {
			ids[i] = i
		}
		t, err := graph.NewBipartite(e, g.NumNodes(), ids, ev.dst, nil)
		if err != nil {
			panic("nn: edge view of a valid graph: " + err.Error()) // cannot happen: the edges come from g
		}
		ev.toDst = t
		return ev
	})
}

// graphMemo caches values derived from graphs, one per graph for as long
// as the graph lives (backend.GraphCache: a dropped graph's value, and a
// derived graph's device copy, go with it). A value must not reach its
// own key graph, or neither ever goes.
type graphMemo[V any] struct {
	c backend.GraphCache[struct{}, V]
}

func (m *graphMemo[V]) get(g *graph.Graph, build func() V) V {
	v, _ := m.c.Get(g, struct{}{}, func() (V, error) { return build(), nil })
	return v
}

// composedGATv2 is GATv2Attention from composed device ops.
func composedGATv2(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	ev := edgesOf(g)
	f := hs.Size(1) / heads
	z := hs.IndexSelect(ev.src).Add(hd.IndexSelect(ev.dst)).LeakyReLU(slope)
	scores := deviceHeadDot(z, att.Reshape(heads, f), heads)
	return composedAggregate(ev, scores, hs, heads, f, p, rng, training)
}

// composedGAT is GATAttention from composed device ops.
func composedGAT(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	ev := edgesOf(g)
	scores := aSrc.IndexSelect(ev.src).Add(aDst.IndexSelect(ev.dst)).LeakyReLU(slope)
	return composedAggregate(ev, scores, h, heads, h.Size(1)/heads, p, rng, training)
}

// composedAggregate normalises the scores (E × heads) by a softmax over
// each destination's in-edges, drops them out with probability p while
// training, and sums the source rows of h weighted by them.
func composedAggregate(ev *edgeView, scores, h *tensor.Tensor, heads, f int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	// The softmax is invariant to a shift per destination: shifting by
	// the maximum keeps exp from overflowing and needs no gradient.
	m := MaxAggregate(ev.toDst, scores.Detach()).IndexSelect(ev.dst)
	ex := scores.Sub(m).Exp()
	alpha := ex.Div(SumAggregate(ev.toDst, ex).IndexSelect(ev.dst))
	if training && p > 0 {
		if rng == nil {
			rng = tensor.NewRNG(1)
		}
		alpha = alpha.Dropout(p, rng, true)
	}
	// Each head's weight spread over its f columns: alpha · blockdiag(1ᵀ).
	spread := make([]float32, heads*heads*f)
	for k := range heads {
		for j := range f {
			spread[k*heads*f+k*f+j] = 1
		}
	}
	w := alpha.MatMul(tensor.Wrap(spread, heads, heads*f).To(h.Device()))
	return SumAggregate(ev.toDst, h.IndexSelect(ev.src).Mul(w))
}
