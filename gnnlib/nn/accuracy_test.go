package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// trainNodes trains a node classifier full-batch and returns its test
// accuracy in evaluation mode after the last epoch.
func trainNodes(ds *data.Dataset, model nn.GraphLayer, opt nn.Optimizer, epochs int) float64 {
	for epoch := 0; epoch < epochs; epoch++ {
		model.SetTraining(true)
		loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	model.SetTraining(false)
	var acc float64
	tensor.NoGrad(func() {
		acc = nn.Accuracy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx)
	})
	return acc
}

func TestCoraAccuracy(t *testing.T) {
	ds := cora(t)
	tests := []struct {
		name  string
		build func() (nn.GraphLayer, nn.Optimizer)
		want  float64
	}{
		{"GCN", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 0.80},
		{"GAT", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGAT(ds.NumFeatures(), 8, 8, ds.NumClasses())
			return m, nn.NewAdam(m.Params(), 0.005, 5e-4)
		}, 0.81},
		{"GraphSAGE", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGraphSAGE(ds.NumFeatures(), 64, ds.NumClasses(), "mean")
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 0.78},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nn.Seed(1)
			model, opt := tt.build()
			acc := trainNodes(ds, model, opt, 200)
			t.Logf("%s: Cora test accuracy %.3f", tt.name, acc)
			if acc < tt.want {
				t.Errorf("%s Cora test accuracy = %.3f, want >= %.2f", tt.name, acc, tt.want)
			}
		})
	}
}

// TestKarateClub trains a GCN on Zachary's karate club with one leader
// and one follower of each faction labelled, and checks that it assigns
// the other 30 members to their factions.
func TestKarateClub(t *testing.T) {
	ds := data.KarateClub()
	nn.Seed(1)
	model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
	opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
	acc := trainNodes(ds, model, opt, 200)
	t.Logf("karate club: %.3f of the unlabelled members placed in their faction", acc)
	if acc < 0.9 {
		t.Errorf("karate club accuracy = %.3f, want >= 0.9", acc)
	}
}
