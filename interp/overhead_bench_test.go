package interp

import (
	"context"
	"os"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)

// The interpreter's overhead on a real training loop: the same GCN epochs on
// Cora, run as compiled Go and as a notebook cell. Compare the two with
// benchstat or read the ratio: the library issue asks for cell/compiled <= 1.10.

const epochsPerOp = 10

func coraForBench(b *testing.B) *data.Dataset {
	b.Helper()
	if d := datatest.Dir(); d != "" {
		os.Setenv("GNNLAB_DATA", d)
	}
	ds, err := data.Planetoid("cora")
	if err != nil {
		b.Skipf("Cora not available (set GNNLAB_DATA): %v", err)
	}
	ds.NormalizeFeatures()
	return ds
}

func BenchmarkTrainingLoop(b *testing.B) {
	ds := coraForBench(b)
	b.Run("compiled", func(b *testing.B) {
		nn.Seed(1)
		model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
		opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for epoch := 0; epoch < epochsPerOp; epoch++ {
				model.Train()
				loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
				opt.ZeroGrad()
				loss.Backward()
				opt.Step()
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*epochsPerOp), "ms/epoch")
	})
	b.Run("cell", func(b *testing.B) {
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := s.Eval(ctx, `
import (
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)
nn.Seed(1)
ds, _ := data.Planetoid("cora")
ds.NormalizeFeatures()
model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
opt := nn.NewAdam(model.Params(), 0.01, 5e-4)`); err != nil {
			b.Fatal(err)
		}
		loop := `
for epoch := 0; epoch < 10; epoch++ {
	model.Train()
	loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
	opt.ZeroGrad(); loss.Backward(); opt.Step()
}`
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := s.Eval(ctx, loop); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*epochsPerOp), "ms/epoch")
	})
}
