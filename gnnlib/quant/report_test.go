package quant_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
)

// checkReport checks the rows of a report against the FP32 row: INT8
// within tol8 of FP32 accuracy and at least 3.5× smaller, INT4 within
// tol4.
func checkReport(t *testing.T, r *quant.Report, tol8, tol4 float64) {
	t.Helper()
	t.Logf("\n%s", r)
	if len(r.Rows) != 4 {
		t.Fatalf("report has %d rows, want 4 (FP32, INT8 PTQ, INT8 QAT, INT4 QAT)", len(r.Rows))
	}
	fp := r.Rows[0]
	for _, row := range r.Rows[1:] {
		tol := tol8
		if row.Variant == "INT4 QAT" {
			tol = tol4
		} else if ratio := float64(fp.Bytes) / float64(row.Bytes); ratio < 3.5 {
			t.Errorf("%s %s: %d bytes, %.2fx smaller than FP32, want >= 3.5x", r.Model, row.Variant, row.Bytes, ratio)
		}
		if row.Accuracy < fp.Accuracy-tol {
			t.Errorf("%s %s accuracy = %.4f, want within %.1f points of FP32 %.4f", r.Model, row.Variant, row.Accuracy, 100*tol, fp.Accuracy)
		}
	}
}

func TestCompareGNNCora(t *testing.T) {
	ds, gcn, gat := coraModels(t)
	for _, m := range []nn.GraphLayer{gcn, gat} {
		r, err := quant.CompareGNN(m, ds, quant.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkReport(t, r, 0.01, 0.03)
	}
}

func TestCompareLeNet5MNIST(t *testing.T) {
	trainX, testX, trainY, testY, lenet, _ := mnistModels(t)
	// QAT fine-tunes for one pass over 2,000 training digits: enough to
	// adapt to the grid, and quick.
	r, err := quant.CompareSequential(lenet, trainX.Narrow(0, 0, 2000), trainY[:2000], testX, testY,
		quant.CompareOptions{QAT: quant.TrainOptions{Epochs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r, 0.005, 0.03)
}
