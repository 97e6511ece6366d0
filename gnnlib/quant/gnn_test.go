package quant_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
)

func TestPTQGNNCora(t *testing.T) {
	ds, gcn, gat := coraModels(t)
	for _, tc := range []struct {
		name  string
		model nn.GraphLayer
	}{{"GCN", gcn}, {"GAT", gat}} {
		t.Run(tc.name, func(t *testing.T) {
			fp := floatAccuracy(ds, tc.model)
			q, err := quant.NewGNN(tc.model, quant.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Calibrate(ds.Graph, ds.X); err != nil {
				t.Fatal(err)
			}
			if err := q.Convert(); err != nil {
				t.Fatal(err)
			}
			out, err := q.Forward(ds.Graph, ds.X)
			if err != nil {
				t.Fatal(err)
			}
			acc := nn.Accuracy(out, ds.Y, ds.TestIdx)
			fake, err := q.FakeForward(ds.Graph, ds.X)
			if err != nil {
				t.Fatal(err)
			}
			facc := nn.Accuracy(fake, ds.Y, ds.TestIdx)
			var fbytes int
			for _, p := range tc.model.Params() {
				fbytes += 4 * p.Len()
			}
			t.Logf("%s: FP32 %.3f (%d B), INT8 PTQ %.3f (fake %.3f) (%d B, %.2fx smaller)", tc.name, fp, fbytes, acc, facc, q.Bytes(), float64(fbytes)/float64(q.Bytes()))
			if acc < fp-0.01 {
				t.Errorf("%s INT8 PTQ accuracy = %.3f, want within 1 point of FP32 %.3f", tc.name, acc, fp)
			}
		})
	}
}
