package tensor_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestAutocastParamGradInPlace runs a layer's forward pass under
// Autocast(BFloat16) on devicetest.Fake with tensor.RoundParamGradsInPlace
// off and on: the parameters' gradients are the same values bit for bit,
// 16-bit values in float32, and with it on the backward pass rounds the
// float32 ones where they lie (RoundHalf) instead of into 16-bit copies
// (ToHalf) that the parameters widen again.
func TestAutocastParamGradInPlace(t *testing.T) {
	defer func(on bool) { tensor.RoundParamGradsInPlace = on }(tensor.RoundParamGradsInPlace)
	dev := &devicetest.Fake{}
	x := tensor.NewRNG(3).Normal(0, 1, 6, 5).To(dev)
	type result struct {
		w, b            *tensor.Tensor
		toHalf, inPlace int
	}
	run := func(on bool) result {
		tensor.RoundParamGradsInPlace = on
		r := tensor.NewRNG(4)
		w := r.Normal(0, 1, 5, 4).To(dev).SetRequiresGrad(true)
		b := r.Normal(0, 1, 4).To(dev).SetRequiresGrad(true)
		th, rh := dev.Calls("ToHalf"), dev.Calls("RoundHalf")
		var loss *tensor.Tensor
		tensor.Autocast(tensor.BFloat16, func() { loss = x.MatMul(w).Add(b).Tanh().Square().Mean() })
		loss.Backward()
		return result{w.Grad().CPU(), b.Grad().CPU(), dev.Calls("ToHalf") - th, dev.Calls("RoundHalf") - rh}
	}
	off, on := run(false), run(true)
	for _, c := range []struct {
		name    string
		off, on *tensor.Tensor
	}{{"w", off.w, on.w}, {"b", off.b, on.b}} {
		if !tensor.AllClose(c.on, c.off, 0, 0) {
			t.Errorf("grad of %s with RoundParamGradsInPlace = %v, without %v", c.name, c.on, c.off)
		}
		if !tensor.AllClose(c.on, c.on.RoundTo(tensor.BFloat16), 0, 0) {
			t.Errorf("grad of %s with RoundParamGradsInPlace has values that are not bfloat16: %v", c.name, c.on)
		}
	}
	// The bias's gradient (a sum over rows, float32) at least; the
	// Fake's product may hand back the weight's in 16 bits already.
	if k := off.toHalf - on.toHalf; k < 1 || on.inPlace != off.inPlace+k {
		t.Errorf("RoundParamGradsInPlace: %d ToHalf and %d RoundHalf calls, without it %d and %d; want as many copies fewer as roundings in place more, at least one",
			on.toHalf, on.inPlace, off.toHalf, off.inPlace)
	}
}
