package nn_test

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// recipe is a model, its optimiser and training length on Cora, with the
// test accuracy it must reach. With bestVal the accuracy is read at the
// epoch of the best validation accuracy (the paper's model selection)
// instead of after the last epoch.
type recipe struct {
	name    string
	build   func() (nn.GraphLayer, nn.Optimizer)
	epochs  int
	bestVal bool
	want    float64
}

// coraRecipes are the paper recipes of the propagation layers on Cora's
// public split (row-normalised features, full batch, Adam).
func coraRecipes(ds *data.Dataset) []recipe {
	f, c := ds.NumFeatures(), ds.NumClasses()
	return []recipe{
		// Klicpera et al.: hidden 64, K 10, α 0.1, dropout 0.5 on
		// features and edges, weight decay, selection on validation.
		{"APPNP", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewAPPNPNet(f, 64, c, 10, 0.1)
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 300, true, 0.83},
		// Wu et al.: K 2, lr 0.2, 100 epochs, weight decay tuned on
		// validation (5e-5).
		{"SGC", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewSGConv(f, c, 2, true)
			return m, nn.NewAdam(m.Params(), 0.2, 5e-5)
		}, 100, false, 0.805},
		// Kipf and Welling's ChebNet baseline: hidden 16, K 3 terms.
		{"ChebNet", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewChebNet(f, 16, c, 3)
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 200, false, 0.805},
		// GAT's recipe with TransformerConv: 8 heads of 8, attention
		// dropout 0.6, selection on validation.
		{"TransformerConv", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGraphTransformer(f, 8, 8, c, 0.6)
			return m, nn.NewAdam(m.Params(), 0.005, 5e-4)
		}, 200, true, 0.80},
	}
}

// TestCoraPropagationLayers trains each recipe from seed 1 and checks its
// test accuracy. GNNLAB_SEEDS=n trains seeds 1…n instead and checks the
// mean (the figures in the package documentation come from n = 10).
func TestCoraPropagationLayers(t *testing.T) {
	ds := cora(t)
	seeds := seedCount(t)
	for _, r := range coraRecipes(ds) {
		t.Run(r.name, func(t *testing.T) {
			accs := make([]float64, seeds)
			for s := range accs {
				nn.Seed(int64(s + 1))
				model, opt := r.build()
				if r.bestVal {
					accs[s] = trainBestVal(ds, model, opt, r.epochs)
				} else {
					accs[s] = trainNodes(ds, model, opt, r.epochs)
				}
			}
			mean, sd := meanSD(accs)
			t.Logf("%s: Cora test accuracy %.4f ± %.4f over %d seeds %v", r.name, mean, sd, seeds, accs)
			if mean < r.want {
				t.Errorf("%s Cora test accuracy = %.4f (mean of %d seeds), want >= %.3f", r.name, mean, seeds, r.want)
			}
		})
	}
}

// trainBestVal trains a node classifier full-batch and returns its test
// accuracy at the epoch of its best validation accuracy (EarlyStopping
// with a patience of the whole run picks the epoch).
func trainBestVal(ds *data.Dataset, model nn.GraphLayer, opt nn.Optimizer, epochs int) float64 {
	best := nn.NewEarlyStopping(epochs, "max")
	var test float64
	for epoch := 0; epoch < epochs; epoch++ {
		model.SetTraining(true)
		loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		model.SetTraining(false)
		tensor.NoGrad(func() {
			out := model.Forward(ds.Graph, ds.X)
			best.Step(nn.Accuracy(out, ds.Y, ds.ValIdx))
			if best.Improved() {
				test = nn.Accuracy(out, ds.Y, ds.TestIdx)
			}
		})
	}
	return test
}

// seedCount returns the number of seeds the accuracy tests average:
// GNNLAB_SEEDS, or 1.
func seedCount(t testing.TB) int {
	s := os.Getenv("GNNLAB_SEEDS")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("GNNLAB_SEEDS=%q, want a positive number", s)
	}
	return n
}

// meanSD returns the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
