package quant_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
)

func TestPTQMNIST(t *testing.T) {
	trainX, testX, _, testY, lenet, mlp := mnistModels(t)
	calib := trainX.Narrow(0, 0, 500)
	for _, tc := range []struct {
		name  string
		model *nn.Sequential
		cfg   quant.Config
		tol   float64
	}{
		{"LeNet5/INT8", lenet, quant.Config{}, 0.005},
		{"LeNet5/INT8-percentile", lenet, quant.Config{Observer: func() quant.Observer { return &quant.Percentile{P: 99.99} }}, 0.005},
		{"LeNet5/INT8-keep-first-last", lenet, quant.Config{KeepFirst: true, KeepLast: true}, 0.005},
		{"MLP/INT8", mlp, quant.Config{}, 0.005},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp := imageAccuracy(t, floatForward(tc.model), testX, testY)
			q, err := quant.NewSequential(tc.model, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Calibrate(calib); err != nil {
				t.Fatal(err)
			}
			if err := q.Convert(); err != nil {
				t.Fatal(err)
			}
			acc := imageAccuracy(t, q.Forward, testX, testY)
			t.Logf("%s: FP32 %.4f, INT8 PTQ %.4f, %d bytes", tc.name, fp, acc, q.Bytes())
			if acc < fp-tc.tol {
				t.Errorf("%s accuracy = %.4f, want within %.1f point of FP32 %.4f", tc.name, acc, 100*tc.tol, fp)
			}
		})
	}
}
