package nn_test

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

// These tests run ops, layers and training steps on the CPU and on
// fakeDev (fakedev_test.go) and compare: they check the device dispatch
// of gnnlib/tensor and gnnlib/nn without a GPU. gnnlib/cuda's
// TestOpsAgree and TestTrainingStepsAgree do the same on the GPU.

// relErr returns max|got-want| / (1 + max|want|); got may live on a
// device.
func relErr(got, want *tensor.Tensor) float64 {
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
		if e := relErr(got, want); e > tol {
			t.Errorf("%s: error %.3g against the CPU, want <= %g", what, e, tol)
		}
	}
}

// blockGraph is a sampled block: 4 destinations, which are the first 4 of
// 10 source rows, some sources with several out-edges, destination 3
// without in-edges.
func blockGraph(t testing.TB) *graph.Graph {
	t.Helper()
	src := []int{4, 5, 0, 6, 7, 1, 8, 9, 4, 2}
	dst := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}
	g, err := graph.NewBipartite(10, 4, src, dst, nil)
	if err != nil {
		t.Fatalf("NewBipartite: %v", err)
	}
	return g
}

// devCase is an op or a layer: f maps inputs (all on dev) to an output and
// returns the parameters whose gradients are compared too (nil for none).
type devCase struct {
	name   string
	inputs []*tensor.Tensor
	f      func(x []*tensor.Tensor, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor)
}

// op is a devCase without parameters.
func op(name string, f func(x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) devCase {
	return devCase{name, inputs, func(x []*tensor.Tensor, _ tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) { return f(x), nil }}
}

// layer is a devCase of a layer built (seeded) by build and moved to dev.
func layer(name string, build func() nn.Module, fwd func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor, inputs ...*tensor.Tensor) devCase {
	return devCase{name, inputs, func(x []*tensor.Tensor, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
		nn.Seed(3)
		m := build()
		nn.To(m, dev)
		return fwd(m, x), m.Params()
	}}
}

func randn(seed int64, shape ...int) *tensor.Tensor { return tensor.Randn(seed, shape...) }

// positive returns values in [0.5, 1.5).
func positive(seed int64, shape ...int) *tensor.Tensor {
	return tensor.Rand(seed, shape...).AddScalar(0.5)
}

// runDevCase runs c on dev (nil: the CPU) and returns the output and the
// gradients of sum(out·w), w fixed weights, for the inputs and parameters.
func runDevCase(c devCase, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
	xs := make([]*tensor.Tensor, len(c.inputs))
	for i, x := range c.inputs {
		xs[i] = x.Clone().To(dev).SetRequiresGrad(true)
	}
	out, params := c.f(xs, dev)
	w := tensor.Rand(99, out.Shape()...).AddScalar(0.5).To(dev)
	out.Mul(w).Sum().Backward()
	var grads []*tensor.Tensor
	for _, x := range append(xs, params...) {
		grads = append(grads, x.Grad())
	}
	return out, grads
}

// checkDevCases runs each case on the CPU and on dev and compares.
func checkDevCases(t *testing.T, dev tensor.Backend, cases []devCase, tol float64) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantGrads := runDevCase(c, nil)
			gotOut, gotGrads := runDevCase(c, dev)
			agree(t, "output", gotOut, wantOut, tol)
			for i := range wantGrads {
				agree(t, fmt.Sprintf("gradient %d", i), gotGrads[i], wantGrads[i], tol)
			}
		})
	}
}

// deviceOpCases are the ops and layers whose device paths the fake device
// and the GPU tests check (gnnlib/cuda has its own copy with GPU shapes).
func deviceOpCases(t testing.TB) []devCase {
	g := smallGraph(t)
	blk := blockGraph(t)
	labels := []int{0, 2, 1, 4, 3, 2}
	fwdOn := func(g *graph.Graph) func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor {
		return func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor {
			return m.(interface {
				Forward(*graph.Graph, *tensor.Tensor) *tensor.Tensor
			}).Forward(g, x[0])
		}
	}
	fwd := func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.Layer).Forward(x[0]) }
	return []devCase{
		op("Softmax", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Softmax(-1) }, randn(1, 6, 5)),
		op("Softmax middle axis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Softmax(1) }, randn(1, 3, 4, 5)),
		op("LogSoftmax axis 0", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LogSoftmax(0) }, randn(1, 6, 5)),
		op("LogSoftmax", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LogSoftmax(1) }, randn(1, 6, 40)),
		op("SumAxis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].SumAxis(1, false) }, randn(1, 3, 4, 5)),
		op("SumAxis last", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].SumAxis(-1, true) }, randn(1, 6, 5)),
		op("MeanAxis", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MeanAxis(0, true) }, randn(1, 6, 5)),
		op("GELU", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].GELU() }, randn(1, 6, 5)),
		op("Sqrt", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sqrt() }, positive(1, 6, 5)),
		op("Abs", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Abs() }, randn(1, 6, 5)),
		op("Square", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Square() }, randn(1, 6, 5)),
		op("Pow", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Pow(3) }, randn(1, 6, 5)),
		op("Pow half", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Pow(0.5) }, positive(1, 6, 5)),
		op("Div", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 6, 5), positive(2, 6, 5)),
		op("Div by a row", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 6, 5), positive(2, 5)),
		op("Div by one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Div(x[1]) }, randn(1, 6, 5), positive(2, 1)),
		op("Mul by one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }, randn(1, 6, 5), randn(2, 1)),
		op("Add one value left", func(x []*tensor.Tensor) *tensor.Tensor { return x[1].Add(x[0]) }, randn(1, 6, 5), tensor.Scalar(0.7)),
		op("Sub one value", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sub(x[1]) }, randn(1, 6, 5), tensor.Scalar(0.7)),
		op("IndexSelect", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexSelect([]int{0, 3, 3, 5, 1}) }, randn(1, 6, 5)),
		op("IndexSelect 3-D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexSelect([]int{2, 0, 2}) }, randn(1, 3, 4, 2)),
		op("IndexAdd", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].IndexAdd([]int{5, 0, 5, 2}, x[1]) }, randn(1, 6, 5), randn(2, 4, 5)),
		op("ScatterAddRows", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.ScatterAddRows(x[0], []int{5, 0, 5, 2}, 7) }, randn(1, 4, 5)),
		op("Concat", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Concat(1, x[0], x[1], x[2]) }, randn(1, 3, 2, 4), randn(2, 3, 1, 4), randn(3, 3, 3, 4)),
		op("Concat axis 0", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Concat(0, x[0], x[1]) }, randn(1, 2, 5), randn(2, 4, 5)),
		op("Split", func(x []*tensor.Tensor) *tensor.Tensor {
			p := x[0].Split(1, 1, 3, 1)
			return tensor.Concat(1, p[2], p[0].MulScalar(2), p[1])
		}, randn(1, 3, 5, 2)),
		op("Narrow", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Narrow(1, 1, 2) }, randn(1, 3, 4, 5)),
		op("Narrow whole", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Narrow(0, 0, 6) }, randn(1, 6, 5)),
		op("MSE", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.MSE(x[0], x[1]).MulScalar(3) }, randn(1, 6, 5), randn(2, 6, 5)),
		op("BCEWithLogits", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.BCEWithLogits(x[0].MulScalar(4), x[1]) }, randn(1, 6, 5), tensor.Rand(2, 6, 5)),
		op("NLL", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.NLL(x[0].LogSoftmax(1), labels, nil) }, randn(1, 6, 5)),
		op("NLL rows", func(x []*tensor.Tensor) *tensor.Tensor {
			return tensor.NLL(x[0].LogSoftmax(1), labels, []int{1, 4, 4, 0}).MulScalar(2)
		}, randn(1, 6, 5)),
		op("Dropout off", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Dropout(0.5, tensor.NewRNG(1), false) }, randn(1, 6, 5)),
		op("MaxAggregate", func(x []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(g, x[0]) }, randn(1, 7, 5)),
		op("MaxAggregate block", func(x []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(blk, x[0]) }, randn(1, 10, 5)),
		layer("SAGEConv max", func() nn.Module { return nn.NewSAGEConv(5, 3, "max") }, fwdOn(g), randn(1, 7, 5)),
		layer("SAGEConv max block", func() nn.Module { return nn.NewSAGEConv(5, 3, "max") }, fwdOn(blk), randn(1, 10, 5)),
		layer("SAGEConv mean block", func() nn.Module { return nn.NewSAGEConv(5, 3, "mean") }, fwdOn(blk), randn(1, 10, 5)),
		layer("GINConv", func() nn.Module { return nn.NewGINConv(nn.NewMLP(5, 8, 3), 0.3, false) }, fwdOn(g), randn(1, 7, 5)),
		layer("GINConv trained eps", func() nn.Module { return nn.NewGINConv(nn.NewMLP(5, 8, 3), 0.3, true) }, fwdOn(g), randn(1, 7, 5)),
		layer("GINConv block", func() nn.Module { return nn.NewGINConv(nn.NewMLP(5, 8, 3), 0, false) }, fwdOn(blk), randn(1, 10, 5)),
		layer("GATConv mean heads", func() nn.Module { return nn.NewGATConv(5, 4, 2, false, 0) }, fwdOn(g), randn(1, 7, 5)),
		layer("GATv2Conv mean heads", func() nn.Module { return nn.NewGATv2Conv(5, 8, 2, false, 0) }, fwdOn(g), randn(1, 7, 5)),
		layer("BatchNorm1D", func() nn.Module { return nn.NewBatchNorm1D(5) }, fwd, randn(1, 6, 5)),
		layer("BatchNorm2D", func() nn.Module { return nn.NewBatchNorm2D(3) }, fwd, randn(1, 2, 3, 4, 4)),
		layer("BatchNorm1D eval", func() nn.Module {
			b := nn.NewBatchNorm1D(5)
			b.Forward(randn(7, 9, 5)) // running statistics from one batch
			b.Eval()
			return b
		}, fwd, randn(1, 6, 5)),
		layer("LayerNorm", func() nn.Module { return nn.NewLayerNorm(6) }, fwd, randn(1, 3, 4, 6)),
		layer("MLP", func() nn.Module { return nn.NewMLP(5, 8, 3) }, fwd, randn(1, 6, 5)),
		layer("GELU Softmax", func() nn.Module { return nn.NewSequential(nn.NewLinear(5, 4), nn.GELU(), nn.Softmax(1)) }, fwd, randn(1, 6, 5)),
		op("Transpose", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].T() }, randn(1, 6, 5)),
		op("Permute", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Permute(2, 0, 1) }, randn(1, 3, 4, 5)),
		op("Conv2D", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2D(x[0], x[1], x[2], 1, 2) },
			randn(1, 2, 3, 9, 8), randn(2, 4, 3, 5, 5), randn(3, 4)),
		op("Conv2D stride 2 no bias", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2D(x[0], x[1], nil, 2, 1) },
			randn(1, 2, 3, 9, 8), randn(2, 4, 3, 3, 2)),
		op("Conv2DReLU", func(x []*tensor.Tensor) *tensor.Tensor { return tensor.Conv2DReLU(x[0], x[1], x[2], 1, 0) },
			randn(1, 2, 3, 9, 8), randn(2, 4, 3, 3, 3), randn(3, 4)),
		op("MaxPool2D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MaxPool2D(2, 2) }, randn(1, 2, 3, 8, 7)),
		op("MaxPool2D overlapping", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MaxPool2D(3, 1) }, randn(1, 2, 3, 6, 7)),
		op("AvgPool2D", func(x []*tensor.Tensor) *tensor.Tensor { return x[0].AvgPool2D(3, 2) }, randn(1, 2, 3, 8, 7)),
		layer("LeNet5", func() nn.Module { return nn.NewLeNet5() }, fwd, randn(1, 3, 1, 28, 28)),
	}
}

func TestFakeDeviceOpsAgree(t *testing.T) {
	checkDevCases(t, &fakeDev{}, deviceOpCases(t), 1e-5)
}

func TestFakeDeviceArgMax(t *testing.T) {
	dev := &fakeDev{}
	x := randn(1, 6, 5, 3)
	for axis := -1; axis < 3; axis++ {
		if got, want := x.To(dev).ArgMax(axis), x.ArgMax(axis); !slices.Equal(got, want) {
			t.Errorf("ArgMax(%d) on the device = %v, want %v", axis, got, want)
		}
		if got, want := x.To(dev).ArgMin(axis), x.ArgMin(axis); !slices.Equal(got, want) {
			t.Errorf("ArgMin(%d) on the device = %v, want %v", axis, got, want)
		}
	}
	labels := []int{0, 1, 2, 0, 1, 2}
	if got, want := nn.Accuracy(x.Reshape(6, 15).To(dev), labels, nil), nn.Accuracy(x.Reshape(6, 15), labels, nil); got != want {
		t.Errorf("Accuracy on the device = %g, want %g", got, want)
	}
}

// TestFakeDeviceNotOnDevice checks that ops without a device version
// panic with a *tensor.DeviceError wrapping ErrNotOnDevice that names them.
func TestFakeDeviceNotOnDevice(t *testing.T) {
	dev := &fakeDev{}
	x := randn(1, 4, 5).To(dev)
	for _, c := range []struct {
		op string
		f  func()
	}{
		{"Clamp", func() { x.Clamp(0, 1) }},
		{"Max", func() { x.Max(1, false) }},
		{"Min", func() { x.Min(0, true) }},
		{"Div by a column", func() { x.Div(randn(2, 4, 1).To(dev)) }},
		{"batched MatMul", func() { x.Reshape(1, 4, 5).MatMul(randn(2, 1, 5, 2).To(dev)) }},
		{"Data", func() { x.Data() }},
	} {
		t.Run(c.op, func(t *testing.T) {
			defer func() {
				err, _ := recover().(error)
				var de *tensor.DeviceError
				if !errors.As(err, &de) || !errors.Is(err, tensor.ErrNotOnDevice) {
					t.Errorf("%s on the device panicked with %v, want a *tensor.DeviceError wrapping ErrNotOnDevice", c.op, err)
				}
			}()
			c.f()
		})
	}
}

// trainCase is a model trained for a few steps on the CPU and on a device.
type trainCase struct {
	name  string
	build func() nn.Module
	fwd   func(m nn.Module, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
	opt   func(ps []*tensor.Tensor) nn.Optimizer
	clip  float64 // ClipGradNorm's bound before each step; 0: none
}

// deviceTrainCases are the models whose training the fake device and the
// GPU tests compare with the CPU's: GraphSAGE's max aggregator, GIN (fixed
// and trained ε), an MLP with both norms, SGD with momentum and weight
// decay, and gradient clipping.
func deviceTrainCases() []trainCase {
	graphFwd := func(m nn.Module, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
		return m.(interface {
			Forward(*graph.Graph, *tensor.Tensor) *tensor.Tensor
		}).Forward(g, x)
	}
	adam := func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewAdam(ps, 0.01, 5e-4) }
	sgd := func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 5e-4) }
	return []trainCase{
		{"GraphSAGE max", func() nn.Module {
			m := nn.NewGraphSAGE(8, 16, 4, "max")
			m.Dropout = 0 // device masks differ from the CPU's
			return m
		}, graphFwd, adam, 0},
		{"GIN", func() nn.Module {
			m := nn.NewGIN(8, 16, 4, 2)
			m.Dropout = 0
			return m
		}, graphFwd, sgd, 0},
		{"GINConv trained eps", func() nn.Module {
			return nn.NewGINConv(nn.NewMLP(8, 16, 4), 0.1, true)
		}, graphFwd, sgd, 1},
		{"MLP BatchNorm LayerNorm SGD clip", func() nn.Module {
			return nn.NewSequential(nn.NewLinear(8, 16), nn.NewBatchNorm1D(16), nn.ReLU(),
				nn.NewLinear(16, 12), nn.NewLayerNorm(12), nn.GELU(), nn.NewLinear(12, 4))
		}, func(m nn.Module, _ *graph.Graph, x *tensor.Tensor) *tensor.Tensor { return m.(nn.Layer).Forward(x) }, sgd, 0.5},
	}
}

// checkTraining trains each case for steps steps on the CPU and, from the
// same parameters, on dev, comparing losses, gradients, gradient norms,
// parameters, and the evaluation-mode output at the end.
func checkTraining(t *testing.T, dev tensor.Backend, cases []trainCase, g *graph.Graph, x *tensor.Tensor, y, train []int, steps int, tol float64) {
	xd := x.To(dev)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nn.Seed(11)
			cpu := c.build()
			nn.Seed(11)
			gpu := c.build()
			nn.To(gpu, dev)
			optC, optG := c.opt(cpu.Params()), c.opt(gpu.Params())
			pc, pg := cpu.Params(), gpu.Params()
			for step := 0; step < steps; step++ {
				optC.ZeroGrad()
				optG.ZeroGrad()
				lc := nn.CrossEntropy(c.fwd(cpu, g, x), y, train)
				lg := nn.CrossEntropy(c.fwd(gpu, g, xd), y, train)
				lc.Backward()
				lg.Backward()
				agree(t, fmt.Sprintf("step %d: loss", step), lg, lc, tol)
				for i := range pc {
					agree(t, fmt.Sprintf("step %d: gradient of parameter %d %v", step, i, pc[i].Shape()), pg[i].Grad(), pc[i].Grad(), tol)
				}
				if c.clip > 0 {
					nc, ng := nn.ClipGradNorm(pc, c.clip), nn.ClipGradNorm(pg, c.clip)
					if math.Abs(nc-ng) > tol*(1+nc) {
						t.Errorf("step %d: ClipGradNorm = %g on the device, %g on the CPU", step, ng, nc)
					}
					if nc <= c.clip {
						t.Logf("step %d: norm %g does not clip", step, nc)
					}
				}
				optC.Step()
				optG.Step()
				for i := range pc {
					agree(t, fmt.Sprintf("step %d: parameter %d %v", step, i, pc[i].Shape()), pg[i], pc[i], tol)
				}
			}
			cpu.SetTraining(false)
			gpu.SetTraining(false)
			agree(t, "evaluation output", c.fwd(gpu, g, xd), c.fwd(cpu, g, x), tol)
		})
	}
}

func TestFakeDeviceTrainingAgrees(t *testing.T) {
	g, xs, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{30, 30}, PIn: 0.2, POut: 0.02, Features: 8, Signal: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = (y[i]*3 + i) % 4
	}
	train := []int{0, 3, 5, 9, 12, 20, 33, 41, 47, 58}
	checkTraining(t, &fakeDev{}, deviceTrainCases(), g, tensor.Wrap(xs, 60, 8), y, train, 3, 1e-5)
}

func TestFakeDeviceLeNetTrainingAgrees(t *testing.T) {
	lenet := trainCase{"LeNet-5", func() nn.Module { return nn.NewLeNet5() },
		func(m nn.Module, _ *graph.Graph, x *tensor.Tensor) *tensor.Tensor { return m.(nn.Layer).Forward(x) },
		func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 0) }, 0}
	checkTraining(t, &fakeDev{}, []trainCase{lenet}, nil, tensor.Randn(5, 8, 1, 28, 28), []int{0, 1, 2, 3, 4, 5, 6, 7}, nil, 2, 1e-5)
}

// TestFakeDeviceOptimizerMovesBack checks that the state of SGD
// (momentum) and Adam (moments) follows a model moved to a device and
// back.
func TestFakeDeviceOptimizerMovesBack(t *testing.T) {
	for _, name := range []string{"SGD", "Adam"} {
		t.Run(name, func(t *testing.T) { checkOptimizerMovesBack(t, name) })
	}
}

func checkOptimizerMovesBack(t *testing.T, name string) {
	x := randn(1, 6, 5)
	y := []int{0, 1, 2, 0, 1, 2}
	run := func(dev tensor.Backend) *tensor.Tensor {
		nn.Seed(4)
		m := nn.NewMLP(5, 7, 3)
		var opt nn.Optimizer = nn.NewSGD(m.Params(), 0.1, 0.9, 1e-3)
		if name == "Adam" {
			opt = nn.NewAdam(m.Params(), 0.01, 1e-3)
		}
		for step := 0; step < 4; step++ {
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
	want, got := run(nil), run(&fakeDev{})
	if e := relErr(got, want); e > 1e-5 {
		t.Errorf("after steps on the CPU, the device and the CPU again: weight error %.3g against CPU-only steps", e)
	}
}
