package nn_test

import (
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestReLUDropoutFused checks nn.ReLUDropout against the two ops it fuses,
// d.Forward(x.ReLU()) with a Dropout seeded alike, on the CPU and on a
// device with ReLUDropoutOps (devicetest.Fake): the same outputs and input
// gradients bit for bit, and on the device one recorded op instead of two.
func TestReLUDropoutFused(t *testing.T) {
	for _, dev := range []tensor.Backend{nil, &devicetest.Fake{}} {
		name := "cpu"
		if dev != nil {
			name = dev.String()
		}
		t.Run(name, func(t *testing.T) {
			x := tensor.Randn(1, 40, 24)
			w := tensor.Rand(2, 40, 24)
			run := func(fused bool) (out, grad []float32, ops []string) {
				nn.Seed(5)
				d := nn.NewDropout(0.4)
				xi := x.Clone().To(dev).SetRequiresGrad(true)
				restore := backend.SetOpHook(func(e tensor.OpEvent) {
					if !e.Backward {
						ops = append(ops, e.Name)
					}
				})
				var y *tensor.Tensor
				if fused {
					y = nn.ReLUDropout(xi, d)
				} else {
					y = d.Forward(xi.ReLU())
				}
				restore()
				y.Mul(w.To(dev)).Sum().Backward()
				return y.CPU().Data(), xi.Grad().CPU().Data(), ops
			}
			y1, g1, ops1 := run(true)
			y2, g2, ops2 := run(false)
			if !slices.Equal(y1, y2) {
				t.Errorf("ReLUDropout output differs from Dropout(ReLU(x))")
			}
			if !slices.Equal(g1, g2) {
				t.Errorf("ReLUDropout input gradient differs from Dropout(ReLU(x))'s")
			}
			zeros := 0
			for _, v := range y1 {
				if v == 0 {
					zeros++
				}
			}
			if zeros < len(y1)/2 || zeros == len(y1) {
				t.Errorf("ReLUDropout(p=0.4) zeroed %d of %d outputs: want about 70%%", zeros, len(y1))
			}
			if dev != nil && (!slices.Equal(ops1, []string{"ReLUDropout"}) || !slices.Contains(ops2, "Dropout")) {
				t.Errorf("recorded ops: fused %v, unfused %v; want [ReLUDropout], and ReLU and Dropout", ops1, ops2)
			}
		})
	}
}
