package graph

import (
	"math"
	"testing"
)

// TestBlockSelfLoopsAndNorm checks AddSelfLoops and GCNNorm on a sampled
// block against a direct count over its edge list.
func TestBlockSelfLoopsAndNorm(t *testing.T) {
	g, err := ErdosRenyi(60, 0.1, 4)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := g.SampleNeighbors([]int{3, 10, 20, 40}, []int{3, 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range blocks {
		a := b.Graph.AddSelfLoops()
		if a.NumSrc() != b.Graph.NumSrc() || a.NumNodes() != b.Graph.NumNodes() {
			t.Fatalf("block %d: AddSelfLoops changed the shape to %v", k, a)
		}
		for v := 0; v < a.NumNodes(); v++ {
			loops := 0
			for _, u := range a.Neighbors(v) {
				if u == v {
					loops++
				}
			}
			if loops != 1 {
				t.Errorf("block %d: destination %d has %d self-loops, want 1", k, v, loops)
			}
		}
		n := b.Graph.GCNNorm()
		src, dst := n.Edges()
		in := make([]float64, n.NumNodes())
		out := make([]float64, n.NumSrc())
		for e := range src {
			in[dst[e]]++
			out[src[e]]++
		}
		for e := range src {
			want := 1 / math.Sqrt(in[dst[e]]*out[src[e]])
			if got := float64(n.Weights[e]); math.Abs(got-want) > 1e-6 {
				t.Errorf("block %d: GCNNorm weight of %d→%d = %g, want %g", k, src[e], dst[e], got, want)
			}
		}
	}
	short, _ := NewBipartite(2, 3, []int{0}, []int{1}, nil)
	defer func() {
		if recover() == nil {
			t.Errorf("AddSelfLoops on 2 sources and 3 destinations did not panic")
		}
	}()
	short.AddSelfLoops()
}
