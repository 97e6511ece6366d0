package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestForwardReLUDropout runs devicetest.CheckForwardReLUDropout on the
// Fake, where the fused layer ops must give the two ops' values bit for
// bit (the same sums in the same order), and checks that they ran: the
// propagation with the activation for a narrowing GCNConv, the in-place
// activation for a widening one and for GATv2Conv; with
// nn.FuseLayerActivation off, neither.
func TestForwardReLUDropout(t *testing.T) {
	dev := &devicetest.Fake{}
	g := memGraph(t, 300)
	devicetest.CheckForwardReLUDropout(t, dev, g, 0)
	t.Run("bfloat16", func(t *testing.T) {
		tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckForwardReLUDropout(t, dev, g, 2e-2) })
	})

	defer func(on, amp bool) {
		nn.FuseLayerActivation, nn.FuseLayerActivationUnderAutocast = on, amp
	}(nn.FuseLayerActivation, nn.FuseLayerActivationUnderAutocast)
	drop := nn.NewDropout(0.5)
	for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
		for _, amp := range []bool{false, true} {
			nn.FuseLayerActivationUnderAutocast = amp
			for _, on := range []bool{false, true} {
				nn.FuseLayerActivation = on
				for _, c := range []struct {
					layer nn.GraphLayer
					in    int
					op    string
					amp   bool // fused under Autocast only with FuseLayerActivationUnderAutocast
				}{{nn.NewGCNConv(32, 16), 32, "GraphSpMMBiasReLUDropout", false}, {nn.NewGCNConv(16, 32), 16, "BiasReLUDropout", false}, {nn.NewGATv2Conv(16, 16, 1, true, 0), 16, "BiasReLUDropout", true}} {
					nn.To(c.layer, dev)
					before := dev.Calls(c.op)
					tensor.Autocast(dt, func() {
						nn.ForwardReLUDropout(c.layer, g, tensor.Randn(1, 300, c.in).To(dev), drop).Sum().Backward()
					})
					want := on && (dt == tensor.Float32 || !c.amp || amp)
					if got := dev.Calls(c.op) - before; (got > 0) != want {
						t.Errorf("%v in %v with FuseLayerActivation %v, FuseLayerActivationUnderAutocast %v: %d %s calls", c.layer, dt, on, amp, got, c.op)
					}
				}
			}
		}
	}
	// Under Autocast the fused activation's backward pass asks for the
	// activation's gradient and the bias gradient in one call with
	// ActColSumUnderAutocast, in two without.
	defer func(on bool) { nn.ActColSumUnderAutocast = on }(nn.ActColSumUnderAutocast)
	nn.FuseLayerActivation, nn.FuseLayerActivationUnderAutocast = true, true
	for _, on := range []bool{false, true} {
		nn.ActColSumUnderAutocast = on
		for _, layer := range []nn.GraphLayer{nn.NewGCNConv(16, 32), nn.NewGATv2Conv(16, 16, 1, true, 0)} {
			nn.To(layer, dev)
			before, grads := dev.Calls("ReLUDropoutGradColSum"), dev.Calls("ReLUDropoutGrad")
			tensor.Autocast(tensor.BFloat16, func() {
				nn.ForwardReLUDropout(layer, g, tensor.Randn(1, 300, 16).To(dev), drop).Sum().Backward()
			})
			one, two := dev.Calls("ReLUDropoutGradColSum")-before, dev.Calls("ReLUDropoutGrad")-grads
			if (one > 0) != on || (two > 0) == on {
				t.Errorf("%v in bfloat16 with ActColSumUnderAutocast %v: %d ReLUDropoutGradColSum and %d ReLUDropoutGrad calls", layer, on, one, two)
			}
		}
	}
	// Evaluation mode and the CPU run the two ops.
	drop.SetTraining(false)
	conv := nn.NewGCNConv(8, 8)
	x := tensor.Randn(2, 300, 8)
	if e := devicetest.RelErr(nn.ForwardReLUDropout(conv, g, x, drop), conv.Forward(g, x).ReLU()); e != 0 {
		t.Errorf("ForwardReLUDropout in evaluation mode on the CPU is %g from ReLU(Forward)", e)
	}
}

// TestForwardReLUDropoutHeldPeak measures an epoch's held peak on the
// Fake (the storage not yet freed, what a device holds when the garbage
// collector does not run in time; measureEpoch) with the hidden layers
// through ForwardReLUDropout, fused and not: the fused layers never make
// the biased output that the layer and ReLUDropout pass between them,
// and free the gradients they own (backend.OwnsGrad) as soon as they are
// read, so the peak falls by at least one N×256 block (4,000 nodes: GCN
// 36.6 → 28.4 MB, GATv2 56.4 → 48.2 MB when written; before the layers
// freed the gradients they own, GCN's unfused epoch held 40.7 MB), and
// the live peak (instant collection) does not rise.
func TestForwardReLUDropoutHeldPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("measures two epochs of two 4,000-node networks")
	}
	defer func(on bool) { nn.FuseLayerActivation = on }(nn.FuseLayerActivation)
	const n = 4000
	for _, kind := range []string{"gcn", "gatv2"} {
		nn.FuseLayerActivation = false
		two := measureEpoch(t, kind, n, true)
		nn.FuseLayerActivation = true
		one := measureEpoch(t, kind, n, true)
		t.Logf("%s: held peak %d bytes with the layers' activation fused, %d with ReLUDropout after them (live %d, %d)", kind, one.peakHeld, two.peakHeld, one.peakLive, two.peakLive)
		if two.peakHeld-one.peakHeld < 4*n*256 {
			t.Errorf("%s: held peak %d bytes fused, %d not: want at least one N×256 block (%d bytes) less", kind, one.peakHeld, two.peakHeld, 4*n*256)
		}
		if one.peakLive > two.peakLive {
			t.Errorf("%s: live peak %d bytes fused, %d not", kind, one.peakLive, two.peakLive)
		}
	}
}

// TestGCNModelFusesActivation checks that nn.GCN's forward pass on the
// Fake takes the first layer's fused ReLU and dropout and gives the
// logits and gradients of the two ops, bit for bit, from the same seeds.
func TestGCNModelFusesActivation(t *testing.T) {
	defer func(on bool) { nn.FuseLayerActivation = on }(nn.FuseLayerActivation)
	g := memGraph(t, 300)
	dev := &devicetest.Fake{}
	run := func(fused bool) []*tensor.Tensor {
		nn.FuseLayerActivation = fused
		nn.Seed(3)
		m := nn.NewGCN(24, 16, 7)
		nn.To(m, dev)
		x := tensor.Randn(4, 300, 24).To(dev)
		before := dev.Calls("GraphSpMMBiasReLUDropout") + dev.Calls("BiasReLUDropout")
		out := m.Forward(g, x)
		if got := dev.Calls("GraphSpMMBiasReLUDropout") + dev.Calls("BiasReLUDropout") - before; (got > 0) != fused {
			t.Errorf("FuseLayerActivation %v: %d fused activations", fused, got)
		}
		out.Mul(out).Sum().Backward()
		res := []*tensor.Tensor{out.CPU()}
		for _, p := range m.Params() {
			res = append(res, p.Grad().CPU())
		}
		return res
	}
	a, b := run(false), run(true)
	for i := range a {
		if e := devicetest.RelErr(b[i], a[i]); e != 0 {
			t.Errorf("tensor %d (logits, then the parameters' gradients) differs with the fused activation: %g", i, e)
		}
	}
}
