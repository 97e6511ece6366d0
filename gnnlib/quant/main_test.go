package quant_test

import (
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestMain points the loaders at the shared datasets, offline (datatest).
func TestMain(m *testing.M) { datatest.Main(m) }

var coraOnce struct {
	sync.Once
	ds  *data.Dataset
	gcn *nn.GCN
	gat *nn.GAT
	err error
}

// coraModels loads Cora (row-normalised features) and trains a GCN and a
// GAT once for all tests, or skips without data.
func coraModels(t testing.TB) (*data.Dataset, *nn.GCN, *nn.GAT) {
	t.Helper()
	c := &coraOnce
	c.Do(func() {
		c.ds, c.err = data.Planetoid("cora")
		if c.err != nil {
			return
		}
		c.ds.NormalizeFeatures()
		nn.Seed(1)
		c.gcn = nn.NewGCN(c.ds.NumFeatures(), 16, c.ds.NumClasses())
		trainGraph(c.ds, c.gcn, nn.NewAdam(c.gcn.Params(), 0.01, 5e-4), 200)
		nn.Seed(1)
		c.gat = nn.NewGAT(c.ds.NumFeatures(), 8, 8, c.ds.NumClasses())
		trainGraph(c.ds, c.gat, nn.NewAdam(c.gat.Params(), 0.005, 5e-4), 200)
	})
	if c.err != nil {
		t.Skipf("Cora not available (set GNNLAB_DATA): %v", c.err)
	}
	return c.ds, c.gcn, c.gat
}

func trainGraph(ds *data.Dataset, m nn.GraphLayer, opt nn.Optimizer, epochs int) {
	for e := 0; e < epochs; e++ {
		m.SetTraining(true)
		loss := nn.CrossEntropy(m.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	m.SetTraining(false)
}

func floatAccuracy(ds *data.Dataset, m nn.GraphLayer) float64 {
	var acc float64
	tensor.NoGrad(func() { acc = nn.Accuracy(m.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx) })
	return acc
}

var mnistOnce struct {
	sync.Once
	set           *data.ImageSet
	trainX, testX *tensor.Tensor
	trainY, testY []int
	lenet, mlp    *nn.Sequential
	err           error
}

// mnistModels loads the 10,000 MNIST test digits, splits them into 8,000
// for training and 2,000 for testing, and trains a LeNet-5 (two epochs)
// and an MLP once for all tests, or skips without data.
func mnistModels(t testing.TB) (trainX, testX *tensor.Tensor, trainY, testY []int, lenet, mlp *nn.Sequential) {
	t.Helper()
	c := &mnistOnce
	c.Do(func() {
		c.set, c.err = data.MNIST("test")
		if c.err != nil {
			return
		}
		idx := make([]int, c.set.Len())
		for i := range idx {
			idx[i] = i
		}
		c.trainX, c.testX = c.set.X.IndexSelect(idx[:8000]), c.set.X.IndexSelect(idx[8000:])
		c.trainY, c.testY = c.set.Y[:8000], c.set.Y[8000:]
		nn.Seed(1)
		c.lenet = nn.NewLeNet5()
		trainImages(c.lenet, c.trainX, c.trainY, 2)
		nn.Seed(1)
		c.mlp = nn.NewMLP(784, 128, 10)
		trainImages(nn.NewSequential(nn.NewFlatten(), c.mlp), c.trainX, c.trainY, 3)
		c.mlp = nn.NewSequential(append([]nn.Layer{nn.NewFlatten()}, c.mlp.Layers...)...)
	})
	if c.err != nil {
		t.Skipf("MNIST not available (set GNNLAB_DATA): %v", c.err)
	}
	return c.trainX, c.testX, c.trainY, c.testY, c.lenet, c.mlp
}

// trainImages trains m with Adam in mini-batches of 32 for epochs epochs.
func trainImages(m *nn.Sequential, x *tensor.Tensor, y []int, epochs int) {
	opt := nn.NewAdam(m.Params(), 2e-3, 0)
	rng := tensor.NewRNG(1)
	m.Train()
	for e := 0; e < epochs; e++ {
		order := rng.Perm(len(y))
		for lo := 0; lo < len(order); lo += 32 {
			rows := order[lo:min(lo+32, len(order))]
			labels := make([]int, len(rows))
			for i, r := range rows {
				labels[i] = y[r]
			}
			loss := nn.CrossEntropy(m.Forward(x.IndexSelect(rows)), labels, nil)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
		}
	}
	m.Eval()
}

// imageAccuracy returns the accuracy of forward on x in batches of 500.
func imageAccuracy(t testing.TB, forward func(*tensor.Tensor) (*tensor.Tensor, error), x *tensor.Tensor, y []int) float64 {
	t.Helper()
	right := 0
	n := len(y)
	for lo := 0; lo < n; lo += 500 {
		hi := min(lo+500, n)
		out, err := forward(x.Narrow(0, lo, hi-lo))
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range out.ArgMax(1) {
			if p == y[lo+i] {
				right++
			}
		}
	}
	return float64(right) / float64(n)
}

func floatForward(m *nn.Sequential) func(*tensor.Tensor) (*tensor.Tensor, error) {
	return func(x *tensor.Tensor) (*tensor.Tensor, error) {
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = m.Forward(x) })
		return out, nil
	}
}
