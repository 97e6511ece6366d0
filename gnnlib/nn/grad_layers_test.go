package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestPropagationLayerGradients checks APPNP, SGConv, ChebConv, GraphConv
// and TransformerConv (and its attention op) against finite differences.
func TestPropagationLayerGradients(t *testing.T) {
	nn.Seed(21)
	g := smallGraph(t)
	wg, err := g.WithWeights([]float32{0.5, 1, 2, 1.5, 1, 0.3, 1, 2, 1, 0.7, 1, 1, 0.2, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.NewRNG(3).Normal(0, 1, 7, 5)
	sgc := nn.NewSGConv(5, 3, 2, false)
	cheb1 := nn.NewChebConv(5, 3, 1)
	cheb2 := nn.NewChebConv(5, 3, 2)
	cheb4 := nn.NewChebConv(5, 3, 4)
	chebL := nn.NewChebConv(5, 3, 3)
	chebL.LambdaMax = 1.5
	gc := nn.NewGraphConv(5, 3)
	tc := nn.NewTransformerConv(5, 3, 2, true, false, 0)
	tcMean := nn.NewTransformerConv(5, 2, 3, false, false, 0)
	tcBeta := nn.NewTransformerConv(5, 3, 2, true, true, 0)
	tcBetaMean := nn.NewTransformerConv(5, 3, 2, false, true, 0)
	tcNoRoot := nn.NewTransformerConv(5, 3, 2, true, false, 0).NoRootWeight()
	rng := tensor.NewRNG(5)
	q := rng.Normal(0, 1, 7, 6)
	k := rng.Normal(0, 1, 7, 6)
	v := rng.Normal(0, 1, 7, 6)
	runGradCases(t, []gradCase{
		{"APPNP", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.NewAPPNP(3, 0.2, 0).Forward(g, x) }},
		{"APPNP/edge-dropout", []*tensor.Tensor{x}, func() *tensor.Tensor {
			nn.Seed(3) // the same masks on every call
			return nn.NewAPPNP(3, 0.1, 0.4).Forward(g, x)
		}},
		{"SGConv", with(x, sgc), func() *tensor.Tensor { return sgc.Forward(g, x) }},
		{"ChebConv/K=1", with(x, cheb1), func() *tensor.Tensor { return cheb1.Forward(g, x) }},
		{"ChebConv/K=2", with(x, cheb2), func() *tensor.Tensor { return cheb2.Forward(g, x) }},
		{"ChebConv/K=4", with(x, cheb4), func() *tensor.Tensor { return cheb4.Forward(g, x) }},
		{"ChebConv/weighted-lambda1.5", with(x, chebL), func() *tensor.Tensor { return chebL.Forward(wg, x) }},
		{"GraphConv", with(x, gc), func() *tensor.Tensor { return gc.Forward(g, x) }},
		{"GraphConv/weighted", with(x, gc), func() *tensor.Tensor { return gc.Forward(wg, x) }},
		{"TransformerAttention/dropout", []*tensor.Tensor{q, k, v}, func() *tensor.Tensor {
			return nn.TransformerAttention(g, q, k, v, 2, 0.3, tensor.NewRNG(8), true)
		}},
		{"TransformerConv/concat", with(x, tc), func() *tensor.Tensor { return tc.Forward(g, x) }},
		{"TransformerConv/mean", with(x, tcMean), func() *tensor.Tensor { return tcMean.Forward(g, x) }},
		{"TransformerConv/beta", with(x, tcBeta), func() *tensor.Tensor { return tcBeta.Forward(g, x) }},
		{"TransformerConv/beta-mean", with(x, tcBetaMean), func() *tensor.Tensor { return tcBetaMean.Forward(g, x) }},
		{"TransformerConv/no-root", with(x, tcNoRoot), func() *tensor.Tensor { return tcNoRoot.Forward(g, x) }},
	})
}

// TestPropagationBlockGradients runs GraphConv and TransformerConv on a
// sampled block, whose first rows of x are the destinations.
func TestPropagationBlockGradients(t *testing.T) {
	nn.Seed(22)
	g := smallGraph(t)
	blocks, err := g.SampleNeighbors([]int{0, 2}, []int{3}, 1)
	if err != nil {
		t.Fatalf("SampleNeighbors: %v", err)
	}
	b := blocks[0]
	x := tensor.NewRNG(4).Normal(0, 1, len(b.SrcNodes), 5)
	gc := nn.NewGraphConv(5, 3)
	tc := nn.NewTransformerConv(5, 2, 2, true, true, 0)
	runGradCases(t, []gradCase{
		{"GraphConv", with(x, gc), func() *tensor.Tensor { return gc.Forward(b.Graph, x) }},
		{"TransformerConv", with(x, tc), func() *tensor.Tensor { return tc.Forward(b.Graph, x) }},
	})
}
