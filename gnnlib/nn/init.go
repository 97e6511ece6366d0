package nn

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// InitFunc fills a weight tensor in place from the package's random source
// (see Seed).
type InitFunc func(w *tensor.Tensor)

// Fans returns the fan-in and fan-out of a weight. The package stores a
// dense layer's weight as [in, out] (so that a layer computes x·W), and a
// convolution's as [out, in, kh, kw].
func Fans(w *tensor.Tensor) (fanIn, fanOut int) {
	s := w.Shape()
	switch len(s) {
	case 0:
		return 1, 1
	case 1:
		return s[0], s[0]
	case 2:
		return s[0], s[1]
	default:
		field := 1
		for _, d := range s[2:] {
			field *= d
		}
		return s[1] * field, s[0] * field
	}
}

func fillUniform(w *tensor.Tensor, bound float64) {
	withRNG(func(r *tensor.RNG) {
		d := w.Data()
		for i := range d {
			d[i] = float32((2*r.Float64() - 1) * bound)
		}
	})
}

func fillNormal(w *tensor.Tensor, std float64) {
	withRNG(func(r *tensor.RNG) {
		d := w.Data()
		for i := range d {
			d[i] = float32(r.NormFloat64() * std)
		}
	})
}

// XavierUniform (Glorot) draws from U(−a, a) with a = sqrt(6/(fanIn+fanOut)),
// the initialisation of GCN and GAT.
func XavierUniform(w *tensor.Tensor) {
	in, out := Fans(w)
	fillUniform(w, math.Sqrt(6/float64(in+out)))
}

// XavierNormal draws from N(0, 2/(fanIn+fanOut)).
func XavierNormal(w *tensor.Tensor) {
	in, out := Fans(w)
	fillNormal(w, math.Sqrt(2/float64(in+out)))
}

// KaimingUniform (He) draws from U(−a, a) with a = sqrt(6/fanIn), for
// layers followed by a ReLU.
func KaimingUniform(w *tensor.Tensor) {
	in, _ := Fans(w)
	fillUniform(w, math.Sqrt(6/float64(in)))
}

// KaimingNormal draws from N(0, 2/fanIn).
func KaimingNormal(w *tensor.Tensor) {
	in, _ := Fans(w)
	fillNormal(w, math.Sqrt(2/float64(in)))
}

// LeCunUniform draws from U(−a, a) with a = 1/sqrt(fanIn): PyTorch's
// default for Linear and Conv2d weights and biases
// (kaiming_uniform_ with a = sqrt(5)).
func LeCunUniform(w *tensor.Tensor) {
	in, _ := Fans(w)
	fillUniform(w, 1/math.Sqrt(float64(in)))
}

// Uniform returns an InitFunc drawing from U(lo, hi).
func Uniform(lo, hi float64) InitFunc {
	if hi < lo {
		panic(fmt.Sprintf("nn: Uniform(%g, %g): empty interval", lo, hi))
	}
	return func(w *tensor.Tensor) {
		withRNG(func(r *tensor.RNG) {
			d := w.Data()
			for i := range d {
				d[i] = float32(lo + (hi-lo)*r.Float64())
			}
		})
	}
}

// Constant returns an InitFunc setting every element to v.
func Constant(v float32) InitFunc {
	return func(w *tensor.Tensor) {
		d := w.Data()
		for i := range d {
			d[i] = v
		}
	}
}

// newWeight returns a parameter of the given shape filled by init.
func newWeight(init InitFunc, shape ...int) *tensor.Tensor {
	w := tensor.Zeros(shape...)
	if init != nil {
		init(w)
	}
	return param(w)
}

// uniformWithFan fills w from U(±1/sqrt(fanIn)) for a given fan-in; PyTorch
// uses it for biases.
func uniformWithFan(w *tensor.Tensor, fanIn int) {
	fillUniform(w, 1/math.Sqrt(float64(fanIn)))
}
