package tensor

import (
	"testing"
)

// TestGradCheck checks the gradient of every differentiable op against
// finite differences on small shapes.
func TestGradCheck(t *testing.T) {
	r := NewRNG(7)
	pos := func(shape ...int) *Tensor { return r.Uniform(0.5, 2, shape...) }
	nrm := func(shape ...int) *Tensor { return r.Normal(0, 1, shape...) }
	// away from the kinks of ReLU, Abs, Clamp and max/min ties
	kinkFree := func(shape ...int) *Tensor {
		x := r.Uniform(0.2, 1.5, shape...)
		for i := range x.data {
			if r.Float32() < 0.5 {
				x.data[i] = -x.data[i]
			}
		}
		return x
	}
	labels := []int{2, 0, 1, 2}
	tests := []struct {
		name   string
		f      func(in []*Tensor) *Tensor
		inputs []*Tensor
	}{
		{"Add", func(in []*Tensor) *Tensor { return in[0].Add(in[1]) }, []*Tensor{nrm(2, 3), nrm(2, 3)}},
		{"AddBias", func(in []*Tensor) *Tensor { return in[0].Add(in[1]) }, []*Tensor{nrm(4, 3), nrm(3)}},
		{"AddColumn", func(in []*Tensor) *Tensor { return in[0].Add(in[1]) }, []*Tensor{nrm(2, 3), nrm(2, 1)}},
		{"SubBroadcastBoth", func(in []*Tensor) *Tensor { return in[0].Sub(in[1]) }, []*Tensor{nrm(2, 1, 3), nrm(4, 1)}},
		{"Mul", func(in []*Tensor) *Tensor { return in[0].Mul(in[1]) }, []*Tensor{nrm(3, 2), nrm(1, 2)}},
		{"MulScalarTensor", func(in []*Tensor) *Tensor { return in[0].Mul(in[1]) }, []*Tensor{nrm(3, 2), nrm()}},
		{"Div", func(in []*Tensor) *Tensor { return in[0].Div(in[1]) }, []*Tensor{nrm(2, 3), pos(3)}},
		{"AddScalar", func(in []*Tensor) *Tensor { return in[0].AddScalar(3) }, []*Tensor{nrm(2, 2)}},
		{"MulScalar", func(in []*Tensor) *Tensor { return in[0].MulScalar(-2) }, []*Tensor{nrm(2, 2)}},
		{"Neg", func(in []*Tensor) *Tensor { return in[0].Neg() }, []*Tensor{nrm(5)}},
		{"Pow", func(in []*Tensor) *Tensor { return in[0].Pow(2.5) }, []*Tensor{pos(5)}},
		{"Square", func(in []*Tensor) *Tensor { return in[0].Square() }, []*Tensor{nrm(5)}},
		{"Exp", func(in []*Tensor) *Tensor { return in[0].Exp() }, []*Tensor{nrm(5)}},
		{"Log", func(in []*Tensor) *Tensor { return in[0].Log() }, []*Tensor{pos(5)}},
		{"Sqrt", func(in []*Tensor) *Tensor { return in[0].Sqrt() }, []*Tensor{pos(5)}},
		{"Abs", func(in []*Tensor) *Tensor { return in[0].Abs() }, []*Tensor{kinkFree(6)}},
		{"Clamp", func(in []*Tensor) *Tensor { return in[0].Clamp(-1, 1) }, []*Tensor{FromSlice([]float32{-1.4, -0.5, 0.3, 0.8, 1.3, 2})}},
		{"ReLU", func(in []*Tensor) *Tensor { return in[0].ReLU() }, []*Tensor{kinkFree(6)}},
		{"LeakyReLU", func(in []*Tensor) *Tensor { return in[0].LeakyReLU(0.2) }, []*Tensor{kinkFree(6)}},
		{"ELU", func(in []*Tensor) *Tensor { return in[0].ELU(1.5) }, []*Tensor{kinkFree(6)}},
		{"Sigmoid", func(in []*Tensor) *Tensor { return in[0].Sigmoid() }, []*Tensor{nrm(6)}},
		{"Tanh", func(in []*Tensor) *Tensor { return in[0].Tanh() }, []*Tensor{nrm(6)}},
		{"GELU", func(in []*Tensor) *Tensor { return in[0].GELU() }, []*Tensor{nrm(6)}},
		{"Softmax", func(in []*Tensor) *Tensor { return in[0].Softmax(1).Mul(in[1]) }, []*Tensor{nrm(3, 4), nrm(3, 4)}},
		{"SoftmaxAxis0", func(in []*Tensor) *Tensor { return in[0].Softmax(0).Mul(in[1]) }, []*Tensor{nrm(3, 4), nrm(3, 4)}},
		{"LogSoftmax", func(in []*Tensor) *Tensor { return in[0].LogSoftmax(-1).Mul(in[1]) }, []*Tensor{nrm(3, 4), nrm(3, 4)}},
		{"Sum", func(in []*Tensor) *Tensor { return in[0].Mul(in[0]).Sum() }, []*Tensor{nrm(2, 3)}},
		{"Mean", func(in []*Tensor) *Tensor { return in[0].Mul(in[0]).Mean() }, []*Tensor{nrm(2, 3)}},
		{"SumAxis", func(in []*Tensor) *Tensor { return in[0].SumAxis(1, false).Square() }, []*Tensor{nrm(2, 3, 2)}},
		{"MeanAxisKeep", func(in []*Tensor) *Tensor { return in[0].MeanAxis(0, true).Square() }, []*Tensor{nrm(3, 2)}},
		{"Max", func(in []*Tensor) *Tensor { return in[0].Max(1, false).Square() }, []*Tensor{nrm(3, 4)}},
		{"Min", func(in []*Tensor) *Tensor { return in[0].Min(0, true).Square() }, []*Tensor{nrm(3, 4)}},
		{"MatMul", func(in []*Tensor) *Tensor { return in[0].MatMul(in[1]) }, []*Tensor{nrm(3, 5), nrm(5, 6)}},
		{"MatMulEdges", func(in []*Tensor) *Tensor { return in[0].MatMul(in[1]).Square() }, []*Tensor{nrm(7, 9), nrm(9, 5)}},
		{"BatchMatMul", func(in []*Tensor) *Tensor { return in[0].MatMul(in[1]).Square() }, []*Tensor{nrm(2, 3, 4), nrm(2, 4, 5)}},
		{"BatchMatMulShared", func(in []*Tensor) *Tensor { return in[0].MatMul(in[1]).Square() }, []*Tensor{nrm(2, 3, 4), nrm(4, 5)}},
		{"Transpose", func(in []*Tensor) *Tensor { return in[0].T().Mul(in[1]) }, []*Tensor{nrm(2, 3), nrm(3, 2)}},
		{"Permute", func(in []*Tensor) *Tensor { return in[0].Permute(2, 0, 1).Mul(in[1]) }, []*Tensor{nrm(2, 3, 4), nrm(4, 2, 3)}},
		{"Reshape", func(in []*Tensor) *Tensor { return in[0].Reshape(3, -1).Mul(in[1]) }, []*Tensor{nrm(2, 3), nrm(3, 2)}},
		{"FlattenFrom", func(in []*Tensor) *Tensor { return in[0].FlattenFrom(1).Square() }, []*Tensor{nrm(2, 2, 2)}},
		{"IndexSelect", func(in []*Tensor) *Tensor { return in[0].IndexSelect([]int{2, 0, 2}).Square() }, []*Tensor{nrm(3, 2)}},
		{"IndexAdd", func(in []*Tensor) *Tensor { return in[0].IndexAdd([]int{1, 1, 0}, in[1]).Square() }, []*Tensor{nrm(3, 2), nrm(3, 2)}},
		{"ScatterAddRows", func(in []*Tensor) *Tensor { return ScatterAddRows(in[0], []int{3, 0, 3}, 4).Square() }, []*Tensor{nrm(3, 2)}},
		{"Concat", func(in []*Tensor) *Tensor { return Concat(1, in[0], in[1]).Square() }, []*Tensor{nrm(2, 1), nrm(2, 3)}},
		{"Split", func(in []*Tensor) *Tensor {
			p := in[0].Split(0, 1, 2)
			return p[0].Sum().Add(p[1].Square().Sum())
		}, []*Tensor{nrm(3, 2)}},
		{"Narrow", func(in []*Tensor) *Tensor { return in[0].Narrow(1, 1, 2).Square() }, []*Tensor{nrm(2, 4)}},
		{"Dropout", func(in []*Tensor) *Tensor { return in[0].Dropout(0.5, NewRNG(3), true).Square() }, []*Tensor{nrm(4, 4)}},
		{"Conv2D", func(in []*Tensor) *Tensor { return Conv2D(in[0], in[1], in[2], 1, 1).Square() }, []*Tensor{nrm(2, 2, 4, 4), nrm(3, 2, 3, 3), nrm(3)}},
		{"Conv2DStride", func(in []*Tensor) *Tensor { return Conv2D(in[0], in[1], nil, 2, 0).Square() }, []*Tensor{nrm(1, 1, 5, 5), nrm(2, 1, 2, 2)}},
		{"Conv2DStridePad", func(in []*Tensor) *Tensor { return Conv2D(in[0], in[1], in[2], 2, 1).Square() }, []*Tensor{nrm(2, 2, 5, 6), nrm(3, 2, 3, 2), nrm(3)}},
		{"MaxPool2D", func(in []*Tensor) *Tensor { return in[0].MaxPool2D(2, 2).Square() }, []*Tensor{nrm(1, 2, 4, 4)}},
		{"AvgPool2D", func(in []*Tensor) *Tensor { return in[0].AvgPool2D(2, 1).Square() }, []*Tensor{nrm(1, 2, 3, 3)}},
		{"CrossEntropy", func(in []*Tensor) *Tensor { return CrossEntropy(in[0], labels, []int{0, 2, 3}) }, []*Tensor{nrm(4, 3)}},
		{"NLL", func(in []*Tensor) *Tensor { return NLL(in[0].LogSoftmax(1), labels, nil) }, []*Tensor{nrm(4, 3)}},
		{"MSE", func(in []*Tensor) *Tensor { return MSE(in[0], in[1]) }, []*Tensor{nrm(3, 2), nrm(3, 2)}},
		{"BCEWithLogits", func(in []*Tensor) *Tensor { return BCEWithLogits(in[0], in[1]) }, []*Tensor{nrm(3, 2), r.Uniform(0, 1, 3, 2)}},
		{"SparseMatMul", func(in []*Tensor) *Tensor {
			s := SparseFromDense(FromSlice([]float32{1, 0, 2, 0, 0, 3, 0, 0, 4, 5, 0, 0}, 3, 4))
			return s.MatMul(in[0]).Square()
		}, []*Tensor{nrm(4, 3)}},
		{"Chain", func(in []*Tensor) *Tensor {
			return in[0].MatMul(in[1]).Add(in[2]).Tanh().MatMul(in[1].T()).Sum()
		}, []*Tensor{nrm(2, 3), nrm(3, 3), nrm(3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := GradCheck(tt.f, tt.inputs, 1e-2, 2e-2); err != nil {
				t.Errorf("GradCheck(%s) = %v, want nil", tt.name, err)
			}
		})
	}
}

// TestGradCheckCatchesWrongGradient checks that GradCheck reports an op with
// a deliberately wrong backward.
func TestGradCheckCatchesWrongGradient(t *testing.T) {
	double := func(in []*Tensor) *Tensor {
		x := in[0]
		out := newDense(x.shape)
		for i, v := range x.data {
			out.data[i] = 2 * v
		}
		return NewOp("bad", out, []*Tensor{x}, func(g *Tensor) []*Tensor {
			return []*Tensor{g.MulScalar(3)} // should be 2
		})
	}
	if err := GradCheck(double, []*Tensor{Randn(1, 3)}, 1e-2, 1e-2); err == nil {
		t.Errorf("GradCheck(wrong backward) = nil, want an error")
	}
}
