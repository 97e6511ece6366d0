package graph_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

func ExampleFromEdges() {
	// PyG's edge_index [[0, 1, 1, 2], [1, 0, 2, 1]]: the path 0 - 1 - 2.
	g, err := graph.FromEdges(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(g)
	fmt.Println("in-neighbours of 1:", g.Neighbors(1))
	_, err = graph.FromEdges(3, []int{0, 5}, []int{1, 1})
	fmt.Println(err)
	// Output:
	// Graph(nodes=3, edges=4)
	// in-neighbours of 1: [0 2]
	// graph: edge 1 (5→1) with 3 nodes: graph: edge endpoint out of range
}

func ExampleGraph_SpMM() {
	g, _ := graph.FromEdges(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	a := g.GCNNorm()                 // D^-1/2 (A+I) D^-1/2, cached on g
	x := []float32{1, 0, 0, 1, 1, 1} // 3 nodes × 2 features
	out := make([]float32, 6)
	a.SpMM(out, x, 2, a.Weights)
	fmt.Printf("%.3f\n", out)
	// Output:
	// [0.500 0.408 0.816 0.742 0.500 0.908]
}

func ExampleGraph_RCM() {
	g, _ := graph.ErdosRenyi(400, 0.01, 1)
	r, _ := g.Permute(g.RCM())
	fmt.Printf("mean edge span %.0f -> %.0f\n", g.EdgeSpan(), r.EdgeSpan())
	// Output:
	// mean edge span 129 -> 83
}
