package kernels_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
)

func ExampleSpMM() {
	g, _ := graph.FromEdges(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	a := g.GCNNorm()                 // D^-1/2 (A+I) D^-1/2, cached on g
	x := []float32{1, 0, 0, 1, 1, 1} // 3 nodes × 2 features
	out := make([]float32, 6)
	kernels.SpMM(a, out, x, 2, a.Weights)
	fmt.Printf("%.3f\n", out)
	// Output:
	// [0.500 0.408 0.816 0.742 0.500 0.908]
}
