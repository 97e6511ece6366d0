package nn_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GraphConv adds the root term x_v·WRoot to the sum of the neighbours'
// x_u·WRel.
func ExampleGraphConv() {
	g, _ := graph.FromEdges(3, []int{0, 2, 1}, []int{1, 1, 2}) // 0→1, 2→1, 1→2
	c := nn.NewGraphConv(1, 1)
	copy(c.WRoot.Data(), []float32{10})
	copy(c.WRel.Data(), []float32{1})
	copy(c.B.Data(), []float32{0})
	x := tensor.FromSlice([]float32{1, 2, 3}, 3, 1)
	fmt.Println(c.Forward(g, x).Data())
	// Output: [10 24 32]
}

// APPNP mixes the propagated rows with the prediction it started from:
// with α = 1 nothing moves, with K = 0 steps neither.
func ExampleAPPNP() {
	g, _ := graph.FromEdges(2, []int{0, 1}, []int{1, 0})
	h := tensor.FromSlice([]float32{1, 0}, 2, 1)
	fmt.Println(nn.NewAPPNP(1, 1, 0).Forward(g, h).Data())
	// Â of two linked nodes with self-loops is ½ everywhere: one step
	// with α = 0.5 gives 0.5·[½ ½] + 0.5·[1 0].
	fmt.Println(nn.NewAPPNP(1, 0.5, 0).Forward(g, h).Data())
	// Output:
	// [1 0]
	// [0.75 0.25]
}

// SGConv is a whole SGC model: K propagations of the features, cached,
// then one linear map.
func ExampleSGConv() {
	ds := data.KarateClub()
	nn.Seed(1)
	model := nn.NewSGConv(ds.NumFeatures(), ds.NumClasses(), 2, true)
	opt := nn.NewAdam(model.Params(), 0.2, 5e-5)
	for epoch := 0; epoch < 100; epoch++ {
		loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	fmt.Printf("test accuracy %.2f\n", nn.Accuracy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx))
	// Output: test accuracy 0.97
}

// ChebConv with K terms mixes up to K−1 hops.
func ExampleChebConv() {
	g, _ := graph.FromEdges(4, []int{0, 1, 1, 2, 2, 3}, []int{1, 0, 2, 1, 3, 2})
	nn.Seed(1)
	conv := nn.NewChebConv(3, 8, 3)
	fmt.Println(conv, conv.Forward(g, tensor.Randn(1, 4, 3)).Shape(), len(conv.Params()))
	// Output: ChebConv(3, 8, K=3) [4 8] 4
}

// TransformerConv with 4 heads of 8 features and the beta gate; the
// heads are concatenated.
func ExampleTransformerConv() {
	g, _ := graph.FromEdges(3, []int{0, 1, 2, 1}, []int{1, 2, 1, 0})
	nn.Seed(1)
	conv := nn.NewTransformerConv(5, 8, 4, true, true, 0.1)
	conv.Eval()
	fmt.Println(conv.Forward(g, tensor.Randn(2, 3, 5)).Shape())
	// Output: [3 32]
}

// A GAE learns embeddings whose inner products tell the held-out links
// of a graph (here a stochastic block model of four communities) from
// random pairs.
func ExampleNewGAE() {
	g, feats, _, _ := graph.SBM(graph.SBMOptions{Sizes: []int{50, 50, 50, 50}, PIn: 0.2, POut: 0.01, Features: 16, Signal: 1, Seed: 1})
	x := tensor.FromSlice(feats, g.NumNodes(), 16)
	split, _ := graph.RandomLinkSplit(g, 0.05, 0.1, 1)
	nn.Seed(1)
	model := nn.NewGAE(16, 32, 16)
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	for epoch := 0; epoch < 100; epoch++ {
		neg, _ := graph.NegativeSampling(split.Train, split.TrainPos.Len(), uint64(epoch))
		loss := nn.ReconLoss(model.Forward(split.Train, x), split.TrainPos, neg)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	auc, ap, _ := nn.LinkMetrics(model.Forward(split.Train, x), split.TestPos, split.TestNeg)
	fmt.Printf("%d test links: ROC-AUC %.2f, AP %.2f\n", split.TestPos.Len(), auc, ap)
	// Output: 116 test links: ROC-AUC 0.80, AP 0.73
}

// ROCAUC and AveragePrecision rank scores against 0/1 labels.
func ExampleROCAUC() {
	scores := []float32{0.1, 0.4, 0.35, 0.8}
	labels := []int{0, 0, 1, 1}
	auc, _ := nn.ROCAUC(scores, labels)
	ap, _ := nn.AveragePrecision(scores, labels)
	fmt.Printf("ROC-AUC %.2f, AP %.2f\n", auc, ap)
	// Output: ROC-AUC 0.75, AP 0.83
}

// A step schedule halves the rate every 10 epochs.
func ExampleNewStepLR() {
	opt := nn.NewSGD(nn.NewLinear(2, 1).Params(), 0.1, 0.9, 0)
	sched := nn.NewStepLR(opt, 10, 0.5)
	for epoch := 0; epoch < 25; epoch++ {
		// ... a training epoch with opt.Step() ...
		sched.Step()
	}
	fmt.Println(opt.LR())
	// Output: 0.025
}

// EarlyStopping ends a run whose validation accuracy stopped rising and
// tells when to keep the model.
func ExampleEarlyStopping() {
	stop := nn.NewEarlyStopping(2, "max")
	for epoch, val := range []float64{0.6, 0.7, 0.65, 0.7, 0.68, 0.9} {
		if stop.Step(val) {
			fmt.Println("stopped after epoch", epoch)
			break
		}
	}
	fmt.Println("best", stop.Best(), "at epoch", stop.BestEpoch())
	// Output:
	// stopped after epoch 3
	// best 0.7 at epoch 1
}

// An Embedding gives featureless nodes learnable inputs.
func ExampleEmbedding() {
	nn.Seed(1)
	emb := nn.NewEmbedding(34, 16)
	x := emb.Lookup([]int{0, 33, 5})
	fmt.Println(x.Shape(), emb)
	// Output: [3 16] Embedding(34, 16)
}

// InputSummary lists the layers with their output and parameter shapes.
func ExampleInputSummary() {
	nn.Seed(1)
	model := nn.NewMLP(784, 128, 10)
	fmt.Println(nn.InputSummary(model, tensor.Zeros(32, 784)))
	// Output:
	// Sequential on input [32 784]
	// layer  type                         output    parameter shapes  params
	// 0      Linear(784, 128, bias=true)  [32 128]  [784 128] [128]   100480
	// 1      ReLU()                       [32 128]                    0
	// 2      Linear(128, 10, bias=true)   [32 10]   [128 10] [10]     1290
	// total parameters: 101770; output [32 10]
}
