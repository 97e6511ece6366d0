package nn_test

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// nodeTask is a full-batch node classification problem.
type nodeTask struct {
	g      *graph.Graph
	x      *tensor.Tensor
	y      []int
	train  []int
	feats  int
	labels int
}

// synthetic100k is a 100,000-node stochastic block model (10 classes,
// average degree about 10, 128 features), built once.
var synthetic100k = func() func(b *testing.B) nodeTask {
	var task *nodeTask
	return func(b *testing.B) nodeTask {
		if task == nil {
			const n, classes, feats = 100_000, 10, 128
			sizes := make([]int, classes)
			for i := range sizes {
				sizes[i] = n / classes
			}
			g, x, y, err := graph.SBM(graph.SBMOptions{Sizes: sizes, PIn: 8.0 / (n / classes), POut: 2.0 / n, Features: feats, Signal: 1, Seed: 1})
			if err != nil {
				b.Fatalf("SBM: %v", err)
			}
			train := make([]int, 0, n/10)
			for v := 0; v < n; v += 10 {
				train = append(train, v)
			}
			task = &nodeTask{g: g, x: tensor.Wrap(x, n, feats), y: y, train: train, feats: feats, labels: classes}
		}
		return *task
	}
}()

func coraTask(b *testing.B) nodeTask {
	ds := cora(b)
	return nodeTask{g: ds.Graph, x: ds.X, y: ds.Y, train: ds.TrainIdx, feats: ds.NumFeatures(), labels: ds.NumClasses()}
}

// BenchmarkEpoch measures one full-batch training epoch (forward, backward,
// Adam step) of the ready GNN models, on Cora and on a 100k-node graph.
func BenchmarkEpoch(b *testing.B) {
	models := []struct {
		name  string
		build func(t nodeTask) nn.GraphLayer
	}{
		{"GCN", func(t nodeTask) nn.GraphLayer { return nn.NewGCN(t.feats, 16, t.labels) }},
		{"GraphSAGE", func(t nodeTask) nn.GraphLayer { return nn.NewGraphSAGE(t.feats, 64, t.labels, "mean") }},
		{"GAT", func(t nodeTask) nn.GraphLayer { return nn.NewGAT(t.feats, 8, 8, t.labels) }},
		{"APPNP", func(t nodeTask) nn.GraphLayer { return nn.NewAPPNPNet(t.feats, 64, t.labels, 10, 0.1) }},
		{"SGC", func(t nodeTask) nn.GraphLayer { return nn.NewSGConv(t.feats, t.labels, 2, true) }},
		{"ChebNet", func(t nodeTask) nn.GraphLayer { return nn.NewChebNet(t.feats, 16, t.labels, 3) }},
		{"GraphTransformer", func(t nodeTask) nn.GraphLayer { return nn.NewGraphTransformer(t.feats, 8, 8, t.labels, 0.6) }},
	}
	graphs := []struct {
		name string
		task func(b *testing.B) nodeTask
	}{
		{"cora", coraTask},
		{"sbm100k", synthetic100k},
	}
	for _, gr := range graphs {
		for _, m := range models {
			b.Run(fmt.Sprintf("%s/%s", m.name, gr.name), func(b *testing.B) {
				task := gr.task(b)
				nn.Seed(1)
				model := m.build(task)
				opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
				model.SetTraining(true)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					loss := nn.CrossEntropy(model.Forward(task.g, task.x), task.y, task.train)
					opt.ZeroGrad()
					loss.Backward()
					opt.Step()
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/epoch")
			})
		}
	}
}

// BenchmarkLeNet5Epoch measures one epoch of LeNet-5 over 8,000 MNIST
// digits in mini-batches of 32 with Adam.
func BenchmarkLeNet5Epoch(b *testing.B) {
	s := mnist(b)
	trainIdx, _ := split(s.Len(), 8000)
	nn.Seed(1)
	model := nn.NewLeNet5()
	opt := nn.NewAdam(model.Params(), 2e-3, 0)
	rng := tensor.NewRNG(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lenetEpoch(model, opt, s.X, s.Y, trainIdx, 32, rng)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/epoch")
}
