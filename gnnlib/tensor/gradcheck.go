package tensor

import (
	"fmt"
	"math"
)

// GradCheck compares the gradients autograd computes for f at inputs with
// central finite differences of step eps, evaluated in float64 where it
// matters. f maps the inputs to a tensor; its gradients are taken of the sum
// of its elements. It returns nil when every gradient element a (autograd)
// and n (numeric) satisfy |a-n| <= tol·max(1, |n|), and otherwise an error
// naming the worst element. Inputs are temporarily marked as requiring
// gradients and restored, with their previous gradients. f must be
// deterministic (seed any RNG inside it). Use float32-friendly values:
// eps ≈ 1e-2…1e-3, tol ≈ 1e-2.
func GradCheck(f func(inputs []*Tensor) *Tensor, inputs []*Tensor, eps, tol float64) error {
	type saved struct {
		req  bool
		grad *Tensor
	}
	old := make([]saved, len(inputs))
	for i, in := range inputs {
		in.mustDense("GradCheck")
		old[i] = saved{in.requiresGrad, in.grad}
		in.requiresGrad, in.grad = true, nil
	}
	defer func() {
		for i, in := range inputs {
			in.requiresGrad, in.grad = old[i].req, old[i].grad
		}
	}()

	var y *Tensor
	func() {
		// gradients must be on for the analytic pass even inside NoGrad
		defer enableGrad()()
		y = f(inputs)
		if y.RequiresGrad() {
			y.BackwardWith(OnesLike(y))
		}
	}()

	sum := func() float64 {
		var s float64
		NoGrad(func() {
			for _, v := range f(inputs).dense().data {
				s += float64(v)
			}
		})
		return s
	}
	worst, wi, wj := -1.0, -1, -1
	var wa, wn float64
	for i, in := range inputs {
		for j := range in.data {
			orig := in.data[j]
			in.data[j] = float32(float64(orig) + eps)
			plus := sum()
			in.data[j] = float32(float64(orig) - eps)
			minus := sum()
			in.data[j] = orig
			// the step actually taken, after rounding to float32
			h := float64(float32(float64(orig)+eps)) - float64(float32(float64(orig)-eps))
			num := (plus - minus) / h
			var ana float64
			if in.grad != nil {
				ana = float64(in.grad.data[j])
			}
			if math.IsNaN(ana) || math.IsNaN(num) {
				return fmt.Errorf("tensor: GradCheck: input %d element %d: autograd %g, numeric %g", i, j, ana, num)
			}
			if err := math.Abs(ana-num) / math.Max(1, math.Abs(num)); err > worst {
				worst, wi, wj, wa, wn = err, i, j, ana, num
			}
		}
	}
	if worst > tol {
		return fmt.Errorf("tensor: GradCheck: input %d element %d: autograd %g, numeric %g (relative error %.3g > %g)", wi, wj, wa, wn, worst, tol)
	}
	return nil
}
