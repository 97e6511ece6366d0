package tensor_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Under Autocast the output of an op is stored in bfloat16: 1/3 keeps 8
// significant bits. The parameter stays float32 and so does the loss.
func ExampleAutocast() {
	w := tensor.FromSlice([]float32{1.0 / 3}).SetRequiresGrad(true)
	x := tensor.FromSlice([]float32{1})
	var y, loss *tensor.Tensor
	tensor.Autocast(tensor.BFloat16, func() {
		y = x.Mul(w)
		loss = y.Square().Mean()
	})
	loss.Backward()
	fmt.Println(w.Item(), y.Item(), w.Grad().Item())
	// Output: 0.33333334 0.33398438 0.66796875
}
