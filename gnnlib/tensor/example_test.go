package tensor_test

import (
	"errors"
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func ExampleTensor_MatMul() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	w := tensor.FromSlice([]float32{1, 0, 1, 1}, 2, 2)
	b := tensor.FromSlice([]float32{0.5, -10}, 2)
	fmt.Println(x.MatMul(w).Add(b).ReLU())
	// Output: tensor([[3.5, 0], [7.5, 0]], shape=[2 2])
}

func ExampleTensor_Backward() {
	w := tensor.FromSlice([]float32{1, 2, 3}).SetRequiresGrad(true)
	loss := w.Mul(w).Sum() // sum of squares: gradient 2w
	loss.Backward()
	fmt.Println(loss.Item(), w.Grad())
	// Output: 14 tensor([2, 4, 6], shape=[3])
}

func ExampleNoGrad() {
	w := tensor.Ones(2).SetRequiresGrad(true)
	var y *tensor.Tensor
	tensor.NoGrad(func() { y = w.MulScalar(3) })
	fmt.Println(y.RequiresGrad())
	// Output: false
}

func ExampleNewOp() {
	// A cube op defined outside the package: forward from Data(),
	// backward 3x²·grad.
	cube := func(x *tensor.Tensor) *tensor.Tensor {
		out := make([]float32, x.Len())
		for i, v := range x.Data() {
			out[i] = v * v * v
		}
		return tensor.NewOp("Cube", tensor.Wrap(out, x.Shape()...), []*tensor.Tensor{x},
			func(g *tensor.Tensor) []*tensor.Tensor {
				return []*tensor.Tensor{x.Square().MulScalar(3).Mul(g)}
			})
	}
	x := tensor.FromSlice([]float32{1, 2}).SetRequiresGrad(true)
	cube(x).Sum().Backward()
	fmt.Println(x.Grad())
	err := tensor.GradCheck(func(in []*tensor.Tensor) *tensor.Tensor { return cube(in[0]) },
		[]*tensor.Tensor{x}, 1e-2, 1e-2)
	fmt.Println(err)
	// Output:
	// tensor([3, 12], shape=[2])
	// <nil>
}

func ExampleCrossEntropy() {
	logits := tensor.FromSlice([]float32{2, 0, 0, 2, 0, 0}, 3, 2)
	labels := []int{0, 1, 1}
	train := []int{0, 1} // rows that count
	fmt.Printf("%.4f\n", tensor.CrossEntropy(logits, labels, train).Item())
	// Output: 0.1269
}

func ExampleSparseFromCSR() {
	// [[1 0 2]
	//  [0 0 3]]
	x := tensor.SparseFromCSR(2, 3, []int{0, 2, 3}, []int{0, 2, 2}, []float32{1, 2, 3})
	w := tensor.Ones(3, 1)
	fmt.Println(x.IsSparse(), x.MatMul(w))
	// Output: true tensor([[3], [3]], shape=[2 1])
}

func ExampleShapeError() {
	defer func() {
		var se *tensor.ShapeError
		if errors.As(recover().(error), &se) {
			fmt.Println(se.Op, se.A, se.B)
			fmt.Println(se)
		}
	}()
	tensor.Zeros(2, 3).MatMul(tensor.Zeros(2, 3))
	// Output:
	// MatMul [2 3] [2 3]
	// tensor: MatMul: shape mismatch: [2 3] and [2 3]
}

func ExampleNewRNG() {
	rng := tensor.NewRNG(1)
	a := rng.Normal(0, 1, 2, 2)
	b := tensor.NewRNG(1).Normal(0, 1, 2, 2)
	fmt.Println(tensor.AllClose(a, b, 0, 0))
	// Output: true
}

func ExampleConv2D() {
	x := tensor.Arange(0, 16, 1).Reshape(1, 1, 4, 4) // one 4×4 image
	w := tensor.Ones(1, 1, 2, 2)                     // a 2×2 box filter
	y := tensor.Conv2D(x, w, nil, 2, 0)
	fmt.Println(y)
	// Output: tensor([[[[10, 18], [42, 50]]]], shape=[1 1 2 2])
}
