package devicetest

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// halfModel is a model made of the layers a notebook stacks: Linear,
// ReLU, GCNConv, ReLU with dropout, GCNConv; or with attention, GATConv
// (two heads), ReLU and GATv2Conv.
type halfModel struct {
	lin    *nn.Linear
	c1, c2 *nn.GCNConv
	gat    *nn.GATConv
	gatv2  *nn.GATv2Conv
	p      float32
}

func newHalfModel(in, hidden, out int, p float32) *halfModel {
	return &halfModel{lin: nn.NewLinear(in, hidden), c1: nn.NewGCNConv(hidden, hidden), c2: nn.NewGCNConv(hidden, out), p: p}
}

func newHalfAttention(in, hidden, out int) *halfModel {
	return &halfModel{gat: nn.NewGATConv(in, hidden/2, 2, true, 0), gatv2: nn.NewGATv2Conv(hidden, out, 1, true, 0)}
}

func (m *halfModel) modules() []nn.Module {
	if m.gat != nil {
		return []nn.Module{m.gat, m.gatv2}
	}
	return []nn.Module{m.lin, m.c1, m.c2}
}

func (m *halfModel) params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, l := range m.modules() {
		ps = append(ps, l.Params()...)
	}
	return ps
}

func (m *halfModel) to(dev tensor.Backend) {
	for _, l := range m.modules() {
		nn.To(l, dev)
	}
}

// forward returns the logits and the intermediate activations, named.
func (m *halfModel) forward(g *graph.Graph, x *tensor.Tensor, rng *tensor.RNG) (*tensor.Tensor, map[string]*tensor.Tensor) {
	acts := map[string]*tensor.Tensor{}
	if m.gat != nil {
		h := m.gat.Forward(g, x)
		acts["GATConv"] = h
		h = h.ReLU()
		acts["ReLU"] = h
		out := m.gatv2.Forward(g, h)
		acts["GATv2Conv (logits)"] = out
		return out, acts
	}
	h := m.lin.Forward(x)
	acts["Linear"] = h
	h = h.ReLU()
	acts["ReLU"] = h
	h = m.c1.Forward(g, h)
	acts["GCNConv 1"] = h
	h = h.ReLU()
	if m.p > 0 {
		h = h.Dropout(m.p, rng, true)
		acts["Dropout"] = h
	}
	out := m.c2.Forward(g, h)
	acts["GCNConv 2 (logits)"] = out
	return out, acts
}

// CheckHalfStorage checks Autocast's 16-bit storage on dev for each of
// formats (the formats dev stores in 16-bit memory, tensor.HalfStorer):
// a model of Linear, ReLU, GCNConv, ReLU and GCNConv, and one of
// GATConv, ReLU and GATv2Conv, run under tensor.Autocast store every activation in the format (Tensor.DType)
// and its values are values of the format; the logits, the loss and
// every parameter's gradient agree with the CPU's emulation within tol
// (RelErr); the parameters' gradients are float32; GAT's attention
// logits (HeadDot) are float32; and the device memory
// the recorded forward pass of a wider model holds (its activations,
// kept for the backward pass) is at most 0.6 of what the float32 pass
// holds, and that of the attention model less than in float32 (no float32
// copy of a 16-bit input kept for the backward pass). dev must report its
// memory (tensor.MemoryReporter).
func CheckHalfStorage(t *testing.T, dev tensor.Backend, tol float64, formats ...tensor.DType) {
	const n, feats, hidden, classes = 600, 32, 48, 8
	g, xs, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{200, 200, 200}, PIn: 0.04, POut: 0.005, Features: feats, Signal: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var train []int
	for v := 0; v < n; v += 2 {
		train = append(train, v)
	}
	x := tensor.Wrap(xs, n, feats)
	xd := x.To(dev)
	for _, dt := range formats {
		for _, build := range []struct {
			name string
			f    func() *halfModel
		}{
			{"GCN", func() *halfModel { return newHalfModel(feats, hidden, classes, 0) }},
			{"GAT", func() *halfModel { return newHalfAttention(feats, hidden, classes) }},
		} {
			t.Run(build.name+" "+dt.String(), func(t *testing.T) {
				nn.Seed(21)
				cpu := build.f()
				nn.Seed(21)
				gpu := build.f()
				gpu.to(dev)
				var lc, lg, oc, og *tensor.Tensor
				var acts map[string]*tensor.Tensor
				// The attention logits GAT's softmax reads (HeadDot on
				// a device) stay float32, as the CPU's SumAxis does.
				var logits []tensor.OpEvent
				restore := backend.SetOpHook(func(e tensor.OpEvent) {
					if e.Name == "HeadDot" && !e.Backward {
						logits = append(logits, e)
					}
				})
				tensor.Autocast(dt, func() {
					oc, _ = cpu.forward(g, x, nil)
					lc = nn.CrossEntropy(oc, y, train)
					og, acts = gpu.forward(g, xd, nil)
					lg = nn.CrossEntropy(og, y, train)
				})
				restore()
				if cpu.gat != nil && len(logits) == 0 {
					t.Errorf("GATConv on %v recorded no HeadDot op", dev)
				}
				for _, e := range logits {
					if e.DType != tensor.Float32 || e.Out.DType() != tensor.Float32 {
						t.Errorf("GAT attention logits (HeadDot) under Autocast(%v) stored in %v (event %v), want float32", dt, e.Out.DType(), e.DType)
					}
				}
				for name, a := range acts {
					if got := a.DType(); got != dt {
						t.Errorf("%s under Autocast(%v) is stored in %v", name, dt, got)
						continue
					}
					for i, v := range a.CPU().Data() {
						if dt.Round(v) != v {
							t.Errorf("%s: value %d = %v is not a %v value", name, i, v, dt)
							break
						}
					}
				}
				if got := lg.DType(); got != tensor.Float32 {
					t.Errorf("the loss is stored in %v, want float32", got)
				}
				agree(t, "logits", og, oc, tol)
				lc.Backward()
				lg.Backward()
				if d := float64(lg.Item() - lc.Item()); d > tol || -d > tol {
					t.Errorf("loss %g on the device, %g on the CPU", lg.Item(), lc.Item())
				}
				pc, pg := cpu.params(), gpu.params()
				for i := range pc {
					what := fmt.Sprintf("gradient of parameter %d %v", i, pc[i].Shape())
					if gr := pg[i].Grad(); gr != nil && gr.DType() != tensor.Float32 {
						t.Errorf("%s is stored in %v, want float32", what, gr.DType())
					}
					agree(t, what, pg[i].Grad(), pc[i].Grad(), tol)
				}
			})
		}
		// Wide enough that the activations outweigh the parameters and
		// the graph (uploaded by the first pass).
		const wide = 256
		held := func(t *testing.T, m *halfModel, cast tensor.DType, rng *tensor.RNG) int64 {
			before := liveBytes(t, dev)
			var out *tensor.Tensor
			tensor.Autocast(cast, func() { out, _ = m.forward(g, xd, rng) })
			after := liveBytes(t, dev)
			runtime.KeepAlive(out)
			return after - before
		}
		t.Run("memory "+dt.String(), func(t *testing.T) {
			nn.Seed(22)
			m := newHalfModel(feats, wide, wide, 0.5)
			m.to(dev)
			rng := tensor.NewRNG(1)
			held(t, m, tensor.Float32, rng) // uploads the graph
			f32 := held(t, m, tensor.Float32, rng)
			half := held(t, m, dt, rng)
			t.Logf("recorded forward pass holds %d bytes in float32, %d in %v (%.2fx)", f32, half, dt, float64(half)/float64(f32))
			if f32 <= 0 || float64(half) > 0.6*float64(f32) {
				t.Errorf("recorded forward pass holds %d bytes under Autocast(%v), %d in float32: want at most 0.6x", half, dt, f32)
			}
		})
		// The attention layers' ops read float32 where they have no
		// 16-bit kernels; the copies they widen must not outlive the
		// forward pass (they are widened again for the backward), so
		// the recorded pass holds less than in float32.
		t.Run("attention memory "+dt.String(), func(t *testing.T) {
			nn.Seed(23)
			m := newHalfAttention(feats, wide, wide)
			m.to(dev)
			held(t, m, tensor.Float32, nil)
			f32 := held(t, m, tensor.Float32, nil)
			half := held(t, m, dt, nil)
			t.Logf("recorded GAT + GATv2 forward pass holds %d bytes in float32, %d in %v (%.2fx)", f32, half, dt, float64(half)/float64(f32))
			if f32 <= 0 || half >= f32 {
				t.Errorf("recorded GAT + GATv2 forward pass holds %d bytes under Autocast(%v), %d in float32: want less", half, dt, f32)
			}
		})
	}
}

// liveBytes returns the device memory in use once the garbage collector
// has finalised what is unreachable.
func liveBytes(t *testing.T, dev tensor.Backend) int64 {
	t.Helper()
	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // finalizers run on their own goroutine
	m, err := tensor.MemoryOf(dev)
	if err != nil {
		t.Fatalf("MemoryOf(%v): %v", dev, err)
	}
	return m.InUse
}
