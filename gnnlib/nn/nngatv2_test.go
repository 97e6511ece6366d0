package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestRebuildInActBackward checks, on the Fake, that with
// nn.RebuildInActBackward (and nn.ActOutInAttention off) a GATv2Conv whose ReLU and dropout run in its
// own op (nn.ForwardReLUDropout) makes its output's gradient, its bias
// gradient and its rebuilt attention output in one
// ReLUDropoutGradUnbiasOps call, and that the layer's output and every
// gradient equal those of the two calls it replaces, bit for bit; with a
// residual (another op reading the activation) and attention dropout too.
func TestRebuildInActBackward(t *testing.T) {
	defer func(on, actOut bool) { nn.RebuildInActBackward, nn.ActOutInAttention = on, actOut }(nn.RebuildInActBackward, nn.ActOutInAttention)
	nn.ActOutInAttention = false // the path ActOutInAttention replaces
	g := memGraph(t, 300)
	for _, c := range []struct {
		heads, ch int
		p         float32
		residual  bool
	}{{1, 16, 0, false}, {2, 8, 0.3, false}, {2, 8, 0, true}} {
		t.Run(fmt.Sprintf("%dx%d,p=%g,residual=%v", c.heads, c.ch, c.p, c.residual), func(t *testing.T) {
			run := func(on bool) (calls int, vals [][]float32) {
				nn.RebuildInActBackward = on
				dev := &devicetest.Fake{}
				nn.Seed(11)
				conv := nn.NewGATv2Conv(12, c.ch, c.heads, true, c.p)
				drop := nn.NewDropout(0.4)
				nn.To(conv, dev)
				x := tensor.Randn(3, 300, 12).To(dev).Detach().SetRequiresGrad(true)
				w := tensor.Randn(4, 300, c.heads*c.ch).To(dev)
				h := nn.ForwardReLUDropout(conv, g, x, drop)
				loss := h.Mul(w)
				if c.residual {
					loss = loss.Add(h.Mul(h))
				}
				loss.Sum().Backward()
				vals = append(vals, h.CPU().Data())
				for _, p := range append([]*tensor.Tensor{x}, conv.Params()...) {
					vals = append(vals, p.Grad().CPU().Data())
				}
				return dev.Calls("ReLUDropoutGradColSumUnbias"), vals
			}
			offCalls, want := run(false)
			onCalls, got := run(true)
			if onCalls != 1 || offCalls != 0 {
				t.Errorf("ReLUDropoutGradColSumUnbias called %d times with nn.RebuildInActBackward, %d without; want 1 and 0", onCalls, offCalls)
			}
			for i := range want {
				for j := range want[i] {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("value %d[%d] = %g in one pass, %g in two (0: the output, then x's and the parameters' gradients)", i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
}

// TestActOutInAttention checks on the Fake that with nn.ActOutInAttention
// a GATv2Conv with its ReLU and dropout fused hands its activation to the
// attention's backward function (which the Fake rebuilds the output from
// and checks against the forward pass's where the gradient is not zero)
// and makes no rebuilt copy (no ReLUDropoutGradColSumUnbias), with the
// same values as the copy's path.
func TestActOutInAttention(t *testing.T) {
	g := memGraph(t, 300)
	dev := &devicetest.Fake{}
	devicetest.CheckActOutInAttention(t, dev, g, 0)
	// Three cases, each run once with the switch off and once on.
	if got := dev.Calls("GATv2AttentionPair from its activation"); got != 3 {
		t.Errorf("the attention's backward function was given the activation %d times, want 3 (once per case, with the switch on)", got)
	}
	if got := dev.Calls("ReLUDropoutGradColSumUnbias"); got != 3 {
		t.Errorf("ReLUDropoutGradColSumUnbias called %d times, want 3 (once per case, with the switch off)", got)
	}
}

// TestRecomputeGATv2Product checks on the Fake that with
// nn.RecomputeGATv2Product the first GATv2Conv of a model frees its
// product after the forward pass (the bytes in use fall by at least it)
// and hands the product made again to the attention's backward function,
// which the Fake checks bit for bit against the one its forward pass
// read, with the values and gradients of the kept product's path; and
// that a product under nn.RecomputeGATv2ProductMin is kept.
func TestRecomputeGATv2Product(t *testing.T) {
	g := memGraph(t, 300)
	dev := &devicetest.Fake{}
	devicetest.CheckRecomputeGATv2Product(t, dev, g, 0)
	// Two cases, each run once with the switch off and once on; the
	// second layer's input needs a gradient, so it keeps its product.
	if got := dev.Calls("GATv2AttentionPair given its product again"); got != 2 {
		t.Errorf("the attention's backward function was given the product again %d times, want 2 (the first layer, once per case with the switch on)", got)
	}
	t.Run("bfloat16", func(t *testing.T) {
		tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckRecomputeGATv2Product(t, &devicetest.Fake{}, g, 0) })
	})
	t.Run("small", func(t *testing.T) {
		dev := &devicetest.Fake{}
		conv := nn.NewGATv2Conv(24, 32, 1, true, 0)
		nn.To(conv, dev)
		conv.Forward(g, tensor.Randn(1, 300, 24).To(dev)).Sum().Backward()
		if got := dev.Calls("GATv2AttentionPair given its product again"); got != 0 {
			t.Errorf("a product of 300 x 64 values was made again (%d calls); RecomputeGATv2ProductMin is %d bytes", got, nn.RecomputeGATv2ProductMin)
		}
		if got := dev.Calls("GATv2AttentionPair"); got != 1 {
			t.Errorf("GATv2AttentionPair called %d times, want 1: the test does not run the product it means to", got)
		}
	})
}
