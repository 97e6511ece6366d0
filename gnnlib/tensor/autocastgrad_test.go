package tensor_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
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

// TestAutocastBackwardScope records a device op under Autocast(BFloat16)
// on devicetest.Fake and runs the backward pass outside the scope, as
// loss.Backward() after Autocast does: the op's backward function runs
// inside a scope of bfloat16 (the device's ops read it to write their
// gradients in 16 bits), and the scope closes when the function returns
// or panics, so that the goroutine's later ops run in float32.
func TestAutocastBackwardScope(t *testing.T) {
	dev := &devicetest.Fake{}
	for _, panics := range []bool{false, true} {
		r := tensor.NewRNG(5)
		x := r.Normal(0, 1, 3, 4).To(dev).SetRequiresGrad(true)
		inside := tensor.Float32
		var y *tensor.Tensor
		tensor.Autocast(tensor.BFloat16, func() {
			y = backend.NewOpSince(backend.OpStart(), "Probe", r.Normal(0, 1, 3, 4).To(dev), []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
				inside = tensor.AutocastDType()
				if panics {
					panic("probe")
				}
				return []*tensor.Tensor{g}
			})
		})
		var recovered any
		func() {
			defer func() { recovered = recover() }()
			y.Sum().Backward()
		}()
		if panics != (recovered != nil) {
			t.Errorf("panics %v: the backward pass recovered %v", panics, recovered)
		}
		if inside != tensor.BFloat16 {
			t.Errorf("panics %v: the op's backward function ran in %v, want bfloat16", panics, inside)
		}
		if dt := tensor.AutocastDType(); dt != tensor.Float32 {
			t.Errorf("panics %v: after the backward pass the goroutine's format is %v, want float32 (the scope left open)", panics, dt)
		}
	}
}
