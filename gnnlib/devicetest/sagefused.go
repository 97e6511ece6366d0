package devicetest

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CheckSAGEFused runs GraphSAGE (mean) on dev with nn.SAGEFused on (one
// op a layer: the root term's product added in place over x's first rows)
// and off (the composed ops), from the same weights, inputs and dropout
// draws, and checks that the outputs and the gradients of x and of every
// parameter agree within tol (RelErr): a 3-layer model over sampled
// blocks (rectangular: the destinations are the first sources), its
// hidden activations through nn.ForwardReLUDropout and, again, through
// Forward and ReLU; and single layers over g (square) that aggregate
// first (widening) and multiply first (narrowing). The activation is
// also used twice (h + h·w) so that its gradient is summed before the
// layer reads it. The first layer's input requires its gradient too.
func CheckSAGEFused(t *testing.T, dev tensor.Backend, g *graph.Graph, tol float64) {
	t.Helper()
	defer func(on bool) { nn.SAGEFused = on }(nn.SAGEFused)
	seeds := make([]int, 40)
	for i := range seeds {
		seeds[i] = (13*i + 5) % g.NumNodes()
	}
	blocks, err := data.SampleBlocks(g, seeds, []int{6, 4, 3}, 5)
	if err != nil {
		t.Fatal(err)
	}
	gs := []*graph.Graph{blocks[0].Graph, blocks[1].Graph, blocks[2].Graph}
	type model struct {
		name   string
		graphs []*graph.Graph
		dims   []int
		act    bool // nn.ForwardReLUDropout between the layers, else Forward and ReLU
	}
	for _, m := range []model{
		{"blocks, ForwardReLUDropout", gs, []int{12, 20, 20, 5}, true},
		{"blocks, Forward and ReLU", gs, []int{12, 20, 20, 5}, false},
		{"square, widening", []*graph.Graph{g}, []int{8, 20}, false},
		{"square, narrowing", []*graph.Graph{g}, []int{20, 5}, false},
	} {
		subtest(t, m.name, func(t *testing.T) {
			run := func(fused bool) []*tensor.Tensor {
				nn.SAGEFused = fused
				nn.Seed(17)
				var convs []*nn.SAGEConv
				var params []*tensor.Tensor
				for i := 0; i+1 < len(m.dims); i++ {
					c := nn.NewSAGEConv(m.dims[i], m.dims[i+1], "mean")
					nn.To(c, dev)
					convs = append(convs, c)
					params = append(params, c.Params()...)
				}
				drop := nn.NewDropout(0.3)
				x := tensor.Randn(3, m.graphs[0].NumSrc(), m.dims[0]).To(dev).SetRequiresGrad(true)
				h := x
				for i, c := range convs {
					last := i == len(convs)-1
					switch {
					case last:
						h = c.Forward(m.graphs[i], h)
					case m.act:
						h = nn.ForwardReLUDropout(c, m.graphs[i], h, drop)
					default:
						h = c.Forward(m.graphs[i], h).ReLU()
					}
				}
				w := tensor.Randn(4, h.Shape()...).To(dev)
				h.Add(h.Mul(w)).Sum().Backward()
				return outAndGrads(t, fmt.Sprintf("SAGEFused %v", fused), h, x, params)
			}
			composed, fused := run(false), run(true)
			compareRuns(t, fused, composed, func(i int) string {
				if i == 0 {
					return "the output"
				}
				return fmt.Sprintf("gradient %d (x, then each layer's WNeigh, B, WRoot)", i-1)
			}, "SAGEFused", "the composed ops'", tol)
		})
	}
}
