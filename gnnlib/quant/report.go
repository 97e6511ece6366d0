package quant

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Row is one variant of a model in a Report.
type Row struct {
	Variant  string
	Accuracy float64
	// Bytes is the parameter storage: 4 per float32, 1 per INT8 and ½ per
	// INT4 weight, plus scales.
	Bytes int
	// Time is the median wall time of one inference over the test input.
	Time time.Duration
}

// Report compares variants of one model. In a notebook it shows as an
// HTML table, through the converter that viz/display/render registers.
type Report struct {
	Model string
	Rows  []Row
}

// String formats the report as a text table.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%-10s %9s %10s %9s %11s\n", r.Model, "variant", "accuracy", "bytes", "smaller", "time")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "%-10s %8.2f%% %10d %8.2fx %11s\n", row.Variant, 100*row.Accuracy, row.Bytes,
			r.Smaller(row), row.Time.Round(time.Microsecond))
	}
	return b.String()
}

// Smaller returns how many times smaller row is than the first row: the
// FP32 bytes over row's bytes, NaN when either is unknown.
func (r *Report) Smaller(row Row) float64 {
	if len(r.Rows) == 0 || row.Bytes == 0 {
		return math.NaN()
	}
	return float64(r.Rows[0].Bytes) / float64(row.Bytes)
}

// CompareOptions set Compare runs. Zero fields take defaults.
type CompareOptions struct {
	// Calibration is the number of training rows (images) used to
	// calibrate PTQ [500]; a GNN calibrates on the whole graph.
	Calibration int
	// QAT sets the fine-tuning of the QAT rows.
	QAT TrainOptions
	// Repeats is the number of timed inferences whose median is reported
	// [5].
	Repeats int
}

func (o CompareOptions) repeats() int {
	if o.Repeats <= 0 {
		return 5
	}
	return o.Repeats
}

// medianTime runs f repeats times and returns the median duration.
func medianTime(repeats int, f func() error) (time.Duration, error) {
	ts := make([]time.Duration, repeats)
	for i := range ts {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// floatBytes returns 4 bytes per parameter.
func floatBytes(m nn.Module) int {
	n := 0
	for _, p := range m.Params() {
		n += 4 * p.Len()
	}
	return n
}

func accuracy(logits *tensor.Tensor, labels, rows []int) float64 {
	return nn.Accuracy(logits, labels, rows)
}

// CompareGNN measures a trained *nn.GCN or *nn.GAT on ds's test nodes as
// FP32, INT8 PTQ, INT8 QAT and INT4 (W4A8) QAT. The model itself is not
// modified.
func CompareGNN(model nn.GraphLayer, ds *data.Dataset, o CompareOptions) (*Report, error) {
	r := &Report{Model: fmt.Sprintf("%T on %d nodes", model, ds.NumNodes())}
	model.SetTraining(false)
	var out *tensor.Tensor
	t, _ := medianTime(o.repeats(), func() error {
		tensor.NoGrad(func() { out = model.Forward(ds.Graph, ds.X) })
		return nil
	})
	r.Rows = append(r.Rows, Row{"FP32", accuracy(out, ds.Y, ds.TestIdx), floatBytes(model), t})
	variants := []struct {
		name string
		cfg  Config
		qat  bool
	}{
		{"INT8 PTQ", Config{}, false},
		{"INT8 QAT", Config{Observer: func() Observer { return &MovingAverage{} }}, true},
		{"INT4 QAT", Config{Bits: 4, Observer: func() Observer { return &MovingAverage{} }}, true},
	}
	for _, v := range variants {
		q, err := NewGNN(model, v.cfg)
		if err != nil {
			return nil, err
		}
		if err := q.Calibrate(ds.Graph, ds.X); err != nil {
			return nil, err
		}
		if v.qat {
			if err := FineTuneGNN(q, ds.Graph, ds.X, ds.Y, ds.TrainIdx, o.QAT); err != nil {
				return nil, err
			}
		}
		if err := q.Convert(); err != nil {
			return nil, err
		}
		// The features are fixed: quantize them once, outside the timing
		// (the FP32 row has nothing of the kind to do).
		if err := q.PrepareInput(ds.X); err != nil {
			return nil, err
		}
		t, err := medianTime(o.repeats(), func() error {
			var err error
			out, err = q.Forward(ds.Graph, ds.X)
			return err
		})
		if err != nil {
			return nil, err
		}
		r.Rows = append(r.Rows, Row{v.name, accuracy(out, ds.Y, ds.TestIdx), q.Bytes(), t})
	}
	return r, nil
}

// CompareSequential measures a trained MLP or LeNet-5 on (testX, testY)
// as FP32, INT8 PTQ, INT8 QAT and INT4 (W4A8) QAT, calibrating and
// fine-tuning on (trainX, trainY). The model itself is not modified.
func CompareSequential(model *nn.Sequential, trainX *tensor.Tensor, trainY []int, testX *tensor.Tensor, testY []int, o CompareOptions) (*Report, error) {
	r := &Report{Model: fmt.Sprintf("Sequential(%d layers) on %d images", len(model.Layers), len(testY))}
	model.Eval()
	var out *tensor.Tensor
	t, _ := medianTime(o.repeats(), func() error {
		tensor.NoGrad(func() { out = model.Forward(testX) })
		return nil
	})
	r.Rows = append(r.Rows, Row{"FP32", accuracy(out, testY, nil), floatBytes(model), t})
	calib := o.Calibration
	if calib <= 0 {
		calib = 500
	}
	calib = min(calib, trainX.Size(0))
	variants := []struct {
		name string
		cfg  Config
		qat  bool
	}{
		{"INT8 PTQ", Config{}, false},
		{"INT8 QAT", Config{Observer: func() Observer { return &MovingAverage{Momentum: 0.01} }}, true},
		{"INT4 QAT", Config{Bits: 4, Observer: func() Observer { return &MovingAverage{Momentum: 0.01} }}, true},
	}
	for _, v := range variants {
		q, err := NewSequential(model, v.cfg)
		if err != nil {
			return nil, err
		}
		if err := q.Calibrate(trainX.Narrow(0, 0, calib)); err != nil {
			return nil, err
		}
		if v.qat {
			if err := FineTuneSequential(q, trainX, trainY, o.QAT); err != nil {
				return nil, err
			}
		}
		if err := q.Convert(); err != nil {
			return nil, err
		}
		t, err := medianTime(o.repeats(), func() error {
			var err error
			out, err = q.Forward(testX)
			return err
		})
		if err != nil {
			return nil, err
		}
		r.Rows = append(r.Rows, Row{v.name, accuracy(out, testY, nil), q.Bytes(), t})
	}
	return r, nil
}
