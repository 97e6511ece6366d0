package cuda

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The device must offer everything gnnlib/nn's layers ask of a backend.
var _ nn.DeviceOps = (*Device)(nil)

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
	if err != nil || err2 != nil || be != tensor.Backend(d) {
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

// TestOpsAgree runs each op the tensor API dispatches to the device on
// the CPU and on the device, with the same inputs, and compares the
// outputs and the gradients of sum(op(inputs)) with respect to each input.
func TestOpsAgree(t *testing.T) {
	d := defaultOrSkip(t)
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
	cases := []struct {
		name   string
		inputs []*tensor.Tensor
		f      func(x []*tensor.Tensor) *tensor.Tensor
	}{
		{"MatMul", []*tensor.Tensor{randn(1, 70, 33), randn(2, 33, 130)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MatMul(x[1]) }},
		{"Add", []*tensor.Tensor{randn(1, 20, 9), randn(2, 20, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{"Add bias", []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{"Add bias left", []*tensor.Tensor{randn(1, 1, 9), randn(2, 20, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Add(x[1]) }},
		{"Sub bias", []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sub(x[1]) }},
		{"Mul", []*tensor.Tensor{randn(1, 20, 9), randn(2, 20, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }},
		{"Mul bias", []*tensor.Tensor{randn(1, 20, 9), randn(2, 9)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]) }},
		{"AddScalar", []*tensor.Tensor{randn(1, 5, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].AddScalar(3) }},
		{"MulScalar", []*tensor.Tensor{randn(1, 5, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].MulScalar(-2.5) }},
		{"Neg", []*tensor.Tensor{randn(1, 5, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Neg() }},
		{"ReLU", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].ReLU() }},
		{"LeakyReLU", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].LeakyReLU(0.2) }},
		{"ELU", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].ELU(1) }},
		{"Sigmoid", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sigmoid() }},
		{"Tanh", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Tanh() }},
		{"Exp", []*tensor.Tensor{randn(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Exp() }},
		{"Log", []*tensor.Tensor{pos(1, 50, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Log() }},
		{"Sum", []*tensor.Tensor{randn(1, 1000, 77)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Sum() }},
		{"Mean", []*tensor.Tensor{randn(1, 1000, 77)}, func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mean() }},
		{"Reshape", []*tensor.Tensor{randn(1, 6, 8)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return x[0].Reshape(4, -1).Mul(randn(5, 4, 12).To(x[0].Device()))
		}},
		{"CrossEntropy", []*tensor.Tensor{randn(1, 50, 10)}, func(x []*tensor.Tensor) *tensor.Tensor { return tensor.CrossEntropy(x[0], labels, nil) }},
		{"CrossEntropy rows", []*tensor.Tensor{randn(1, 50, 10)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return tensor.CrossEntropy(x[0].MulScalar(3), labels, rows).MulScalar(2)
		}},
		{"SpMM weighted", []*tensor.Tensor{randn(1, 300, 24)}, func(x []*tensor.Tensor) *tensor.Tensor { return nn.SpMM(g, x[0]) }},
		{"SpMM width 7", []*tensor.Tensor{randn(1, 300, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return nn.SpMM(g, x[0]) }},
		{"SumAggregate", []*tensor.Tensor{randn(1, 300, 16)}, func(x []*tensor.Tensor) *tensor.Tensor { return nn.SumAggregate(g, x[0]) }},
		{"GATv2Attention 1x16", []*tensor.Tensor{randn(1, 300, 16), randn(2, 300, 16), randn(3, 1, 16)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATv2Attention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true)
		}},
		{"MeanAggregate", []*tensor.Tensor{randn(1, 300, 16)}, func(x []*tensor.Tensor) *tensor.Tensor { return nn.MeanAggregate(g, x[0]) }},
		{"MeanAggregate width 7", []*tensor.Tensor{randn(1, 300, 7)}, func(x []*tensor.Tensor) *tensor.Tensor { return nn.MeanAggregate(g, x[0]) }},
		{"GATAttention 1x16", []*tensor.Tensor{randn(1, 300, 16), randn(2, 300, 1), randn(3, 300, 1)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATAttention(loops, x[0], x[1], x[2], 1, 0.2, 0, nil, true)
		}},
		{"GATAttention 4x40", []*tensor.Tensor{randn(1, 300, 160), randn(2, 300, 4), randn(3, 300, 4)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATAttention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true)
		}},
		{"GATConv 2x8", []*tensor.Tensor{randn(1, 300, 12)}, func(x []*tensor.Tensor) *tensor.Tensor {
			nn.Seed(3)
			l := nn.NewGATConv(12, 8, 2, true, 0)
			nn.To(l, x[0].Device())
			return l.Forward(raw, x[0])
		}},
		{"SAGEConv mean", []*tensor.Tensor{randn(1, 300, 12)}, func(x []*tensor.Tensor) *tensor.Tensor {
			nn.Seed(3)
			l := nn.NewSAGEConv(12, 20, "mean")
			nn.To(l, x[0].Device())
			return l.Forward(g, x[0])
		}},
		{"GATv2Attention 4x8", []*tensor.Tensor{randn(1, 300, 32), randn(2, 300, 32), randn(3, 4, 8)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATv2Attention(loops, x[0], x[1], x[2], 4, 0.2, 0, nil, true)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
				xs := make([]*tensor.Tensor, len(c.inputs))
				for i, x := range c.inputs {
					xs[i] = x.Clone().To(dev).SetRequiresGrad(true)
				}
				out := c.f(xs)
				// Weight the outputs so that every element's gradient differs.
				w := tensor.Rand(99, out.Shape()...).AddScalar(0.5).To(dev)
				out.Mul(w).Sum().Backward()
				grads := make([]*tensor.Tensor, len(xs))
				for i, x := range xs {
					grads[i] = x.Grad()
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
	d := defaultOrSkip(t)
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

// TestNotOnDevice checks that ops without a device version fail with a
// *tensor.DeviceError that names them, and never copy to the CPU.
func TestNotOnDevice(t *testing.T) {
	d := defaultOrSkip(t)
	x := randn(1, 10, 4).To(d)
	g := testGraph(t, 10, 20, false)
	cases := []struct {
		op string
		f  func()
	}{
		{"Clamp", func() { x.Clamp(-1, 1) }},
		{"Max", func() { x.Max(1, false) }},
		{"Transpose", func() { x.T() }},
		{"Data", func() { x.Data() }},
		{"Div by a column", func() { x.Div(randn(2, 10, 1).To(d)) }},
		{"GATv2Attention with attention dropout", func() {
			nn.GATv2Attention(g, randn(1, 10, 8).To(d), randn(2, 10, 8).To(d), randn(3, 1, 8).To(d), 1, 0.2, 0.5, tensor.NewRNG(1), true)
		}},
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

// TestTrainingStepsAgree trains a GCN and a GATv2 network for a few Adam
// steps on the CPU and, from the same initial parameters, on the device
// (moved with nn.To), and compares losses, gradients and parameters.
func TestTrainingStepsAgree(t *testing.T) {
	d := defaultOrSkip(t)
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
	models := []struct {
		name  string
		build func() trainable
	}{
		{"GCN", func() trainable { return newGCN(feats, 16, classes, 3, 0) }},
		{"GATv2", func() trainable { return newGAT(feats, 16, 2, classes, 2, 0) }},
		{"GAT", func() trainable {
			return &stack{layers: []trainable{nn.NewGATConv(feats, 16, 2, true, 0), nn.NewGATConv(32, classes, 1, true, 0)}}
		}},
		{"SAGE", func() trainable {
			return &stack{layers: []trainable{nn.NewSAGEConv(feats, 16, "mean"), nn.NewSAGEConv(16, classes, "mean")}}
		}},
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
			optC := nn.NewAdam(cpu.Params(), 0.01, 5e-4)
			optG := nn.NewAdam(gpu.Params(), 0.01, 5e-4)
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
				optC.Step()
				optG.Step()
				for i := range pc {
					if e := maxErr(t, "param", pg[i], pc[i]); e > 1e-3 {
						t.Errorf("step %d: parameter %d %v after Adam: error %.3g", step, i, pc[i].Shape(), e)
					}
				}
			}
			accC := nn.Accuracy(cpu.Forward(g, x), y, nil)
			accG := nn.Accuracy(gpu.Forward(g, xd), y, nil)
			if math.Abs(accC-accG) > 0.01 {
				t.Errorf("accuracy %g on the device, %g on the CPU", accG, accC)
			}
		})
	}
}

// BenchmarkTensorAPIEpoch times full-batch training epochs (forward,
// backward, Adam) written with gnnlib/nn's layers on device tensors, on
// the ogbn-arxiv-sized random graph of BENCHMARKS.md (169,343 nodes,
// 2.33M edges, 128 features, 3 layers of 256, 40 classes; GATv2 with one
// head and a 64-wide output layer, as gnnbench), to compare with
// gnnbench's hand-written epochs.
func BenchmarkTensorAPIEpoch(b *testing.B) {
	d := defaultOrSkip(b)
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
