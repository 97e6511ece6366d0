package cuda

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The device must offer everything gnnlib/nn's layers ask of a backend.
var (
	_ tbackend.GraphBackend   = (*backend)(nil)
	_ tbackend.TransformerOps = (*backend)(nil)
)

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

// bf16OrSkip is defaultOrSkip for a device with the bfloat16 kernels
// (sm_80 and later), skipping on others.
func bf16OrSkip(tb testing.TB) *Device {
	tb.Helper()
	d := defaultOrSkip(tb)
	if !d.hasBF16() {
		tb.Skipf("%s has no bfloat16 kernels", d.desc)
	}
	return d
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

// TestDeviceSuite runs gnnlib/devicetest's suite on the GPU: every op and
// layer the tensor API and gnnlib/nn dispatch to the device against the
// CPU (outputs and gradients), the shape sweep of the attention layers
// (fused kernels where they take the shape, the composed path otherwise),
// the arg-extrema, the ops the device lacks, and training steps of the
// GNN models, an MLP with both norms and LeNet-5. gnnlib/nn runs the same
// suite on devicetest.Fake.
func TestDeviceSuite(t *testing.T) {
	d := defaultOrSkip(t).be
	devicetest.Run(t, d, devicetest.Tolerance{Op: 2e-4, Loss: 1e-4, Value: 1e-3})
}

// TestFusedAttentionRefusal checks that the fused attention kernels refuse
// the shapes they do not take (heads over 1024 channels, GATv2 on a
// sampled block) with an error wrapping tensor.ErrNotOnDevice that says
// why (gnnlib/nn then composes the op), and that the layer runs anyway.
func TestFusedAttentionRefusal(t *testing.T) {
	d := defaultOrSkip(t).be
	g := testGraph(t, 10, 20, false).AddSelfLoops()
	const c = 1028
	for _, tc := range []struct {
		name, why string
		call      func() error
	}{
		{"GATv2Attention", "1028 channels", func() error {
			_, _, err := d.GATv2Attention(g, randn(1, 10, c).To(d), randn(2, 10, c).To(d), randn(3, 1, c).To(d), 1, 0.2, 0, 0)
			return err
		}},
		{"GATAttention", "1028", func() error {
			_, _, err := d.GATAttention(g, randn(1, 10, c).To(d), randn(2, 10, 1).To(d), randn(3, 10, 1).To(d), 1, 0.2, 0, 0)
			return err
		}},
	} {
		err := tc.call()
		if !errors.Is(err, tensor.ErrNotOnDevice) {
			t.Errorf("%s with %d channels: err = %v, want one wrapping tensor.ErrNotOnDevice", tc.name, c, err)
			continue
		}
		if msg := (&tensor.DeviceError{Op: tc.name, Device: d.String(), Err: err}).Error(); !strings.Contains(msg, tc.why) {
			t.Errorf("DeviceError text %q does not name the kernel's reason (%q)", msg, tc.why)
		}
	}
	out := nn.GATv2Attention(g, randn(1, 10, c).To(d), randn(2, 10, c).To(d), randn(3, 1, c).To(d), 1, 0.2, 0, nil, true)
	want := nn.GATv2Attention(g, randn(1, 10, c), randn(2, 10, c), randn(3, 1, c), 1, 0.2, 0, nil, true)
	if e := devicetest.RelErr(out, want); e > 2e-4 {
		t.Errorf("composed GATv2Attention with %d channels: error %.3g against the CPU", c, e)
	}
}

func randn(seed int64, shape ...int) *tensor.Tensor { return tensor.Randn(seed, shape...) }

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
		build func() nn.GraphLayer
	}{
		{"GCN", func() nn.GraphLayer { return devicetest.GCN(feats, hidden, classes, 3, 0.5) }},
		{"GATv2", func() nn.GraphLayer { return devicetest.GATv2(feats, hidden, 1, 64, 3, 0.5) }},
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
