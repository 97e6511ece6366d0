package nn_test

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)

// coraRecipes are the paper recipes of the propagation layers on Cora's
// public split (row-normalised features, full batch, Adam), with the
// accuracy each must reach.
func coraRecipes(ds *data.Dataset) []struct {
	name   string
	build  func() (nn.GraphLayer, nn.Optimizer)
	epochs int
	want   float64
} {
	f, c := ds.NumFeatures(), ds.NumClasses()
	return []struct {
		name   string
		build  func() (nn.GraphLayer, nn.Optimizer)
		epochs int
		want   float64
	}{
		{"APPNP", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewAPPNPNet(f, 64, c, 10, 0.1)
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 200, 0.83},
		{"SGC", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewSGConv(f, c, 2, true)
			return m, nn.NewAdam(m.Params(), 0.2, 5e-3)
		}, 100, 0.805},
		{"ChebNet", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewChebNet(f, 16, c, 3)
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, 200, 0.805},
		{"TransformerConv", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGraphTransformer(f, 8, 8, c, 0.6)
			return m, nn.NewAdam(m.Params(), 0.005, 5e-4)
		}, 200, 0.80},
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
				accs[s] = trainNodes(ds, model, opt, r.epochs)
			}
			mean, sd := meanSD(accs)
			t.Logf("%s: Cora test accuracy %.4f ± %.4f over %d seeds %v", r.name, mean, sd, seeds, accs)
			if mean < r.want {
				t.Errorf("%s Cora test accuracy = %.4f (mean of %d seeds), want >= %.3f", r.name, mean, seeds, r.want)
			}
		})
	}
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
