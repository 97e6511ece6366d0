package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// smallGraph is a directed 7-node graph with a hub, a duplicate-free mix of
// in-degrees, and node 6 without in-edges (so aggregators meet an empty
// row).
func smallGraph(t testing.TB) *graph.Graph {
	t.Helper()
	src := []int{1, 2, 3, 4, 0, 2, 0, 1, 5, 3, 0, 6, 6, 4, 5}
	dst := []int{0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 4, 5, 5, 3}
	g, err := graph.FromEdges(7, src, dst)
	if err != nil {
		t.Fatalf("FromEdges: %v", err)
	}
	return g
}

// weighted returns f's output multiplied element-wise by fixed random
// weights, so that the summed output GradCheck differentiates depends on
// every element (a plain sum of a softmax is constant).
func weighted(y *tensor.Tensor, seed int64) *tensor.Tensor {
	return y.Mul(tensor.NewRNG(seed).Uniform(-1, 1, y.Shape()...))
}

type gradCase struct {
	name   string
	inputs []*tensor.Tensor
	f      func() *tensor.Tensor
}

func runGradCases(t *testing.T, cases []gradCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := tensor.GradCheck(func([]*tensor.Tensor) *tensor.Tensor { return weighted(c.f(), 99) }, c.inputs, 1e-3, 2e-2)
			if err != nil {
				t.Errorf("GradCheck(%s) = %v, want nil", c.name, err)
			}
		})
	}
}

func with(x *tensor.Tensor, m nn.Module) []*tensor.Tensor {
	return append([]*tensor.Tensor{x}, m.Params()...)
}

func TestLayerGradients(t *testing.T) {
	nn.Seed(7)
	x := tensor.NewRNG(1).Normal(0, 1, 5, 4)
	img := tensor.NewRNG(2).Normal(0, 1, 2, 3, 6, 6)
	lin := nn.NewLinear(4, 3)
	conv := nn.NewConv2D(3, 4, 3, 2, 1)
	bn1 := nn.NewBatchNorm1D(4)
	bn2 := nn.NewBatchNorm2D(3)
	bnEval := nn.NewBatchNorm1D(4)
	bnEval.Forward(x) // fills the running statistics
	bnEval.SetTraining(false)
	ln := nn.NewLayerNorm(4)
	mlp := nn.NewSequential(nn.NewLinear(4, 6), nn.Tanh(), nn.NewLinear(6, 2))
	act := func(a nn.Layer) func() *tensor.Tensor { return func() *tensor.Tensor { return a.Forward(x) } }
	runGradCases(t, []gradCase{
		{"Linear", with(x, lin), func() *tensor.Tensor { return lin.Forward(x) }},
		{"ReLU", []*tensor.Tensor{x}, act(nn.ReLU())},
		{"LeakyReLU", []*tensor.Tensor{x}, act(nn.LeakyReLU(0.1))},
		{"ELU", []*tensor.Tensor{x}, act(nn.ELU(1))},
		{"Sigmoid", []*tensor.Tensor{x}, act(nn.Sigmoid())},
		{"Tanh", []*tensor.Tensor{x}, act(nn.Tanh())},
		{"GELU", []*tensor.Tensor{x}, act(nn.GELU())},
		{"Softmax", []*tensor.Tensor{x}, act(nn.Softmax(1))},
		{"LogSoftmax", []*tensor.Tensor{x}, act(nn.LogSoftmax(-1))},
		{"Dropout", []*tensor.Tensor{x}, func() *tensor.Tensor {
			nn.Seed(3) // the same mask on every call
			return nn.NewDropout(0.5).Forward(x)
		}},
		{"Conv2D", with(img, conv), func() *tensor.Tensor { return conv.Forward(img) }},
		{"MaxPool2D", []*tensor.Tensor{img}, func() *tensor.Tensor { return nn.MaxPool2D(2, 0).Forward(img) }},
		{"AvgPool2D", []*tensor.Tensor{img}, func() *tensor.Tensor { return nn.AvgPool2D(3, 2).Forward(img) }},
		{"Flatten", []*tensor.Tensor{img}, func() *tensor.Tensor { return nn.NewFlatten().Forward(img) }},
		{"BatchNorm1D", with(x, bn1), func() *tensor.Tensor { return bn1.Forward(x) }},
		{"BatchNorm2D", with(img, bn2), func() *tensor.Tensor { return bn2.Forward(img) }},
		{"BatchNorm1D/eval", with(x, bnEval), func() *tensor.Tensor { return bnEval.Forward(x) }},
		{"LayerNorm", with(x, ln), func() *tensor.Tensor { return ln.Forward(x) }},
		{"Sequential", with(x, mlp), func() *tensor.Tensor { return mlp.Forward(x) }},
	})
}

func TestGNNGradients(t *testing.T) {
	nn.Seed(11)
	g := smallGraph(t)
	x := tensor.NewRNG(3).Normal(0, 1, 7, 5)
	gcn := nn.NewGCNConv(5, 3)
	sageMean := nn.NewSAGEConv(5, 3, "mean")
	sageMax := nn.NewSAGEConv(5, 3, "max")
	gat := nn.NewGATConv(5, 3, 2, true, 0)
	gatMean := nn.NewGATConv(5, 3, 2, false, 0)
	gatv2 := nn.NewGATv2Conv(5, 3, 2, true, 0)
	gatv2Mean := nn.NewGATv2Conv(5, 2, 3, false, 0)
	gin := nn.NewGINConv(nn.NewMLP(5, 4, 3), 0.3, true)
	rng := tensor.NewRNG(5)
	hs := rng.Normal(0, 1, 7, 6)
	aSrc := rng.Normal(0, 1, 7, 2)
	aDst := rng.Normal(0, 1, 7, 2)
	hd := rng.Normal(0, 1, 7, 6)
	att := rng.Normal(0, 1, 2, 3)
	aKey := rng.Normal(0, 1, 7, 6)
	runGradCases(t, []gradCase{
		{"SpMM", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.SpMM(g.GCNNorm(), x) }},
		{"SumAggregate", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.SumAggregate(g, x) }},
		{"MeanAggregate", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.MeanAggregate(g, x) }},
		{"MaxAggregate", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.MaxAggregate(g, x) }},
		{"GATAttention/dropout", []*tensor.Tensor{hs, aSrc, aDst}, func() *tensor.Tensor {
			return nn.GATAttention(g, hs, aSrc, aDst, 2, 0.2, 0.3, tensor.NewRNG(8), true)
		}},
		{"GATv2Attention/dropout", []*tensor.Tensor{hs, hd, att}, func() *tensor.Tensor {
			return nn.GATv2Attention(g, hs, hd, att, 2, 0.2, 0.3, tensor.NewRNG(8), true)
		}},
		{"TransformerAttention", []*tensor.Tensor{hd, hs, aKey}, func() *tensor.Tensor {
			return nn.TransformerAttention(g, hd, hs, aKey, 2, 0, nil, true)
		}},
		{"TransformerAttention/dropout", []*tensor.Tensor{hd, hs, aKey}, func() *tensor.Tensor {
			return nn.TransformerAttention(g, hd, hs, aKey, 3, 0.3, tensor.NewRNG(8), true)
		}},
		{"GCNConv", with(x, gcn), func() *tensor.Tensor { return gcn.Forward(g, x) }},
		{"SAGEConv/mean", with(x, sageMean), func() *tensor.Tensor { return sageMean.Forward(g, x) }},
		{"SAGEConv/max", with(x, sageMax), func() *tensor.Tensor { return sageMax.Forward(g, x) }},
		{"GATConv/concat", with(x, gat), func() *tensor.Tensor { return gat.Forward(g, x) }},
		{"GATConv/mean", with(x, gatMean), func() *tensor.Tensor { return gatMean.Forward(g, x) }},
		{"GATv2Conv/concat", with(x, gatv2), func() *tensor.Tensor { return gatv2.Forward(g, x) }},
		{"GATv2Conv/mean", with(x, gatv2Mean), func() *tensor.Tensor { return gatv2Mean.Forward(g, x) }},
		{"GINConv", with(x, gin), func() *tensor.Tensor { return gin.Forward(g, x) }},
	})
}

// TestBlockGradients runs the layers on a sampled (rectangular) block,
// whose first rows of x are the destination nodes.
func TestBlockGradients(t *testing.T) {
	nn.Seed(12)
	g := smallGraph(t)
	blocks, err := g.SampleNeighbors([]int{0, 2}, []int{3}, 1)
	if err != nil {
		t.Fatalf("SampleNeighbors: %v", err)
	}
	b := blocks[0]
	x := tensor.NewRNG(4).Normal(0, 1, len(b.SrcNodes), 5)
	sage := nn.NewSAGEConv(5, 3, "mean")
	gat := nn.NewGATConv(5, 2, 2, true, 0)
	gatv2 := nn.NewGATv2Conv(5, 2, 2, true, 0)
	gin := nn.NewGINConv(nn.NewMLP(5, 3), 0, false)
	gcn := nn.NewGCNConv(5, 3)
	runGradCases(t, []gradCase{
		{"GCNConv", with(x, gcn), func() *tensor.Tensor { return gcn.Forward(b.Graph, x) }},
		{"SAGEConv", with(x, sage), func() *tensor.Tensor { return sage.Forward(b.Graph, x) }},
		{"GATConv", with(x, gat), func() *tensor.Tensor { return gat.Forward(b.Graph, x) }},
		{"GATv2Conv", with(x, gatv2), func() *tensor.Tensor { return gatv2.Forward(b.Graph, x) }},
		{"GINConv", with(x, gin), func() *tensor.Tensor { return gin.Forward(b.Graph, x) }},
	})
}
