package cuda

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The device must offer everything gnnlib/nn's layers ask of a backend.
var _ nn.DeviceOps = (*backend)(nil)

// defaultOrSkip returns the shared device, skipping without one after
// checking that the error says which.
func defaultOrSkip(tb testing.TB) *Device {
	tb.Helper()
	d, err := Default()
	switch {
	case err == nil:
		return d
	case errors.Is(err, ErrNoCUDA) && !Built, errors.Is(err, ErrNoDevice):
		tb.Skip(err)
	}
	tb.Fatalf("Default() = %v, want a device, ErrNoCUDA or ErrNoDevice", err)
	return nil
}

func TestTensorDevice(t *testing.T) {
	be, err := tensor.Device("cuda")
	if !Built {
		if !errors.Is(err, ErrNoCUDA) {
			t.Errorf(`tensor.Device("cuda") = %v, %v; want ErrNoCUDA`, be, err)
		}
		return
	}
	if errors.Is(err, ErrNoDevice) {
		t.Skip(err)
	}
	d, err2 := Default()
	if err != nil || err2 != nil || be != d.Backend() {
		t.Errorf(`tensor.Device("cuda") = %v, %v; want Default() = %v, %v`, be, err, d, err2)
	}
}

// maxErr returns max|got-want| / (1 + max|want|) over the values of two
// tensors of one shape (got is copied back from the device).
func maxErr(t *testing.T, what string, got, want *tensor.Tensor) float64 {
	t.Helper()
	if got == nil || want == nil {
		if got != want {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
		return 0
	}
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	g, w := got.CPU().Data(), want.CPU().Data()
	var diff, scale float64
	for i := range w {
		if math.IsNaN(float64(g[i])) {
			return math.Inf(1)
		}
		diff = max(diff, math.Abs(float64(g[i]-w[i])))
		scale = max(scale, math.Abs(float64(w[i])))
	}
	return diff / (1 + scale)
}

func randn(seed int64, shape ...int) *tensor.Tensor { return tensor.Randn(seed, shape...) }

// opCase is one op (f) or layer (layer) that TestOpsAgree runs on the CPU
// and on the device. layer builds the layer on dev (seeded, so both sides
// start from the same parameters) and returns its forward function and
// parameters, whose gradients are compared too.
type opCase struct {
	name   string
	inputs []*tensor.Tensor
	f      func(x []*tensor.Tensor) *tensor.Tensor
	layer  func(dev tensor.Backend) (func(x []*tensor.Tensor) *tensor.Tensor, []*tensor.Tensor)
}

// layerCase is an opCase for the module build makes, applied by fwd.
func layerCase(name string, build func() nn.Module, fwd func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) opCase {
	return opCase{name: name, inputs: inputs, layer: func(dev tensor.Backend) (func(x []*tensor.Tensor) *tensor.Tensor, []*tensor.Tensor) {
		nn.Seed(3)
		m := build()
		nn.To(m, dev)
		return func(x []*tensor.Tensor) *tensor.Tensor { return fwd(m, x) }, m.Params()
	}}
}

// newOpCases are the cases of the ops given a device path after the GCN
// and GAT epochs: along an axis, gathers and scatters, joins and slices,
// the other maps and losses, division and one-value broadcasts, SAGE's max
// aggregator, GIN, the norms and averaged attention heads. Shapes are
// chosen to cross warps and blocks and to leave remainders.
func newOpCases(t *testing.T) []opCase {
	hub := testGraph(t, 300, 1500, true) // node 3 is a heavy row (300 in-edges)
	var bsrc, bdst []int
	for v := 0; v < 120; v++ { // a sampled block: 120 destinations of 400 sources
		for k := 0; k < v%9; k++ {
			bsrc, bdst = append(bsrc, (v*37+k*101)%400), append(bdst, v)
		}
	}
	for u := 0; u < 400; u++ { // and a heavy destination
		bsrc, bdst = append(bsrc, u), append(bdst, 5)
	}
	blk, err := graph.NewBipartite(400, 120, bsrc, bdst, nil)
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = (i * 7) % 10
	}
	pos := func(seed int64, shape ...int) *tensor.Tensor { return tensor.Rand(seed, shape...).AddScalar(0.5) }
	idx := make([]int, 700)
	for i := range idx {
		idx[i] = (i * i * 31) % 300 // repeats
	}
	op := func(name string, f func(x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) opCase {
		return opCase{name: name, inputs: inputs, f: f}
	}
	on := func(g *graph.Graph) func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor {
		return func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(trainable).Forward(g, x[0]) }
	}
	plain := func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.Layer).Forward(x[0]) }
	return []opCase{
		op("Softmax", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Softmax(-1) }, randn(1, 300, 47)),
		op("Softmax middle axis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Softmax(1) }, randn(1, 20, 70, 3)),
		op("LogSoftmax", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LogSoftmax(1) }, randn(1, 300, 10)),
		op("LogSoftmax axis 0", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LogSoftmax(0) }, randn(1, 50, 33)),
		op("SumAxis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].SumAxis(1, false) }, randn(1, 40, 30, 7)),
		op("SumAxis last", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].SumAxis(-1, true) }, randn(1, 300, 40)),
		op("MeanAxis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MeanAxis(0, false) }, randn(1, 300, 16)),
		op("GELU", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].GELU() }, randn(1, 50, 7)),
		op("Sqrt", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sqrt() }, pos(1, 50, 7)),
		op("Abs", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Abs() }, randn(1, 50, 7)),
		op("Square", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Square() }, randn(1, 50, 7)),
		op("Pow", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Pow(3) }, randn(1, 50, 7)),
		op("Pow half", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Pow(0.5) }, pos(1, 50, 7)),
		op("Div", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 20, 9), pos(2, 20, 9)),
		op("Div by a row", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 20, 9), pos(2, 9)),
		op("Div by one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 20, 9), pos(2, 1)),
		op("Mul by one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }, randn(1, 300, 9), randn(2, 1)),
		op("Add one value left", func(x []*tensor.Tensor) *tensor.Tensor { return x[1].Add(x[0]) }, randn(1, 20, 9), tensor.Scalar(0.7)),
		op("Sub one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sub(x[1]) }, randn(1, 20, 9), tensor.Scalar(0.7)),
		op("IndexSelect", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexSelect(idx) }, randn(1, 300, 24)),
		op("IndexSelect 1-D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexSelect(idx) }, randn(1, 300)),
		op("IndexAdd", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexAdd(idx, x[1]) }, randn(1, 300, 5), randn(2, 700, 5)),
		op("ScatterAddRows", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.ScatterAddRows(x[0], idx, 310) }, randn(1, 700, 12)),
		op("Concat", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Concat(1, x[0], x[1], x[2]) }, randn(1, 50, 3, 8), randn(2, 50, 1, 8), randn(3, 50, 5, 8)),
		op("Concat axis 0", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Concat(0, x[0], x[1]) }, randn(1, 70, 9), randn(2, 30, 9)),
		op("Split", func(x []*tensor.Tensor) *tensor.Tensor {
			p := x[0].Split(1, 10, 30, 7)
			return tensor.Concat(1, p[2], p[0].MulScalar(2), p[1])
		}, randn(1, 60, 47)),
		op("Narrow", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Narrow(1, 3, 20) }, randn(1, 30, 40, 5)),
		op("MSE", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.MSE(x[0], x[1]).MulScalar(3) }, randn(1, 300, 20), randn(2, 300, 20)),
		op("BCEWithLogits", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.BCEWithLogits(x[0].MulScalar(4), x[1]) }, randn(1, 300, 20), tensor.Rand(2, 300, 20)),
		op("NLL", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.NLL(x[0].LogSoftmax(1), labels, nil) }, randn(1, 300, 10)),
		op("NLL rows", func(x []*tensor.Tensor) *tensor.Tensor {
			return tensor.NLL(x[0].LogSoftmax(1), labels, []int{1, 4, 4, 9, 250, 0, 4}).MulScalar(2)
		}, randn(1, 300, 10)),
		op("MaxAggregate", func(x []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(hub, x[0]) }, randn(1, 300, 16)),
		op("MaxAggregate width 7", func(x []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(hub, x[0]) }, randn(1, 300, 7)),
		op("MaxAggregate block", func(x []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(blk, x[0]) }, randn(1, 400, 12)),
		layerCase("SAGEConv max", func() nn.Module { return nn.NewSAGEConv(12, 20, "max") }, on(hub), randn(1, 300, 12)),
		layerCase("SAGEConv max block", func() nn.Module { return nn.NewSAGEConv(12, 20, "max") }, on(blk), randn(1, 400, 12)),
		layerCase("SAGEConv mean block", func() nn.Module { return nn.NewSAGEConv(12, 20, "mean") }, on(blk), randn(1, 400, 12)),
		layerCase("GINConv", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0.3, false) }, on(hub), randn(1, 300, 12)),
		layerCase("GINConv trained eps", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0.3, true) }, on(hub), randn(1, 300, 12)),
		layerCase("GINConv block", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0, false) }, on(blk), randn(1, 400, 12)),
		layerCase("GATConv mean heads", func() nn.Module { return nn.NewGATConv(12, 8, 2, false, 0) }, on(hub), randn(1, 300, 12)),
		layerCase("GATv2Conv mean heads", func() nn.Module { return nn.NewGATv2Conv(12, 8, 2, false, 0) }, on(hub), randn(1, 300, 12)),
		layerCase("BatchNorm1D", func() nn.Module { return nn.NewBatchNorm1D(16) }, plain, randn(1, 300, 16)),
		layerCase("BatchNorm2D", func() nn.Module { return nn.NewBatchNorm2D(3) }, plain, randn(1, 4, 3, 10, 10)),
		layerCase("BatchNorm1D eval", func() nn.Module {
			b := nn.NewBatchNorm1D(16)
			b.Forward(randn(7, 50, 16)) // running statistics from one batch
			b.Eval()
			return b
		}, plain, randn(1, 300, 16)),
		layerCase("LayerNorm", func() nn.Module { return nn.NewLayerNorm(40) }, plain, randn(1, 300, 40)),
		layerCase("LayerNorm wide", func() nn.Module { return nn.NewLayerNorm(100) }, plain, randn(1, 20, 3, 100)),
		layerCase("Linear GELU Softmax", func() nn.Module {
			return nn.NewSequential(nn.NewLinear(12, 10), nn.GELU(), nn.Softmax(1))
		}, plain, randn(1, 300, 12)),
		op("Transpose", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].T() }, randn(1, 70, 33)),
		op("Permute", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Permute(2, 0, 3, 1) }, randn(1, 3, 4, 5, 6)),
		op("Conv2D", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2D(x[0], x[1], x[2], 1, 2) },
			randn(1, 8, 3, 28, 28), randn(2, 6, 3, 5, 5), randn(3, 6)),
		op("Conv2D stride 2 no bias", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2D(x[0], x[1], nil, 2, 1) },
			randn(1, 4, 3, 17, 15), randn(2, 5, 3, 3, 2)),
		op("Conv2DReLU", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2DReLU(x[0], x[1], x[2], 1, 0) },
			randn(1, 8, 6, 14, 14), randn(2, 16, 6, 5, 5), randn(3, 16)),
		op("MaxPool2D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MaxPool2D(2, 2) }, randn(1, 8, 6, 28, 28)),
		op("MaxPool2D overlapping", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MaxPool2D(3, 1) }, randn(1, 4, 3, 12, 11)),
		op("AvgPool2D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].AvgPool2D(3, 2) }, randn(1, 4, 3, 12, 11)),
		layerCase("LeNet5", func() nn.Module { return nn.NewLeNet5() }, plain, randn(1, 16, 1, 28, 28)),
	}
}

// TestOpsAgree runs each op the tensor API dispatches to the device on
// the CPU and on the device, with the same inputs, and compares the
// outputs and the gradients of sum(op(inputs)) with respect to each input.
func TestOpsAgree(t *testing.T) {
	d := defaultOrSkip(t).be
	g := testGraph(t, 300, 1500, true)
	raw, err := graph.ErdosRenyiM(300, 1500, 9)
	if err != nil {
		t.Fatal(err)
	}
	loops := raw.AddSelfLoops()
	labels := make([]int, 50)
	for i := range labels {
		labels[i] = (i * 7) % 10
	}
	rows := []int{1, 4, 9, 16, 25, 36, 49}
	pos := func(seed int64, shape ...int) *tensor.Tensor { return tensor.Rand(seed, shape...).AddScalar(0.5) }
	cases := []opCase{
		{name: "MatMul", inputs: []*tensor.Tensor{randn(1, 70, 33), randn(2, 33, 130)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MatMul(x[1]) }},
		{name: "Add", inputs: []*tensor.Tensor{randn(1, 20, 9), randn(2, 20, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{name: "Add bias", inputs: []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{name: "Add bias left", inputs: []*tensor.Tensor{randn(1, 1, 9), randn(2, 20, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{name: "Sub bias", inputs: []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sub(x[1]) }},
		{name: "Mul", inputs: []*tensor.Tensor{randn(1, 20, 9), randn(2, 20, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }},
		{name: "Mul bias", inputs: []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }},
		{name: "AddScalar", inputs: []*tensor.Tensor{randn(1, 5, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].AddScalar(3) }},
		{name: "MulScalar", inputs: []*tensor.Tensor{randn(1, 5, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MulScalar(-2.5) }},
		{name: "Neg", inputs: []*tensor.Tensor{randn(1, 5, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Neg() }},
		{name: "ReLU", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].ReLU() }},
		{name: "LeakyReLU", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LeakyReLU(0.2) }},
		{name: "ELU", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].ELU(1) }},
		{name: "Sigmoid", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sigmoid() }},
		{name: "Tanh", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Tanh() }},
		{name: "Exp", inputs: []*tensor.Tensor{randn(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Exp() }},
		{name: "Log", inputs: []*tensor.Tensor{pos(1, 50, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Log() }},
		{name: "Sum", inputs: []*tensor.Tensor{randn(1, 1000, 77)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sum() }},
		{name: "Mean", inputs: []*tensor.Tensor{randn(1, 1000, 77)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mean() }},
		{name: "Reshape", inputs: []*tensor.Tensor{randn(1, 6, 8)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return x[0].Reshape(4, -1).Mul(randn(5, 4, 12).To(x[0].Device()))
		}},
		{name: "CrossEntropy", inputs: []*tensor.Tensor{randn(1, 50, 10)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return tensor.CrossEntropy(x[0], labels, nil) }},
		{name: "CrossEntropy rows", inputs: []*tensor.Tensor{randn(1, 50, 10)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return tensor.CrossEntropy(x[0].MulScalar(3), labels, rows).MulScalar(2)
		}},
		{name: "SpMM weighted", inputs: []*tensor.Tensor{randn(1, 300, 24)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return nn.SpMM(g, x[0]) }},
		{name: "SpMM width 7", inputs: []*tensor.Tensor{randn(1, 300, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return nn.SpMM(g, x[0]) }},
		{name: "SumAggregate", inputs: []*tensor.Tensor{randn(1, 300, 16)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return nn.SumAggregate(g, x[0]) }},
		{name: "GATv2Attention 1x16", inputs: []*tensor.Tensor{randn(1, 300, 16), randn(2, 300, 16), randn(3, 1, 16)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATv2Attention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true)
		}},
		{name: "MeanAggregate", inputs: []*tensor.Tensor{randn(1, 300, 16)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return nn.MeanAggregate(g, x[0]) }},
		{name: "MeanAggregate width 7", inputs: []*tensor.Tensor{randn(1, 300, 7)}, f: func(x []*tensor.Tensor) *tensor.Tensor { return nn.MeanAggregate(g, x[0]) }},
		{name: "GATAttention 1x16", inputs: []*tensor.Tensor{randn(1, 300, 16), randn(2, 300, 1), randn(3, 300, 1)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATAttention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true)
		}},
		{name: "GATAttention 4x40", inputs: []*tensor.Tensor{randn(1, 300, 160), randn(2, 300, 4), randn(3, 300, 4)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATAttention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true)
		}},
		{name: "GATConv 2x8", inputs: []*tensor.Tensor{randn(1, 300, 12)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			nn.Seed(3)
			l := nn.NewGATConv(12, 8, 2, true, 0)
			nn.To(l, x[0].Device())
			return l.Forward(raw, x[0])
		}},
		{name: "SAGEConv mean", inputs: []*tensor.Tensor{randn(1, 300, 12)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			nn.Seed(3)
			l := nn.NewSAGEConv(12, 20, "mean")
			nn.To(l, x[0].Device())
			return l.Forward(g, x[0])
		}},
		{name: "GATv2Attention 4x8", inputs: []*tensor.Tensor{randn(1, 300, 32), randn(2, 300, 32), randn(3, 4, 8)}, f: func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATv2Attention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true)
		}},
	}
	cases = append(cases, newOpCases(t)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
				xs := make([]*tensor.Tensor, len(c.inputs))
				for i, x := range c.inputs {
					xs[i] = x.Clone().To(dev).SetRequiresGrad(true)
				}
				f, params := c.f, []*tensor.Tensor(nil)
				if c.layer != nil {
					f, params = c.layer(dev)
				}
				out := f(xs)
				// Weight the outputs so that every element's gradient differs.
				w := tensor.Rand(99, out.Shape()...).AddScalar(0.5).To(dev)
				out.Mul(w).Sum().Backward()
				var grads []*tensor.Tensor
				for _, x := range append(xs, params...) {
					grads = append(grads, x.Grad())
				}
				return out, grads
			}
			wantOut, wantGrads := run(nil)
			gotOut, gotGrads := run(d)
			if !gotOut.IsOnDevice() {
				t.Fatalf("%s: output on the CPU, want the device", c.name)
			}
			const tol = 2e-4
			if e := maxErr(t, c.name, gotOut, wantOut); e > tol {
				t.Errorf("%s: output error %.3g, want <= %g", c.name, e, tol)
			}
			for i := range wantGrads {
				if gotGrads[i] != nil && !gotGrads[i].IsOnDevice() {
					t.Errorf("%s: gradient %d on the CPU, want the device", c.name, i)
				}
				if e := maxErr(t, fmt.Sprintf("%s grad %d", c.name, i), gotGrads[i], wantGrads[i]); e > tol {
					t.Errorf("%s: gradient %d error %.3g, want <= %g", c.name, i, e, tol)
				}
			}
		})
	}
}

func TestDropoutOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	const p = 0.3
	x := tensor.Rand(1, 200, 100).AddScalar(1).To(d).SetRequiresGrad(true)
	layer := nn.NewDropout(p)
	y := layer.Forward(x)
	y.Sum().Backward()
	xs, ys, gs := x.CPU().Data(), y.CPU().Data(), x.Grad().CPU().Data()
	zeros := 0
	for i := range ys {
		want := xs[i] / (1 - p)
		wantG := float32(1 / (1 - p))
		if ys[i] == 0 {
			zeros++
			want, wantG = 0, 0
		}
		if math.Abs(float64(ys[i]-want)) > 1e-5 || math.Abs(float64(gs[i]-wantG)) > 1e-5 {
			t.Fatalf("Dropout: element %d: x %g, y %g, grad %g; want y 0 or x/(1-p), grad on the same mask", i, xs[i], ys[i], gs[i])
		}
	}
	if frac := float64(zeros) / float64(len(ys)); math.Abs(frac-p) > 0.02 {
		t.Errorf("Dropout(%g) dropped %.3f of the elements", p, frac)
	}
	layer.Eval()
	if got := layer.Forward(x); got != x {
		t.Errorf("Dropout in evaluation mode returned a new tensor")
	}
}

// TestArgReduceOnDevice compares ArgMax and ArgMin, computed on the
// device, with the CPU's along every axis, and Accuracy, which uses them.
func TestArgReduceOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	x := randn(1, 300, 47, 3)
	xd := x.To(d)
	for axis := -1; axis < 3; axis++ {
		if got, want := xd.ArgMax(axis), x.ArgMax(axis); !slices.Equal(got, want) {
			t.Errorf("ArgMax(%d) on the device differs from the CPU's", axis)
		}
		if got, want := xd.ArgMin(axis), x.ArgMin(axis); !slices.Equal(got, want) {
			t.Errorf("ArgMin(%d) on the device differs from the CPU's", axis)
		}
	}
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = i % 7
	}
	logits := x.Reshape(300, 141)
	if got, want := nn.Accuracy(logits.To(d), labels, nil), nn.Accuracy(logits, labels, nil); got != want {
		t.Errorf("Accuracy on the device = %g, want %g", got, want)
	}
}

// TestNotOnDevice checks that ops without a device version fail with a
// *tensor.DeviceError that names them, and never copy to the CPU.
func TestNotOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	x := randn(1, 10, 4).To(d)
	g := testGraph(t, 10, 20, false)
	cases := []struct {
		op string
		f  func()
	}{
		{"Clamp", func() { x.Clamp(-1, 1) }},
		{"Max", func() { x.Max(1, false) }},
		{"Min", func() { x.Min(0, true) }},
		{"batched MatMul", func() { x.Reshape(1, 10, 4).MatMul(randn(2, 1, 4, 3).To(d)) }},
		{"Data", func() { x.Data() }},
		{"Div by a column", func() { x.Div(randn(2, 10, 1).To(d)) }},
		{"GATv2Attention with 12 channels", func() {
			nn.GATv2Attention(g, randn(1, 10, 12).To(d), randn(2, 10, 12).To(d), randn(3, 1, 12).To(d), 1, 0.2, 0, nil, true)
		}},
		{"Add across devices", func() { x.Add(randn(2, 10, 4)) }},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				var de *tensor.DeviceError
				if !ok || !errors.As(err, &de) {
					t.Fatalf("%s panicked with %v (%T), want a *tensor.DeviceError", c.op, r, r)
				}
				t.Logf("%s: %v", c.op, err)
			}()
			c.f()
		})
	}
}

// gcnModel is a 3-layer GCN built from gnnlib/nn's layers, as a notebook
// would write it.
type gcnModel struct {
	nn.Mode
	convs []*nn.GCNConv
	p     float32
	rng   *tensor.RNG
}

func newGCN(in, hidden, out, layers int, p float32) *gcnModel {
	m := &gcnModel{p: p, rng: tensor.NewRNG(5)}
	for i := 0; i < layers; i++ {
		a, b := hidden, hidden
		if i == 0 {
			a = in
		}
		if i == layers-1 {
			b = out
		}
		m.convs = append(m.convs, nn.NewGCNConv(a, b))
	}
	return m
}

func (m *gcnModel) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	return ps
}

func (m *gcnModel) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	drop := nn.NewDropout(max(m.p, 1e-9))
	drop.SetTraining(m.Training() && m.p > 0)
	for i, c := range m.convs {
		x = c.Forward(g, x)
		if i < len(m.convs)-1 {
			x = drop.Forward(x.ReLU())
		}
	}
	return x
}

// gatModel stacks GATv2Conv layers with ELU between them.
type gatModel struct {
	nn.Mode
	convs []*nn.GATv2Conv
	p     float32
}

func newGAT(in, hidden, heads, out, layers int, p float32) *gatModel {
	m := &gatModel{p: p}
	for i := 0; i < layers; i++ {
		a, c, h := hidden*heads, hidden, heads
		if i == 0 {
			a = in
		}
		if i == layers-1 {
			c, h = out, 1
		}
		m.convs = append(m.convs, nn.NewGATv2Conv(a, c, h, true, 0))
	}
	return m
}

func (m *gatModel) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	return ps
}

func (m *gatModel) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	drop := nn.NewDropout(max(m.p, 1e-9))
	drop.SetTraining(m.Training() && m.p > 0)
	for i, c := range m.convs {
		x = c.Forward(g, x)
		if i < len(m.convs)-1 {
			x = drop.Forward(x.ELU(1))
		}
	}
	return x
}

// stack runs graph layers with ELU between them.
type stack struct {
	nn.Mode
	layers []trainable
}

func (m *stack) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, l := range m.layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

func (m *stack) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	for i, l := range m.layers {
		x = l.Forward(g, x)
		if i < len(m.layers)-1 {
			x = x.ELU(1)
		}
	}
	return x
}

type trainable interface {
	nn.GraphLayer
	Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
}

// plainModel runs a Layer (an MLP) as a graph model that ignores the graph.
type plainModel struct{ nn.Layer }

func (m plainModel) Forward(_ *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return m.Layer.Forward(x)
}

// TestTrainingStepsAgree trains GCN, GATv2, GAT, GraphSAGE (mean and max),
// GIN (fixed and trained ε) and an MLP with both norms for a few steps of
// Adam or SGD (momentum, weight decay), with or without ClipGradNorm, on
// the CPU and, from the same initial parameters, on the device (moved
// with nn.To), and compares losses, gradients, gradient norms, parameters
// and the output in evaluation mode.
func TestTrainingStepsAgree(t *testing.T) {
	d := defaultOrSkip(t).be
	const n, feats, classes = 600, 32, 8
	sizes := []int{200, 200, 200}
	g, xs, y, err := graph.SBM(graph.SBMOptions{Sizes: sizes, PIn: 0.04, POut: 0.005, Features: feats, Signal: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = (y[i]*3 + i) % classes
	}
	var train []int
	for v := 0; v < n; v += 3 {
		train = append(train, v)
	}
	x := tensor.Wrap(xs, n, feats)
	sgd := func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 5e-4) }
	models := []struct {
		name  string
		build func() trainable
		opt   func(ps []*tensor.Tensor) nn.Optimizer // nil: Adam
		clip  float64                                // ClipGradNorm's bound; 0: none
	}{
		{"GCN", func() trainable { return newGCN(feats, 16, classes, 3, 0) }, nil, 0},
		{"GATv2", func() trainable { return newGAT(feats, 16, 2, classes, 2, 0) }, nil, 0},
		{"GAT", func() trainable {
			return &stack{layers: []trainable{nn.NewGATConv(feats, 16, 2, true, 0), nn.NewGATConv(32, classes, 1, true, 0)}}
		}, nil, 0},
		{"SAGE", func() trainable {
			return &stack{layers: []trainable{nn.NewSAGEConv(feats, 16, "mean"), nn.NewSAGEConv(16, classes, "mean")}}
		}, nil, 0},
		{"GraphSAGE max", func() trainable {
			m := nn.NewGraphSAGE(feats, 16, classes, "max")
			m.Dropout = 0 // the device's masks differ from the CPU's
			return m
		}, nil, 0},
		{"GIN SGD", func() trainable {
			m := nn.NewGIN(feats, 16, classes, 2)
			m.Dropout = 0
			return m
		}, sgd, 0},
		{"GINConv trained eps clipped", func() trainable {
			return &stack{layers: []trainable{nn.NewGINConv(nn.NewMLP(feats, 16, 16), 0.1, true), nn.NewGINConv(nn.NewMLP(16, 16, classes), 0, true)}}
		}, sgd, 1},
		{"MLP norms SGD clipped", func() trainable {
			return plainModel{nn.NewSequential(nn.NewLinear(feats, 32), nn.NewBatchNorm1D(32), nn.ReLU(),
				nn.NewLinear(32, 24), nn.NewLayerNorm(24), nn.GELU(), nn.NewLinear(24, classes))}
		}, sgd, 0.5},
	}
	for _, mc := range models {
		t.Run(mc.name, func(t *testing.T) {
			nn.Seed(11)
			cpu := mc.build()
			nn.Seed(11)
			gpu := mc.build()
			nn.To(gpu, d)
			for _, p := range gpu.Params() {
				if !p.IsOnDevice() {
					t.Fatalf("nn.To left a parameter %v on the CPU", p.Shape())
				}
			}
			xd := x.To(d)
			opt := mc.opt
			if opt == nil {
				opt = func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewAdam(ps, 0.01, 5e-4) }
			}
			optC, optG := opt(cpu.Params()), opt(gpu.Params())
			for step := 0; step < 3; step++ {
				optC.ZeroGrad()
				optG.ZeroGrad()
				lc := nn.CrossEntropy(cpu.Forward(g, x), y, train)
				lg := nn.CrossEntropy(gpu.Forward(g, xd), y, train)
				lc.Backward()
				lg.Backward()
				if !lg.IsOnDevice() {
					t.Fatalf("step %d: loss on the CPU, want the device", step)
				}
				if a, b := lg.Item(), lc.Item(); math.Abs(float64(a-b)) > 1e-4*(1+math.Abs(float64(b))) {
					t.Errorf("step %d: loss %g on the device, %g on the CPU", step, a, b)
				}
				pc, pg := cpu.Params(), gpu.Params()
				for i := range pc {
					if e := maxErr(t, "grad", pg[i].Grad(), pc[i].Grad()); e > 1e-3 {
						t.Errorf("step %d: parameter %d %v: gradient error %.3g", step, i, pc[i].Shape(), e)
					}
				}
				if mc.clip > 0 {
					nc, ng := nn.ClipGradNorm(pc, mc.clip), nn.ClipGradNorm(pg, mc.clip)
					if math.Abs(nc-ng) > 1e-4*(1+nc) {
						t.Errorf("step %d: ClipGradNorm = %g on the device, %g on the CPU", step, ng, nc)
					}
					for i := range pc {
						if e := maxErr(t, "clipped grad", pg[i].Grad(), pc[i].Grad()); e > 1e-3 {
							t.Errorf("step %d: parameter %d %v: clipped gradient error %.3g", step, i, pc[i].Shape(), e)
						}
					}
				}
				optC.Step()
				optG.Step()
				for i := range pc {
					if e := maxErr(t, "param", pg[i], pc[i]); e > 1e-3 {
						t.Errorf("step %d: parameter %d %v after the step: error %.3g", step, i, pc[i].Shape(), e)
					}
				}
			}
			accC := nn.Accuracy(cpu.Forward(g, x), y, nil)
			accG := nn.Accuracy(gpu.Forward(g, xd), y, nil)
			if math.Abs(accC-accG) > 0.01 {
				t.Errorf("accuracy %g on the device, %g on the CPU", accG, accC)
			}
			// Evaluation mode: BatchNorm's running statistics, moved on
			// the device, must agree too.
			cpu.SetTraining(false)
			gpu.SetTraining(false)
			if e := maxErr(t, "evaluation output", gpu.Forward(g, xd), cpu.Forward(g, x)); e > 1e-3 {
				t.Errorf("output in evaluation mode: error %.3g", e)
			}
		})
	}
}

// TestLeNetStepsAgree trains LeNet-5 for a few SGD steps on a batch of
// images on the CPU and, from the same parameters, on the device (im2col,
// the GEMM and the pooling kernels), and compares losses, gradients and
// parameters.
func TestLeNetStepsAgree(t *testing.T) {
	d := defaultOrSkip(t).be
	x := tensor.Randn(5, 32, 1, 28, 28)
	y := make([]int, 32)
	for i := range y {
		y[i] = i % 10
	}
	nn.Seed(11)
	cpu := nn.NewLeNet5()
	nn.Seed(11)
	gpu := nn.NewLeNet5()
	nn.To(gpu, d)
	xd := x.To(d)
	optC, optG := nn.NewSGD(cpu.Params(), 0.05, 0.9, 5e-4), nn.NewSGD(gpu.Params(), 0.05, 0.9, 5e-4)
	pc, pg := cpu.Params(), gpu.Params()
	for step := 0; step < 3; step++ {
		optC.ZeroGrad()
		optG.ZeroGrad()
		lc := nn.CrossEntropy(cpu.Forward(x), y, nil)
		lg := nn.CrossEntropy(gpu.Forward(xd), y, nil)
		lc.Backward()
		lg.Backward()
		if a, b := lg.Item(), lc.Item(); math.Abs(float64(a-b)) > 1e-4*(1+math.Abs(float64(b))) {
			t.Errorf("step %d: loss %g on the device, %g on the CPU", step, a, b)
		}
		for i := range pc {
			if e := maxErr(t, "grad", pg[i].Grad(), pc[i].Grad()); e > 1e-3 {
				t.Errorf("step %d: parameter %d %v: gradient error %.3g", step, i, pc[i].Shape(), e)
			}
		}
		optC.Step()
		optG.Step()
		for i := range pc {
			if e := maxErr(t, "param", pg[i], pc[i]); e > 1e-3 {
				t.Errorf("step %d: parameter %d %v after the step: error %.3g", step, i, pc[i].Shape(), e)
			}
		}
	}
}

// BenchmarkTensorAPIEpoch times full-batch training epochs (forward,
// backward, Adam) written with gnnlib/nn's layers on device tensors, on
// the ogbn-arxiv-sized random graph of BENCHMARKS.md (169,343 nodes,
// 2.33M edges, 128 features, 3 layers of 256, 40 classes; GATv2 with one
// head and a 64-wide output layer, as gnnbench), to compare with
// gnnbench's hand-written epochs.
func BenchmarkTensorAPIEpoch(b *testing.B) {
	d := defaultOrSkip(b).be
	const n, m, feats, hidden, classes = 169343, 1166243, 128, 256, 40
	g, err := graph.ErdosRenyiM(n, m, 2)
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.Randn(1, n, feats).To(d)
	y := make([]int, n)
	for i := range y {
		y[i] = i % classes
	}
	for _, mc := range []struct {
		name  string
		build func() trainable
	}{
		{"GCN", func() trainable { return newGCN(feats, hidden, classes, 3, 0.5) }},
		{"GATv2", func() trainable { return newGAT(feats, hidden, 1, 64, 3, 0.5) }},
	} {
		b.Run(mc.name+"/arxiv", func(b *testing.B) {
			model := mc.build()
			nn.To(model, d)
			opt := nn.NewAdam(model.Params(), 0.01, 0)
			epoch := func() float32 {
				opt.ZeroGrad()
				loss := nn.CrossEntropy(model.Forward(g, x), y, nil)
				loss.Backward()
				opt.Step()
				return loss.Item() // waits for the device
			}
			epoch()
			epoch()
			d.ResetPeak()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				epoch()
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(b.N), "ms/epoch")
			if s, err := d.MemStats(); err == nil {
				b.ReportMetric(float64(s.Peak)/(1<<30), "peakGiB")
			}
		})
	}
}

// TestAttentionDropoutOnDevice runs nn's GATAttention and GATv2Attention on
// the device with attention dropout: in evaluation mode the output is the
// one without dropout, in training mode it differs, and the backward pass
// gives finite gradients to every input. (TestGATv2 and TestGATDropout check the kernels' masks against a
// reference.)
func TestAttentionDropoutOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	g := testGraph(t, 200, 2000, false)
	for _, v2 := range []bool{false, true} {
		name := "GATAttention"
		in := []*tensor.Tensor{randn(1, 200, 32), randn(2, 200, 2), randn(3, 200, 2)}
		f := func(x []*tensor.Tensor, p float32, training bool) *tensor.Tensor {
			return nn.GATAttention(g, x[0], x[1], x[2], 2, 0.2, p, tensor.NewRNG(4), training)
		}
		if v2 {
			name = "GATv2Attention"
			in = []*tensor.Tensor{randn(1, 200, 32), randn(2, 200, 32), randn(3, 2, 16)}
			f = func(x []*tensor.Tensor, p float32, training bool) *tensor.Tensor {
				return nn.GATv2Attention(g, x[0], x[1], x[2], 2, 0.2, p, tensor.NewRNG(4), training)
			}
		}
		xs := make([]*tensor.Tensor, len(in))
		for i, x := range in {
			xs[i] = x.Clone().To(d).SetRequiresGrad(true)
		}
		plain := f(xs, 0, true).CPU().Data()
		eval := f(xs, 0.5, false).CPU().Data()
		if !slices.Equal(plain, eval) {
			t.Errorf("%s with dropout 0.5 in evaluation mode differs from no dropout", name)
		}
		out := f(xs, 0.5, true)
		drop := out.CPU().Data()
		same := 0
		for i := range plain {
			if drop[i] == plain[i] {
				same++
			}
		}
		if same > len(plain)/20 {
			t.Errorf("%s with dropout 0.5: %d of %d outputs unchanged", name, same, len(plain))
		}
		out.Sum().Backward()
		for i, x := range xs {
			gr := x.Grad()
			if gr == nil {
				t.Fatalf("%s: input %d has no gradient", name, i)
			}
			for _, v := range gr.CPU().Data() {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: input %d has a non-finite gradient", name, i)
				}
			}
		}
	}
}
