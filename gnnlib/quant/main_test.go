package quant_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestMain points the data loaders at the shared datasets (GNNLAB_DATA,
// else ../../../shared/datasets from this folder) and keeps them offline.
func TestMain(m *testing.M) {
	if os.Getenv("GNNLAB_DATA") == "" {
		if abs, err := filepath.Abs("../../../shared/datasets"); err == nil {
			os.Setenv("GNNLAB_DATA", abs)
		}
	}
	os.Setenv("GNNLAB_OFFLINE", "1")
	os.Exit(m.Run())
}

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
