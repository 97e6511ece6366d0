package devicetest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Tolerance bounds the error of a device against the CPU, as max|got −
// want| / (1 + max|want|) over a tensor's values.
type Tolerance struct {
	// Op bounds the outputs and gradients of OpCases.
	Op float64
	// Loss bounds the training losses and gradient norms (relative).
	Loss float64
	// Value bounds the gradients, parameters and outputs of training.
	Value float64
}

// Run runs the whole suite on dev as subtests: the op cases, the shape
// sweep of the attention layers (CheckShapes), the arg-extrema, the ops a device lacks (with extra, the backend's own), and
// training steps against the CPU.
func Run(t *testing.T, dev tensor.Backend, tol Tolerance, extra ...Unsupported) {
	subtest(t, "Ops", func(t *testing.T) { CheckOps(t, dev, OpCases(t), tol.Op) })
	subtest(t, "Shapes", func(t *testing.T) { CheckShapes(t, dev, tol) })
	subtest(t, "HeavyRows", func(t *testing.T) { CheckHeavyRows(t, dev, tol.Op) })
	subtest(t, "ArgReduce", func(t *testing.T) { CheckArgReduce(t, dev) })
	subtest(t, "NotOnDevice", func(t *testing.T) { CheckNotOnDevice(t, dev, extra...) })
	subtest(t, "Training", func(t *testing.T) { CheckTraining(t, dev, TrainCases(), tol) })
	subtest(t, "LeNetTraining", func(t *testing.T) { CheckLeNetTraining(t, dev, tol) })
	subtest(t, "OptimizerMovesBack", func(t *testing.T) { CheckOptimizerMovesBack(t, dev, tol.Value) })
}

// subtest is t.Run with the caller's tensor.Autocast scope open in the
// subtest too: a scope is its goroutine's, and t.Run runs f on a
// goroutine of its own, so that a check called under Autocast ran its
// cases in float32 before (gnnlib/cuda's "bfloat16" cases of
// CheckActOutInAttention, CheckForwardReLUDropout, CheckGATv2OneProduct
// and the edge-coefficient CheckOps among them).
func subtest(t *testing.T, name string, f func(t *testing.T)) bool {
	dt := tensor.AutocastDType()
	return t.Run(name, func(t *testing.T) {
		if dt != tensor.Float32 {
			// Only then: an open scope, even a float32 one, makes every
			// op look its goroutine's scope up.
			defer tensor.SetAutocast(dt)()
		}
		f(t)
	})
}

// RelErr returns max|got−want| / (1 + max|want|) over the values of two
// tensors of one length (either may live on a device); +Inf where one is
// NaN and the other not.
func RelErr(got, want *tensor.Tensor) float64 {
	g, w := got.CPU().Data(), want.CPU().Data()
	var diff, scale float64
	for i := range w {
		if math.IsNaN(float64(g[i])) != math.IsNaN(float64(w[i])) {
			return math.Inf(1)
		}
		diff = max(diff, math.Abs(float64(g[i]-w[i])))
		scale = max(scale, math.Abs(float64(w[i])))
	}
	return diff / (1 + scale)
}

// agree checks that got (from the device) matches want (from the CPU).
func agree(t *testing.T, what string, got, want *tensor.Tensor, tol float64) {
	t.Helper()
	switch {
	case got == nil || want == nil:
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	case !got.IsOnDevice():
		t.Errorf("%s is on the CPU, want the device", what)
	case !got.SameShape(want):
		t.Errorf("%s has shape %v, want %v", what, got.Shape(), want.Shape())
	default:
		if e := RelErr(got, want); e > tol {
			t.Errorf("%s: error %.3g against the CPU, want <= %g", what, e, tol)
		}
	}
}

// A Case is an op or a layer that CheckOps runs on the CPU and on a
// device: Run maps the inputs (moved to dev) to an output and returns the
// parameters whose gradients are compared too (nil for none).
type Case struct {
	Name   string
	Inputs []*tensor.Tensor
	Run    func(x []*tensor.Tensor, dev tensor.Backend) (out *tensor.Tensor, params []*tensor.Tensor)
}

// Op is a Case without parameters.
func Op(name string, f func(x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) Case {
	return Case{name, inputs, func(x []*tensor.Tensor, _ tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) { return f(x), nil }}
}

// Layer is a Case of the module build makes (seeded, so that both sides
// start from the same parameters), moved to dev and applied by fwd.
func Layer(name string, build func() nn.Module, fwd func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) Case {
	return Case{name, inputs, func(x []*tensor.Tensor, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
		nn.Seed(3)
		m := build()
		nn.To(m, dev)
		return fwd(m, x), m.Params()
	}}
}

// runCase runs c on dev (nil: the CPU) and returns the output and the
// gradients of sum(out·w), w fixed weights so that every element's
// gradient differs, for the inputs and parameters.
func runCase(c Case, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
	xs := make([]*tensor.Tensor, len(c.Inputs))
	for i, x := range c.Inputs {
		xs[i] = x.Clone().To(dev).SetRequiresGrad(true)
	}
	out, params := c.Run(xs, dev)
	w := tensor.Rand(99, out.Shape()...).AddScalar(0.5).To(dev)
	out.Mul(w).Sum().Backward()
	var grads []*tensor.Tensor
	for _, x := range append(xs, params...) {
		grads = append(grads, x.Grad())
	}
	return out, grads
}

// CheckOps runs each case on the CPU and on dev and compares the outputs
// and the gradients with respect to every input and parameter.
//
// Under Autocast (16-bit storage), a gradient that misses tol is also
// held against the CPU's float32 run: it passes when the device is no
// further from float32 than condSlack times the CPU's own 16-bit
// emulation is. Some gradients are ill-conditioned under rounding: in a
// GATv2 layer the target weights' gradient comes only from the
// LeakyReLU's kinks (were it linear, x_r's term would be the same for
// every edge of a row and cancel in the softmax), and on devicetest's
// hub graph the CPU's bfloat16 emulation of it is 8 % from its float32
// value, where every other gradient of the layer is within 1 %; the
// device, rounding in other places, was 8-10 % from the emulation too
// (an H100, 2026-12-07, with the default and the edge-coefficient
// backward alike).
func CheckOps(t *testing.T, dev tensor.Backend, cases []Case, tol float64) {
	for _, c := range cases {
		subtest(t, c.Name, func(t *testing.T) {
			wantOut, wantGrads := runCase(c, nil)
			gotOut, gotGrads := runCase(c, dev)
			agree(t, "output", gotOut, wantOut, tol)
			rounded := tensor.AutocastDType() != tensor.Float32
			var f32Grads []*tensor.Tensor
			for i := range wantGrads {
				what := fmt.Sprintf("gradient %d", i)
				got, want := gotGrads[i], wantGrads[i]
				if rounded && got != nil && want != nil && got.SameShape(want) && RelErr(got, want) > tol {
					if f32Grads == nil {
						tensor.Autocast(tensor.Float32, func() { _, f32Grads = runCase(c, nil) })
					}
					agreeRounded(t, what, got, want, f32Grads[i], tol)
					continue
				}
				agree(t, what, got, want, tol)
			}
		})
	}
}

// agreeRounded checks a 16-bit gradient got (from the device) that is
// further than tol from want (the CPU's emulation) against f32 (the
// CPU's float32 run): got may be no further from it than condSlack times
// want is.
func agreeRounded(t *testing.T, what string, got, want, f32 *tensor.Tensor, tol float64) {
	t.Helper()
	dt := tensor.AutocastDType()
	e, emuErr, devErr := RelErr(got, want), RelErr(want, f32), RelErr(got, f32)
	if devErr > condSlack*emuErr {
		t.Errorf("%s: error %.3g against the CPU, want <= %g, and %.3g against the CPU's float32, want <= %g (%g × the CPU's %v emulation's %.3g)",
			what, e, tol, devErr, condSlack*emuErr, condSlack, dt, emuErr)
		return
	}
	t.Logf("%s: error %.3g against the CPU's %v emulation, %.3g against its float32 (the emulation's own: %.3g): ill-conditioned under rounding",
		what, e, dt, devErr, emuErr)
}

// condSlack is how much further from the CPU's float32 result than the
// CPU's 16-bit emulation a device's 16-bit gradient may be, where the
// two 16-bit results disagree beyond CheckOps' tolerance.
const condSlack = 1.5

// HubGraph is the GCN-normalised random graph of n nodes and m edges
// (seed 7) that the cases aggregate over; with hub, node 3 also has every
// node as in-neighbour, a heavy row for degree-aware kernels.
func HubGraph(tb testing.TB, n, m int, hub bool) *graph.Graph {
	tb.Helper()
	g, err := graph.ErdosRenyiM(n, m, 7)
	if err != nil {
		tb.Fatal(err)
	}
	if hub {
		src, dst := g.Edges()
		for u := range n {
			src, dst = append(src, u), append(dst, 3)
		}
		if g, err = graph.FromEdges(n, src, dst); err != nil {
			tb.Fatal(err)
		}
	}
	return g.GCNNorm()
}

// blockGraph is a sampled block: 120 destinations, which are the first
// 120 of 400 source rows, with up to 8 in-edges each, destination 5 heavy
// (an edge from every source), some without in-edges.
func blockGraph(tb testing.TB) *graph.Graph {
	tb.Helper()
	var src, dst []int
	for v := 0; v < 120; v++ {
		for k := 0; k < v%9; k++ {
			src, dst = append(src, (v*37+k*101)%400), append(dst, v)
		}
	}
	for u := 0; u < 400; u++ {
		src, dst = append(src, u), append(dst, 5)
	}
	g, err := graph.NewBipartite(400, 120, src, dst, nil)
	if err != nil {
		tb.Fatalf("NewBipartite: %v", err)
	}
	return g
}

func randn(seed int64, shape ...int) *tensor.Tensor { return tensor.Randn(seed, shape...) }

// positive returns values in [0.5, 1.5).
func positive(seed int64, shape ...int) *tensor.Tensor {
	return tensor.Rand(seed, shape...).AddScalar(0.5)
}

// OpCases are the ops and layers that the tensor API and gnnlib/nn
// dispatch to a device, each with inputs whose shapes cross warps and
// blocks and leave remainders: products, element-wise maps and broadcasts,
// reductions along axes, gathers and scatters, joins and slices, losses,
// the graph aggregations and attentions (a heavy row, a sampled block),
// the norms, convolution and pooling, and whole layers.
func OpCases(tb testing.TB) []Case {
	g := HubGraph(tb, 300, 1500, true)
	raw, err := graph.ErdosRenyiM(300, 1500, 9)
	if err != nil {
		tb.Fatal(err)
	}
	loops := raw.AddSelfLoops()
	blk := blockGraph(tb)
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = (i * 7) % 10
	}
	rows := []int{1, 4, 9, 16, 25, 36, 49}
	idx := make([]int, 700)
	for i := range idx {
		idx[i] = (i * i * 31) % 300 // repeats
	}
	on := func(g *graph.Graph) func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor {
		return func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.GraphLayer).Forward(g, x[0]) }
	}
	plain := func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.Layer).Forward(x[0]) }
	type T = *tensor.Tensor
	cases := []Case{
		Op("MatMul", func(x []T) T { return x[0].MatMul(x[1]) }, randn(1, 70, 33), randn(2, 33, 130)),
		Op("Add", func(x []T) T { return x[0].Add(x[1]) }, randn(1, 20, 9), randn(2, 20, 9)),
		Op("Add bias", func(x []T) T { return x[0].Add(x[1]) }, randn(1, 20, 9), randn(2, 9)),
		Op("Add bias left", func(x []T) T { return x[0].Add(x[1]) }, randn(1, 1, 9), randn(2, 20, 9)),
		Op("Sub bias", func(x []T) T { return x[0].Sub(x[1]) }, randn(1, 20, 9), randn(2, 9)),
		Op("Mul", func(x []T) T { return x[0].Mul(x[1]) }, randn(1, 20, 9), randn(2, 20, 9)),
		Op("Mul bias", func(x []T) T { return x[0].Mul(x[1]) }, randn(1, 20, 9), randn(2, 9)),
		Op("MulScalar", func(x []T) T { return x[0].MulScalar(-2.5) }, randn(1, 5, 7)),
		Op("Neg", func(x []T) T { return x[0].Neg() }, randn(1, 5, 7)),
		Op("Pow half", func(x []T) T { return x[0].Pow(0.5) }, positive(1, 50, 7)),
		Op("Div", func(x []T) T { return x[0].Div(x[1]) }, randn(1, 20, 9), positive(2, 20, 9)),
		Op("Div by a row", func(x []T) T { return x[0].Div(x[1]) }, randn(1, 20, 9), positive(2, 9)),
		Op("Div by one value", func(x []T) T { return x[0].Div(x[1]) }, randn(1, 20, 9), positive(2, 1)),
		Op("Mul by one value", func(x []T) T { return x[0].Mul(x[1]) }, randn(1, 300, 9), randn(2, 1)),
		Op("Add one value left", func(x []T) T { return x[1].Add(x[0]) }, randn(1, 20, 9), tensor.Scalar(0.7)),
		Op("Sub one value", func(x []T) T { return x[0].Sub(x[1]) }, randn(1, 20, 9), tensor.Scalar(0.7)),
		Op("Sum", func(x []T) T { return x[0].Sum() }, randn(1, 1000, 77)),
		Op("Mean", func(x []T) T { return x[0].Mean() }, randn(1, 1000, 77)),
		Op("Reshape", func(x []T) T { return x[0].Reshape(4, -1).Mul(randn(5, 4, 12).To(x[0].Device())) }, randn(1, 6, 8)),
		Op("Dropout off", func(x []T) T { return x[0].Dropout(0.5, tensor.NewRNG(1), false) }, randn(1, 6, 5)),
		Op("Softmax", func(x []T) T { return x[0].Softmax(-1) }, randn(1, 300, 47)),
		Op("Softmax middle axis", func(x []T) T { return x[0].Softmax(1) }, randn(1, 20, 70, 3)),
		Op("LogSoftmax", func(x []T) T { return x[0].LogSoftmax(1) }, randn(1, 300, 10)),
		Op("LogSoftmax axis 0", func(x []T) T { return x[0].LogSoftmax(0) }, randn(1, 50, 33)),
		Op("SumAxis", func(x []T) T { return x[0].SumAxis(1, false) }, randn(1, 40, 30, 7)),
		Op("SumAxis last", func(x []T) T { return x[0].SumAxis(-1, true) }, randn(1, 300, 40)),
		Op("MeanAxis", func(x []T) T { return x[0].MeanAxis(0, false) }, randn(1, 300, 16)),
		Op("IndexSelect", func(x []T) T { return x[0].IndexSelect(idx) }, randn(1, 300, 24)),
		Op("IndexSelect 1-D", func(x []T) T { return x[0].IndexSelect(idx) }, randn(1, 300)),
		Op("IndexSelect 3-D", func(x []T) T { return x[0].IndexSelect([]int{2, 0, 2}) }, randn(1, 3, 4, 2)),
		Op("IndexAdd", func(x []T) T { return x[0].IndexAdd(idx, x[1]) }, randn(1, 300, 5), randn(2, 700, 5)),
		Op("ScatterAddRows", func(x []T) T { return tensor.ScatterAddRows(x[0], idx, 310) }, randn(1, 700, 12)),
		Op("Concat", func(x []T) T { return tensor.Concat(1, x[0], x[1], x[2]) }, randn(1, 50, 3, 8), randn(2, 50, 1, 8), randn(3, 50, 5, 8)),
		Op("Concat axis 0", func(x []T) T { return tensor.Concat(0, x[0], x[1]) }, randn(1, 70, 9), randn(2, 30, 9)),
		Op("Split", func(x []T) T {
			p := x[0].Split(1, 10, 30, 7)
			return tensor.Concat(1, p[2], p[0].MulScalar(2), p[1])
		}, randn(1, 60, 47)),
		Op("Narrow", func(x []T) T { return x[0].Narrow(1, 3, 20) }, randn(1, 30, 40, 5)),
		Op("Narrow whole", func(x []T) T { return x[0].Narrow(0, 0, 6) }, randn(1, 6, 5)),
		Op("Transpose", func(x []T) T { return x[0].T() }, randn(1, 70, 33)),
		Op("Permute", func(x []T) T { return x[0].Permute(2, 0, 3, 1) }, randn(1, 3, 4, 5, 6)),
		Op("CrossEntropy", func(x []T) T { return tensor.CrossEntropy(x[0], labels[:50], nil) }, randn(1, 50, 10)),
		Op("CrossEntropy rows", func(x []T) T {
			return tensor.CrossEntropy(x[0].MulScalar(3), labels[:50], rows).MulScalar(2)
		}, randn(1, 50, 10)),
		Op("MSE", func(x []T) T { return tensor.MSE(x[0], x[1]).MulScalar(3) }, randn(1, 300, 20), randn(2, 300, 20)),
		Op("BCEWithLogits", func(x []T) T { return tensor.BCEWithLogits(x[0].MulScalar(4), x[1]) }, randn(1, 300, 20), tensor.Rand(2, 300, 20)),
		Op("NLL", func(x []T) T { return tensor.NLL(x[0].LogSoftmax(1), labels, nil) }, randn(1, 300, 10)),
		Op("NLL rows", func(x []T) T {
			return tensor.NLL(x[0].LogSoftmax(1), labels, []int{1, 4, 4, 9, 250, 0, 4}).MulScalar(2)
		}, randn(1, 300, 10)),
		Op("SpMM weighted", func(x []T) T { return nn.SpMM(g, x[0]) }, randn(1, 300, 24)),
		Op("SpMM width 7", func(x []T) T { return nn.SpMM(g, x[0]) }, randn(1, 300, 7)),
		Op("SumAggregate", func(x []T) T { return nn.SumAggregate(g, x[0]) }, randn(1, 300, 16)),
		Op("MeanAggregate", func(x []T) T { return nn.MeanAggregate(g, x[0]) }, randn(1, 300, 16)),
		Op("MeanAggregate width 7", func(x []T) T { return nn.MeanAggregate(g, x[0]) }, randn(1, 300, 7)),
		Op("MaxAggregate", func(x []T) T { return nn.MaxAggregate(g, x[0]) }, randn(1, 300, 16)),
		Op("MaxAggregate width 7", func(x []T) T { return nn.MaxAggregate(g, x[0]) }, randn(1, 300, 7)),
		Op("MaxAggregate block", func(x []T) T { return nn.MaxAggregate(blk, x[0]) }, randn(1, 400, 12)),
		Op("GATv2Attention 1x16", func(x []T) T { return nn.GATv2Attention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true) },
			randn(1, 300, 16), randn(2, 300, 16), randn(3, 1, 16)),
		Op("GATv2Attention 4x8", func(x []T) T { return nn.GATv2Attention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true) },
			randn(1, 300, 32), randn(2, 300, 32), randn(3, 4, 8)),
		Op("TransformerAttention 1x16", func(x []T) T { return nn.TransformerAttention(loops, x[0], x[1], x[2], 1, 0, nil, true) },
			randn(1, 300, 16), randn(2, 300, 16), randn(3, 300, 16)),
		Op("TransformerAttention 4x7", func(x []T) T { return nn.TransformerAttention(loops, x[0], x[1], x[2], 4, 0, nil, true) },
			randn(1, 300, 28), randn(2, 300, 28), randn(3, 300, 28)),
		Op("TransformerAttention block", func(x []T) T { return nn.TransformerAttention(blk, x[0], x[1], x[2], 2, 0, nil, true) },
			randn(1, 120, 16), randn(2, 400, 16), randn(3, 400, 16)),
		Op("GATAttention 1x16", func(x []T) T { return nn.GATAttention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true) },
			randn(1, 300, 16), randn(2, 300, 1), randn(3, 300, 1)),
		Op("GATAttention 4x40", func(x []T) T { return nn.GATAttention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true) },
			randn(1, 300, 160), randn(2, 300, 4), randn(3, 300, 4)),
		Layer("GATConv 2x8", func() nn.Module { return nn.NewGATConv(12, 8, 2, true, 0) }, on(raw), randn(1, 300, 12)),
		Layer("GATConv mean heads", func() nn.Module { return nn.NewGATConv(12, 8, 2, false, 0) }, on(g), randn(1, 300, 12)),
		Layer("GATv2Conv mean heads", func() nn.Module { return nn.NewGATv2Conv(12, 8, 2, false, 0) }, on(g), randn(1, 300, 12)),
		Layer("SAGEConv mean", func() nn.Module { return nn.NewSAGEConv(12, 20, "mean") }, on(g), randn(1, 300, 12)),
		Layer("SAGEConv mean block", func() nn.Module { return nn.NewSAGEConv(12, 20, "mean") }, on(blk), randn(1, 400, 12)),
		Layer("SAGEConv max", func() nn.Module { return nn.NewSAGEConv(12, 20, "max") }, on(g), randn(1, 300, 12)),
		Layer("SAGEConv max block", func() nn.Module { return nn.NewSAGEConv(12, 20, "max") }, on(blk), randn(1, 400, 12)),
		Layer("GINConv", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0.3, false) }, on(g), randn(1, 300, 12)),
		Layer("GINConv trained eps", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0.3, true) }, on(g), randn(1, 300, 12)),
		Layer("GINConv block", func() nn.Module { return nn.NewGINConv(nn.NewMLP(12, 32, 16), 0, false) }, on(blk), randn(1, 400, 12)),
		Layer("BatchNorm1D", func() nn.Module { return nn.NewBatchNorm1D(16) }, plain, randn(1, 300, 16)),
		Layer("BatchNorm2D", func() nn.Module { return nn.NewBatchNorm2D(3) }, plain, randn(1, 4, 3, 10, 10)),
		Layer("BatchNorm1D eval", func() nn.Module {
			b := nn.NewBatchNorm1D(16)
			b.Forward(randn(7, 50, 16)) // running statistics from one batch
			b.Eval()
			return b
		}, plain, randn(1, 300, 16)),
		Layer("LayerNorm", func() nn.Module { return nn.NewLayerNorm(40) }, plain, randn(1, 300, 40)),
		Layer("LayerNorm wide", func() nn.Module { return nn.NewLayerNorm(100) }, plain, randn(1, 20, 3, 100)),
		Layer("MLP", func() nn.Module { return nn.NewMLP(12, 32, 10) }, plain, randn(1, 300, 12)),
		Layer("Linear GELU Softmax", func() nn.Module {
			return nn.NewSequential(nn.NewLinear(12, 10), nn.GELU(), nn.Softmax(1))
		}, plain, randn(1, 300, 12)),
		Op("Conv2D", func(x []T) T { return tensor.Conv2D(x[0], x[1], x[2], 1, 2) },
			randn(1, 8, 3, 28, 28), randn(2, 6, 3, 5, 5), randn(3, 6)),
		Op("Conv2D stride 2 no bias", func(x []T) T { return tensor.Conv2D(x[0], x[1], nil, 2, 1) },
			randn(1, 4, 3, 17, 15), randn(2, 5, 3, 3, 2)),
		Op("Conv2DReLU", func(x []T) T { return tensor.Conv2DReLU(x[0], x[1], x[2], 1, 0) },
			randn(1, 8, 6, 14, 14), randn(2, 16, 6, 5, 5), randn(3, 16)),
		Op("MaxPool2D", func(x []T) T { return x[0].MaxPool2D(2, 2) }, randn(1, 8, 6, 28, 28)),
		Op("MaxPool2D overlapping", func(x []T) T { return x[0].MaxPool2D(3, 1) }, randn(1, 4, 3, 12, 11)),
		Op("AvgPool2D", func(x []T) T { return x[0].AvgPool2D(3, 2) }, randn(1, 4, 3, 12, 11)),
		Layer("LeNet5", func() nn.Module { return nn.NewLeNet5() }, plain, randn(1, 16, 1, 28, 28)),
	}
	// One case per element-wise map of the op table (maps_gen.go).
	return append(cases, mapCases()...)
}

// CheckArgReduce compares ArgMax and ArgMin on dev with the CPU's along
// every axis, and Accuracy, which uses them.
func CheckArgReduce(t *testing.T, dev tensor.Backend) {
	x := randn(1, 300, 47, 3)
	xd := x.To(dev)
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
	if got, want := nn.Accuracy(logits.To(dev), labels, nil), nn.Accuracy(logits, labels, nil); got != want {
		t.Errorf("Accuracy on the device = %g, want %g", got, want)
	}
}

// Unsupported is a call a backend cannot run: it must panic with a
// *tensor.DeviceError wrapping tensor.ErrNotOnDevice (see CheckNotOnDevice).
type Unsupported struct {
	Op string
	F  func()
}

// CheckNotOnDevice checks that the ops without a device version (Clamp,
// Max and Min along an axis, division by a column, the batched MatMul,
// Data) and then extra, the backend's own gaps, panic on dev with a
// *tensor.DeviceError wrapping tensor.ErrNotOnDevice that names them,
// never copying to the CPU, and that an op across devices panics with a
// *tensor.DeviceError.
func CheckNotOnDevice(t *testing.T, dev tensor.Backend, extra ...Unsupported) {
	x := randn(1, 10, 4).To(dev)
	cases := append([]Unsupported{
		{"Clamp", func() { x.Clamp(-1, 1) }},
		{"Max", func() { x.Max(1, false) }},
		{"Min", func() { x.Min(0, true) }},
		{"Div by a column", func() { x.Div(randn(2, 10, 1).To(dev)) }},
		{"batched MatMul", func() { x.Reshape(1, 10, 4).MatMul(randn(2, 1, 4, 3).To(dev)) }},
		{"Data", func() { x.Data() }},
	}, extra...)
	check := func(op string, f func(), notOnDevice bool) {
		subtest(t, op, func(t *testing.T) {
			defer func() {
				r := recover()
				err, _ := r.(error)
				var de *tensor.DeviceError
				switch {
				case !errors.As(err, &de):
					t.Errorf("%s on the device panicked with %v (%T), want a *tensor.DeviceError", op, r, r)
				case notOnDevice && !errors.Is(err, tensor.ErrNotOnDevice):
					t.Errorf("%s on the device panicked with %v, want it to wrap tensor.ErrNotOnDevice", op, err)
				default:
					t.Logf("%s: %v", op, err)
				}
			}()
			f()
		})
	}
	for _, c := range cases {
		check(c.Op, c.F, true)
	}
	check("Add across devices", func() { x.Add(randn(2, 10, 4)) }, false)
}

// A TrainCase is a model trained for a few steps on the CPU and, from the
// same parameters, on a device.
type TrainCase struct {
	Name  string
	Build func() nn.Module
	// Forward applies the model; g is nil for image models.
	Forward func(m nn.Module, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
	// Opt makes the optimiser; nil is Adam (lr 0.01, weight decay 5e-4).
	Opt func(ps []*tensor.Tensor) nn.Optimizer
	// Clip is ClipGradNorm's bound before each step; 0: none.
	Clip float64
}

func graphForward(m nn.Module, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return m.(nn.GraphLayer).Forward(g, x)
}

func layerForward(m nn.Module, _ *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return m.(nn.Layer).Forward(x)
}

// TrainCases are the models whose training CheckTraining compares: GCN,
// GATv2, GAT and GraphSAGE (mean) stacks, GraphSAGE's max aggregator, GIN
// (fixed and trained ε) with SGD, and an MLP with both norms, with or
// without ClipGradNorm. Dropout is off: device masks differ from the
// CPU's.
func TrainCases() []TrainCase {
	sgd := func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 5e-4) }
	const feats, classes = 32, 8
	return []TrainCase{
		{"GCN", func() nn.Module { return GCN(feats, 16, classes, 3, 0) }, graphForward, nil, 0},
		{"GATv2", func() nn.Module { return GATv2(feats, 16, 2, classes, 2, 0) }, graphForward, nil, 0},
		{"GAT", func() nn.Module {
			return stack(nn.NewGATConv(feats, 16, 2, true, 0), nn.NewGATConv(32, classes, 1, true, 0))
		}, graphForward, nil, 0},
		{"SAGE", func() nn.Module {
			return stack(nn.NewSAGEConv(feats, 16, "mean"), nn.NewSAGEConv(16, classes, "mean"))
		}, graphForward, nil, 0},
		{"GraphSAGE max", func() nn.Module {
			m := nn.NewGraphSAGE(feats, 16, classes, "max")
			m.Dropout = 0
			return m
		}, graphForward, nil, 0},
		{"GIN SGD", func() nn.Module {
			m := nn.NewGIN(feats, 16, classes, 2)
			m.Dropout = 0
			return m
		}, graphForward, sgd, 0},
		{"GINConv trained eps clipped", func() nn.Module {
			return stack(nn.NewGINConv(nn.NewMLP(feats, 16, 16), 0.1, true), nn.NewGINConv(nn.NewMLP(16, 16, classes), 0, true))
		}, graphForward, sgd, 1},
		{"MLP norms SGD clipped", func() nn.Module {
			return nn.NewSequential(nn.NewLinear(feats, 32), nn.NewBatchNorm1D(32), nn.ReLU(),
				nn.NewLinear(32, 24), nn.NewLayerNorm(24), nn.GELU(), nn.NewLinear(24, classes))
		}, layerForward, sgd, 0.5},
	}
}

// CheckTraining trains each case for three steps on a 600-node
// stochastic block model (32 features, 8 classes, every third node
// labelled) on the CPU and, from the same parameters, on dev, comparing
// losses, gradients, gradient norms, parameters, the accuracy and the
// evaluation-mode output at the end.
func CheckTraining(t *testing.T, dev tensor.Backend, cases []TrainCase, tol Tolerance) {
	const n, feats, classes = 600, 32, 8
	g, xs, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{200, 200, 200}, PIn: 0.04, POut: 0.005, Features: feats, Signal: 1, Seed: 3})
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
	checkTraining(t, dev, cases, g, tensor.Wrap(xs, n, feats), y, train, 3, tol)
}

// CheckLeNetTraining trains LeNet-5 for three SGD steps on a batch of 32
// images on the CPU and on dev (im2col, the GEMM and the pooling kernels).
func CheckLeNetTraining(t *testing.T, dev tensor.Backend, tol Tolerance) {
	lenet := TrainCase{"LeNet-5", func() nn.Module { return nn.NewLeNet5() }, layerForward,
		func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 5e-4) }, 0}
	y := make([]int, 32)
	for i := range y {
		y[i] = i % 10
	}
	checkTraining(t, dev, []TrainCase{lenet}, nil, tensor.Randn(5, 32, 1, 28, 28), y, nil, 3, tol)
}

func checkTraining(t *testing.T, dev tensor.Backend, cases []TrainCase, g *graph.Graph, x *tensor.Tensor, y, train []int, steps int, tol Tolerance) {
	xd := x.To(dev)
	for _, c := range cases {
		subtest(t, c.Name, func(t *testing.T) {
			nn.Seed(11)
			cpu := c.Build()
			nn.Seed(11)
			gpu := c.Build()
			nn.To(gpu, dev)
			for _, p := range gpu.Params() {
				if !p.IsOnDevice() {
					t.Fatalf("nn.To left a parameter %v on the CPU", p.Shape())
				}
			}
			opt := c.Opt
			if opt == nil {
				opt = func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewAdam(ps, 0.01, 5e-4) }
			}
			optC, optG := opt(cpu.Params()), opt(gpu.Params())
			pc, pg := cpu.Params(), gpu.Params()
			for step := range steps {
				optC.ZeroGrad()
				optG.ZeroGrad()
				lc := nn.CrossEntropy(c.Forward(cpu, g, x), y, train)
				lg := nn.CrossEntropy(c.Forward(gpu, g, xd), y, train)
				lc.Backward()
				lg.Backward()
				if !lg.IsOnDevice() {
					t.Fatalf("step %d: loss on the CPU, want the device", step)
				}
				if a, b := lg.Item(), lc.Item(); math.Abs(float64(a-b)) > tol.Loss*(1+math.Abs(float64(b))) {
					t.Errorf("step %d: loss %g on the device, %g on the CPU", step, a, b)
				}
				for i := range pc {
					agree(t, fmt.Sprintf("step %d: gradient of parameter %d %v", step, i, pc[i].Shape()), pg[i].Grad(), pc[i].Grad(), tol.Value)
				}
				if c.Clip > 0 {
					nc, ng := nn.ClipGradNorm(pc, c.Clip), nn.ClipGradNorm(pg, c.Clip)
					if math.Abs(nc-ng) > tol.Loss*(1+nc) {
						t.Errorf("step %d: ClipGradNorm = %g on the device, %g on the CPU", step, ng, nc)
					}
					if nc <= c.Clip {
						t.Logf("step %d: norm %g does not clip", step, nc)
					}
					for i := range pc {
						agree(t, fmt.Sprintf("step %d: clipped gradient of parameter %d %v", step, i, pc[i].Shape()), pg[i].Grad(), pc[i].Grad(), tol.Value)
					}
				}
				optC.Step()
				optG.Step()
				for i := range pc {
					agree(t, fmt.Sprintf("step %d: parameter %d %v after the step", step, i, pc[i].Shape()), pg[i], pc[i], tol.Value)
				}
			}
			if train != nil {
				accC := nn.Accuracy(c.Forward(cpu, g, x), y, nil)
				accG := nn.Accuracy(c.Forward(gpu, g, xd), y, nil)
				if math.Abs(accC-accG) > 0.01 {
					t.Errorf("accuracy %g on the device, %g on the CPU", accG, accC)
				}
			}
			// Evaluation mode: BatchNorm's running statistics, moved on
			// the device, must agree too.
			cpu.SetTraining(false)
			gpu.SetTraining(false)
			agree(t, "evaluation output", c.Forward(gpu, g, xd), c.Forward(cpu, g, x), tol.Value)
		})
	}
}

// CheckOptimizerMovesBack checks that the state of SGD (momentum) and
// Adam (moments) follows a model moved to dev and back: steps on the CPU,
// dev and the CPU again end where CPU-only steps do.
func CheckOptimizerMovesBack(t *testing.T, dev tensor.Backend, tol float64) {
	x := randn(1, 6, 5)
	y := []int{0, 1, 2, 0, 1, 2}
	for _, name := range []string{"SGD", "Adam"} {
		subtest(t, name, func(t *testing.T) {
			run := func(dev tensor.Backend) *tensor.Tensor {
				nn.Seed(4)
				m := nn.NewMLP(5, 7, 3)
				var opt nn.Optimizer = nn.NewSGD(m.Params(), 0.1, 0.9, 1e-3)
				if name == "Adam" {
					opt = nn.NewAdam(m.Params(), 0.01, 1e-3)
				}
				for step := range 4 {
					d := tensor.Backend(nil)
					if step == 1 || step == 2 {
						d = dev
					}
					nn.To(m, d)
					opt.ZeroGrad()
					nn.CrossEntropy(m.Forward(x.To(d)), y, nil).Backward()
					opt.Step()
				}
				return m.Params()[0]
			}
			want, got := run(nil), run(dev)
			if e := RelErr(got, want); e > tol {
				t.Errorf("after steps on the CPU, the device and the CPU again: weight error %.3g against CPU-only steps", e)
			}
		})
	}
}
