package quant_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
)

func TestQATGCNCora(t *testing.T) {
	ds, gcn, _ := coraModels(t)
	fp := floatAccuracy(ds, gcn)
	movingAvg := func() quant.Observer { return &quant.MovingAverage{Momentum: 0.1} }
	percentile := func() quant.Observer { return &quant.Percentile{P: 99.9} }
	tests := []struct {
		name string
		cfg  quant.Config
		qat  bool
		tol  float64 // required: accuracy >= FP32 − tol; 0 = only logged
	}{
		{"INT8-PTQ", quant.Config{}, false, 0.01},
		{"INT8-QAT", quant.Config{Observer: movingAvg}, true, 0.01},
		{"INT4-PTQ", quant.Config{Bits: 4}, false, 0},
		{"INT4-QAT", quant.Config{Bits: 4, Observer: movingAvg}, true, 0.03},
		{"INT4-QAT-DegreeQuant", quant.Config{Bits: 4, Observer: percentile, DegreeQuant: &quant.DegreeQuant{PMin: 0, PMax: 0.2, Seed: 3}}, true, 0.03},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := quant.NewGNN(gcn, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Calibrate(ds.Graph, ds.X); err != nil {
				t.Fatal(err)
			}
			if tc.qat {
				if err := quant.FineTuneGNN(q, ds.Graph, ds.X, ds.Y, ds.TrainIdx, quant.TrainOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.Convert(); err != nil {
				t.Fatal(err)
			}
			out, err := q.Forward(ds.Graph, ds.X)
			if err != nil {
				t.Fatal(err)
			}
			acc := nn.Accuracy(out, ds.Y, ds.TestIdx)
			t.Logf("GCN %s: %.3f (FP32 %.3f), %d bytes", tc.name, acc, fp, q.Bytes())
			if tc.tol > 0 && acc < fp-tc.tol {
				t.Errorf("GCN %s accuracy = %.3f, want within %.0f points of FP32 %.3f", tc.name, acc, 100*tc.tol, fp)
			}
		})
	}
}
