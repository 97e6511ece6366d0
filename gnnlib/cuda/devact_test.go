package cuda

import (
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestReLUDropoutOnDevice checks the device's ReLUDropoutOps through
// nn.ReLUDropout against Dropout(ReLU(x)) with a Dropout seeded alike: the
// same output and input gradient bit for bit (bias_act's mask is the
// Dropout kernel's; act_backward's factor dropout_bwd's).
func TestReLUDropoutOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	x := tensor.Randn(1, 300, 48)
	w := tensor.Rand(2, 300, 48)
	run := func(fused bool) (out, grad []float32) {
		nn.Seed(5)
		drop := nn.NewDropout(0.3)
		xi := x.Clone().To(d).SetRequiresGrad(true)
		var y *tensor.Tensor
		if fused {
			y = nn.ReLUDropout(xi, drop)
		} else {
			y = drop.Forward(xi.ReLU())
		}
		y.Mul(w.To(d)).Sum().Backward()
		return y.CPU().Data(), xi.Grad().CPU().Data()
	}
	y1, g1 := run(true)
	y2, g2 := run(false)
	if !slices.Equal(y1, y2) || !slices.Equal(g1, g2) {
		t.Errorf("nn.ReLUDropout on the device differs from Dropout(ReLU(x)): outputs equal %t, gradients equal %t", slices.Equal(y1, y2), slices.Equal(g1, g2))
	}
}
