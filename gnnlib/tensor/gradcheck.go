package tensor

// GradCheck compares the gradients autograd computes for f at inputs with
// central finite differences of step eps, evaluated in float64 where it
// matters. f maps the inputs to a tensor; its gradients are taken of the sum
// of its elements. It returns nil when every gradient element a (autograd)
// and n (numeric) satisfy |a-n| <= tol·max(1, |n|), and otherwise an error
// naming the worst element. Inputs are temporarily marked as requiring
// gradients and restored. Use float32-friendly values: eps ≈ 1e-2…1e-3,
// tol ≈ 1e-2.
func GradCheck(f func(inputs []*Tensor) *Tensor, inputs []*Tensor, eps, tol float64) error {
	panic("TODO")
}
