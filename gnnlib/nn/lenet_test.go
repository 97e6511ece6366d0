package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// mnist loads the 10,000 MNIST test digits, or skips without data.
func mnist(t testing.TB) *data.ImageSet {
	t.Helper()
	s, err := data.MNIST("test")
	if err != nil {
		t.Skipf("MNIST not available (set GNNLAB_DATA): %v", err)
	}
	return s
}

// lenetEpoch trains model for one epoch over x[idx] in mini-batches drawn
// in an order from rng, and returns the mean loss.
func lenetEpoch(model *nn.Sequential, opt nn.Optimizer, x *tensor.Tensor, y []int, idx []int, batch int, rng *tensor.RNG) float64 {
	order := append([]int(nil), idx...)
	rng.Shuffle(order)
	model.Train()
	var total float64
	var n int
	for lo := 0; lo < len(order); lo += batch {
		rows := order[lo:min(lo+batch, len(order))]
		labels := make([]int, len(rows))
		for i, r := range rows {
			labels[i] = y[r]
		}
		loss := nn.CrossEntropy(model.Forward(x.IndexSelect(rows)), labels, nil)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		total += float64(loss.Item())
		n++
	}
	return total / float64(n)
}

// evalImages returns the accuracy of model on x[idx], in batches.
func evalImages(model *nn.Sequential, x *tensor.Tensor, y []int, idx []int) float64 {
	model.Eval()
	right := 0
	tensor.NoGrad(func() {
		for lo := 0; lo < len(idx); lo += 500 {
			rows := idx[lo:min(lo+500, len(idx))]
			labels := make([]int, len(rows))
			for i, r := range rows {
				labels[i] = y[r]
			}
			right += int(nn.Accuracy(model.Forward(x.IndexSelect(rows)), labels, nil)*float64(len(rows)) + 0.5)
		}
	})
	return float64(right) / float64(len(idx))
}

func split(n, train int) (a, b []int) {
	for i := 0; i < n; i++ {
		if i < train {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return a, b
}

// TestLeNet5MNIST trains LeNet-5 on the first 8,000 MNIST test digits and
// tests it on the other 2,000.
func TestLeNet5MNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("LeNet-5 training takes about 25 s on two cores; skipped in -short mode")
	}
	s := mnist(t)
	trainIdx, testIdx := split(s.Len(), 8000)
	nn.Seed(1)
	model := nn.NewLeNet5()
	opt := nn.NewAdam(model.Params(), 2e-3, 0)
	rng := tensor.NewRNG(1)
	const epochs = 3
	for e := 0; e < epochs; e++ {
		loss := lenetEpoch(model, opt, s.X, s.Y, trainIdx, 32, rng)
		t.Logf("epoch %d: loss %.4f", e, loss)
	}
	acc := evalImages(model, s.X, s.Y, testIdx)
	t.Logf("LeNet-5: accuracy %.4f on 2,000 held-out digits", acc)
	if acc < 0.96 {
		t.Errorf("LeNet-5 accuracy = %.4f, want >= 0.96", acc)
	}
}
