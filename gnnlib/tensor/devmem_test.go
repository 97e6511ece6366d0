package tensor_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

func TestDeviceErrorKeepsCause(t *testing.T) {
	cause := fmt.Errorf("gnnlib/cuda: GATv2Attention with 12 channels per head (the fused kernel takes 8, 16): %w", tensor.ErrNotOnDevice)
	tests := []struct {
		err  error
		want string
	}{
		{tensor.ErrNotOnDevice, "tensor: GATv2Attention is not available on cuda:0 yet; move its operands to the CPU with x.CPU() first"},
		{cause, "tensor: GATv2Attention is not available on cuda:0 yet (gnnlib/cuda: GATv2Attention with 12 channels per head (the fused kernel takes 8, 16)); move its operands to the CPU with x.CPU() first"},
		{errors.New("out of memory"), "tensor: GATv2Attention on cuda:0: out of memory"},
	}
	for _, tt := range tests {
		e := &tensor.DeviceError{Op: "GATv2Attention", Device: "cuda:0", Err: tt.err}
		if got := e.Error(); got != tt.want {
			t.Errorf("DeviceError{Err: %v}.Error() = %q, want %q", tt.err, got, tt.want)
		}
		if !errors.Is(e, tt.err) {
			t.Errorf("errors.Is(DeviceError{Err: %v}, its cause) = false, want true", tt.err)
		}
	}
}

// TestBackwardFreesSpentActivations checks on devicetest's Fake ledger
// that a backward pass lets an activation go once the backward functions
// that read it have run: at the last op of the pass (a probe at the
// bottom of three MatMul-ReLU layers), the device holds the input, the
// weights with their gradients and the probe's gradient, and none of the
// seven N×F activations (the probe's output, three products, three
// ReLUs), with tensor.ReleaseSpentActivations on. With it off, the
// releaser's protected set, keyed by Storage, keeps the four of them
// still alive when the pass started (the ReLUs' outputs and the probe's,
// which backward functions read) until it ends. The weights' gradients equal
// the CPU's.
func TestBackwardFreesSpentActivations(t *testing.T) {
	defer func(on bool) { tensor.ReleaseSpentActivations = on }(tensor.ReleaseSpentActivations)
	tensor.ReleaseSpentActivations = true
	const n, f = 300, 32
	dev := &devicetest.Fake{}
	xc := tensor.Randn(1, n, f)
	var wc, wd []*tensor.Tensor
	for i := range 3 {
		w := tensor.Randn(int64(2+i), f, f)
		wc = append(wc, w.SetRequiresGrad(true))
		wd = append(wd, w.Detach().To(dev).SetRequiresGrad(true))
	}
	var live int64 = -1
	probe := func(x *tensor.Tensor) *tensor.Tensor {
		if x.Storage() == nil {
			return x
		}
		out := x.Detach().Clone()
		return tensor.NewOp("probe", out, []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
			runtime.GC()
			live = dev.MemStats().Live
			return []*tensor.Tensor{nil}
		})
	}
	// loss builds the forward pass in a frame of its own, so that only
	// the tape refers to the activations.
	loss := func(x *tensor.Tensor, ws []*tensor.Tensor) *tensor.Tensor {
		h := probe(x.SetRequiresGrad(true))
		for _, w := range ws {
			h = h.MatMul(w).ReLU()
		}
		return h.Sum()
	}
	xd := xc.To(dev)
	l := loss(xd, wd)
	dev.ResetPeak()
	l.Backward()
	loss(xc, wc).Backward()
	if live < 0 {
		t.Fatal("the probe's backward function did not run")
	}
	// x, the three weights and their gradients, the probe's incoming
	// gradient, and the seed (one value); not the probe's output, which
	// only the first MatMul's backward function read.
	want := int64(4 * (n*f + 3*2*f*f + n*f + 1))
	if live != want {
		t.Errorf("live at the last backward op = %d bytes, want %d (x, the weights, their gradients, one N×F gradient, the seed): %d N×F tensors more",
			live, want, (live-want)/(4*n*f))
	}
	for i := range wc {
		got, want := wd[i].Grad().CPU().Data(), wc[i].Grad().Data()
		if !slices.Equal(got, want) {
			t.Errorf("weight %d: the device's gradient differs from the CPU's", i)
		}
	}
	runtime.KeepAlive(xd)
}

// TestCrossEntropyHandsOverGradient checks that loss.Backward() through
// CrossEntropy on a device hands the gradient its forward pass made to
// the pass instead of scaling it by the seed 1 into a copy (one N×C
// block and one pass less: gnnlib/cuda's TestGCNEpochLaunches lists one
// scale_op fewer), with the gradients of BackwardWith(1) (which scales):
// the same values, and one allocation more for the scaled copy.
func TestCrossEntropyHandsOverGradient(t *testing.T) {
	const n, c = 200, 7
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % c
	}
	dev := &devicetest.Fake{}
	run := func(seeded bool) ([]float32, int) {
		w := tensor.Randn(3, n, c).To(dev).SetRequiresGrad(true)
		loss := tensor.CrossEntropy(w.Mul(w), labels, nil)
		dev.ResetPeak()
		if seeded {
			loss.BackwardWith(tensor.OnesLike(loss))
		} else {
			loss.Backward()
		}
		allocs := dev.MemStats().Allocs
		return w.Grad().CPU().Data(), allocs
	}
	g1, a1 := run(false)
	g2, a2 := run(true)
	if !slices.Equal(g1, g2) {
		t.Error("Backward's gradients differ from BackwardWith(1)'s")
	}
	if a1 >= a2 {
		t.Errorf("Backward allocated %d device blocks, BackwardWith(1) %d: want one fewer (no scaled copy)", a1, a2)
	}
}

// TestOwnsGrad checks backend.OwnsGrad from inside device ops' backward
// functions: a gradient another op made and only the pass holds is the
// function's own (it may free it); the seed of BackwardWith, a
// gradient a non-leaf keeps (RequiresGrad on it), and a gradient that
// is also a tensor of the graph are not.
func TestOwnsGrad(t *testing.T) {
	dev := &devicetest.Fake{}
	probe := func(x *tensor.Tensor, owns *bool) *tensor.Tensor {
		out := x.Detach().Clone()
		return backend.NewOpSince(backend.OpStart(), "probe", out, []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
			*owns = backend.OwnsGrad(g)
			return []*tensor.Tensor{g.Clone()}
		})
	}
	x := tensor.Randn(1, 30, 8).To(dev).SetRequiresGrad(true)

	var owns bool
	probe(x, &owns).ReLU().Sum().Backward()
	if !owns {
		t.Error("a gradient made by ReLU's backward pass is not its consumer's own")
	}
	p := probe(x, &owns)
	p.BackwardWith(tensor.OnesLike(p))
	if owns {
		t.Error("BackwardWith's seed is the backward function's own")
	}
	p = probe(x, &owns)
	h := p.Mul(p) // p's gradient is summed from two uses into a copy the pass owns
	h.Sum().Backward()
	if !owns {
		t.Error("a summed gradient is not its consumer's own")
	}
	r := probe(x, &owns)
	r.SetRequiresGrad(true) // keeps its gradient: read after its backward function
	r.ReLU().Sum().Backward()
	if owns {
		t.Error("the gradient of a non-leaf that keeps it is the backward function's own")
	}
	if r.Grad() == nil || r.Grad().Len() != r.Len() {
		t.Fatal("the kept non-leaf has no gradient")
	}
}
