package nn

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestComputationExact checks that a model of hops GCN layers predicts on
// a node's computation subgraph what it predicts on the whole graph, and
// that the mask entries are the edges into nodes within hops−1 hops (with
// their reverses on a symmetric graph).
func TestComputationExact(t *testing.T) {
	g, _, _, err := graph.BAShapes(graph.BAShapesOptions{Base: 60, M: 3, Houses: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	Seed(4)
	x := tensor.NewRNG(5).Normal(0, 1, g.NumNodes(), 4)
	convs := []*GCNConv{NewGCNConv(4, 8), NewGCNConv(8, 8), NewGCNConv(8, 3)}
	for hops := 1; hops <= 3; hops++ {
		model := func(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
			for i, c := range convs[:hops] {
				x = c.ForwardWeighted(g, x, tensor.Ones(g.NumEdges()))
				if i < hops-1 {
					x = x.ReLU()
				}
			}
			return x
		}
		var full *tensor.Tensor
		tensor.NoGrad(func() { full = model(g, x) })
		for _, node := range []int{0, 5, 61, 62, 64, 90} {
			c := computationOf(g, node, hops, true)
			var sub *tensor.Tensor
			tensor.NoGrad(func() { sub = model(c.sub, x.IndexSelect(c.nodes)) })
			if got, want := sub.Narrow(0, c.root, 1), full.Narrow(0, node, 1); !tensor.AllClose(got, want, 1e-5, 1e-6) {
				t.Errorf("hops %d, node %d: prediction on the computation subgraph %v, want %v", hops, node, got, want)
			}
			// Which edges have a mask entry.
			_, near, _, _ := g.KHopSubgraph([]int{node}, hops-1)
			in := map[int]bool{}
			for _, v := range near {
				in[v] = true
			}
			src, dst := g.Edges()
			for j, e := range c.eid {
				want := in[dst[e]] || in[src[e]]
				if got := c.param[j] < c.nParams; got != want {
					t.Errorf("hops %d, node %d: edge %d→%d has a mask entry %v, want %v", hops, node, src[e], dst[e], got, want)
				}
			}
		}
	}
}
