package tensor

import (
	"math"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend/opcode"
)

type binOp int

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
)

var binNames = [...]string{"Add", "Sub", "Mul", "Div"}

// binKernel computes dst = x ∘ y over equal-length slices; the switch sits
// outside the loops so each loop is a plain float32 loop.
func binKernel(op binOp, dst, x, y []float32) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	switch op {
	case opAdd:
		for i := range x {
			dst[i] = x[i] + y[i]
		}
	case opSub:
		for i := range x {
			dst[i] = x[i] - y[i]
		}
	case opMul:
		for i := range x {
			dst[i] = x[i] * y[i]
		}
	case opDiv:
		for i := range x {
			dst[i] = x[i] / y[i]
		}
	}
}

// binScalarKernel computes dst = x ∘ s.
func binScalarKernel(op binOp, dst, x []float32, s float32) {
	dst = dst[:len(x)]
	switch op {
	case opAdd:
		for i := range x {
			dst[i] = x[i] + s
		}
	case opSub:
		for i := range x {
			dst[i] = x[i] - s
		}
	case opMul:
		for i := range x {
			dst[i] = x[i] * s
		}
	case opDiv:
		for i := range x {
			dst[i] = x[i] / s
		}
	}
}

// binaryData computes a ∘ b with broadcasting, without autograd.
func binaryData(op binOp, a, b *Tensor) *Tensor {
	name := binNames[op]
	a.mustDense(name)
	b.mustDense(name)
	shape := broadcastShape(name, a.shape, b.shape)
	out := newDense(shape)
	n := len(out.data)
	switch {
	case slices.Equal(a.shape, shape) && slices.Equal(b.shape, shape):
		parallelFor(n, elemGrain, func(lo, hi int) {
			binKernel(op, out.data[lo:hi], a.data[lo:hi], b.data[lo:hi])
		})
	case slices.Equal(a.shape, shape) && len(b.data) == 1:
		s := b.data[0]
		parallelFor(n, elemGrain, func(lo, hi int) {
			binScalarKernel(op, out.data[lo:hi], a.data[lo:hi], s)
		})
	case slices.Equal(a.shape, shape) && isSuffixRepeat(b.shape, shape) && len(b.data) > 0:
		// the bias case: [N, C] ∘ [C]
		m := len(b.data)
		parallelFor(n/m, elemGrain/m+1, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				binKernel(op, out.data[r*m:(r+1)*m], a.data[r*m:(r+1)*m], b.data)
			}
		})
	default:
		ea, eb := expand(a, shape), expand(b, shape)
		parallelFor(n, elemGrain, func(lo, hi int) {
			binKernel(op, out.data[lo:hi], ea.data[lo:hi], eb.data[lo:hi])
		})
	}
	return out
}

func binary(op binOp, a, b *Tensor) *Tensor {
	if a.dev != nil || b.dev != nil {
		return deviceBinary(op, a, b)
	}
	start := opStart()
	out := binaryData(op, a, b)
	return newOpSince(start, binNames[op], out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		switch op {
		case opAdd:
			if a.RequiresGrad() {
				ga = sumTo(g, a.shape)
			}
			if b.RequiresGrad() {
				gb = sumTo(g, b.shape)
			}
		case opSub:
			if a.RequiresGrad() {
				ga = sumTo(g, a.shape)
			}
			if b.RequiresGrad() {
				gb = sumTo(g.Neg(), b.shape)
			}
		case opMul:
			if a.RequiresGrad() {
				ga = sumTo(binaryData(opMul, g, b), a.shape)
			}
			if b.RequiresGrad() {
				gb = sumTo(binaryData(opMul, g, a), b.shape)
			}
		case opDiv:
			if a.RequiresGrad() {
				ga = sumTo(binaryData(opDiv, g, b), a.shape)
			}
			if b.RequiresGrad() {
				// d(a/b)/db = -a/b² = -out/b
				t := binaryData(opDiv, binaryData(opMul, g, out), b)
				gb = sumTo(t.Neg(), b.shape)
			}
		}
		return []*Tensor{ga, gb}
	})
}

// Add returns t + u with NumPy broadcasting.
func (t *Tensor) Add(u *Tensor) *Tensor { return binary(opAdd, t, u) }

// Sub returns t - u with NumPy broadcasting.
func (t *Tensor) Sub(u *Tensor) *Tensor { return binary(opSub, t, u) }

// Mul returns the element-wise product t * u with NumPy broadcasting.
func (t *Tensor) Mul(u *Tensor) *Tensor { return binary(opMul, t, u) }

// Div returns the element-wise quotient t / u with NumPy broadcasting.
func (t *Tensor) Div(u *Tensor) *Tensor { return binary(opDiv, t, u) }

// AddScalar returns t + s.
func (t *Tensor) AddScalar(s float32) *Tensor {
	if t.dev != nil {
		return deviceUnary("AddScalar", opcode.MapAddScalar, true, t, s)
	}
	start := opStart()
	t.mustDense("AddScalar")
	out := newDense(t.shape)
	parallelFor(len(out.data), elemGrain, func(lo, hi int) {
		binScalarKernel(opAdd, out.data[lo:hi], t.data[lo:hi], s)
	})
	return newOpSince(start, "AddScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{g}
	})
}

// MulScalar returns t * s.
func (t *Tensor) MulScalar(s float32) *Tensor {
	if t.dev != nil {
		return deviceScale("MulScalar", t, s)
	}
	start := opStart()
	t.mustDense("MulScalar")
	out := newDense(t.shape)
	parallelFor(len(out.data), elemGrain, func(lo, hi int) {
		binScalarKernel(opMul, out.data[lo:hi], t.data[lo:hi], s)
	})
	return newOpSince(start, "MulScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{g.MulScalar(s)}
	})
}

type unOp int

const (
	opNeg unOp = iota
	opExp
	opLog
	opSqrt
	opAbs
	opReLU
	opSigmoid
	opTanh
	opGELU
	opLeakyReLU // parameter: slope
	opELU       // parameter: alpha
	opPow       // parameter: exponent
	opClamp     // parameters: lo, hi
	opSquare
)

var unNames = [...]string{"Neg", "Exp", "Log", "Sqrt", "Abs", "ReLU", "Sigmoid", "Tanh", "GELU", "LeakyReLU", "ELU", "Pow", "Clamp", "Square"}

const sqrt2overPi = 0.7978845608028654

// unKernel computes dst = f(x) for one unary op; p and q are its parameters.
func unKernel(op unOp, dst, x []float32, p, q float32) {
	dst = dst[:len(x)]
	switch op {
	case opNeg:
		for i, v := range x {
			dst[i] = -v
		}
	case opExp:
		for i, v := range x {
			dst[i] = float32(math.Exp(float64(v)))
		}
	case opLog:
		for i, v := range x {
			dst[i] = float32(math.Log(float64(v)))
		}
	case opSqrt:
		for i, v := range x {
			dst[i] = float32(math.Sqrt(float64(v)))
		}
	case opAbs:
		for i, v := range x {
			if v < 0 {
				v = -v
			}
			dst[i] = v
		}
	case opReLU:
		// max compiles without a branch to mispredict on random signs.
		for i, v := range x {
			dst[i] = max(v, 0)
		}
	case opSigmoid:
		for i, v := range x {
			dst[i] = sigmoid(v)
		}
	case opTanh:
		for i, v := range x {
			dst[i] = float32(math.Tanh(float64(v)))
		}
	case opGELU:
		// the tanh approximation, as in BERT and torch's approximate="tanh"
		for i, v := range x {
			u := float64(v)
			dst[i] = float32(0.5 * u * (1 + math.Tanh(sqrt2overPi*(u+0.044715*u*u*u))))
		}
	case opLeakyReLU:
		for i, v := range x {
			if v < 0 {
				v *= p
			}
			dst[i] = v
		}
	case opELU:
		for i, v := range x {
			if v < 0 {
				v = p * float32(math.Expm1(float64(v)))
			}
			dst[i] = v
		}
	case opPow:
		for i, v := range x {
			dst[i] = float32(math.Pow(float64(v), float64(p)))
		}
	case opClamp:
		for i, v := range x {
			if v < p {
				v = p
			} else if v > q {
				v = q
			}
			dst[i] = v
		}
	case opSquare:
		for i, v := range x {
			dst[i] = v * v
		}
	}
}

func sigmoid(v float32) float32 {
	// split on the sign so exp never overflows
	if v >= 0 {
		return float32(1 / (1 + math.Exp(-float64(v))))
	}
	e := math.Exp(float64(v))
	return float32(e / (1 + e))
}

// unGradKernel computes dst = g * f'(x) given x and y = f(x).
func unGradKernel(op unOp, dst, g, x, y []float32, p, q float32) {
	dst = dst[:len(g)]
	switch op {
	case opNeg:
		for i := range g {
			dst[i] = -g[i]
		}
	case opExp:
		for i := range g {
			dst[i] = g[i] * y[i]
		}
	case opLog:
		for i := range g {
			dst[i] = g[i] / x[i]
		}
	case opSqrt:
		for i := range g {
			dst[i] = g[i] * 0.5 / y[i]
		}
	case opAbs:
		for i := range g {
			switch {
			case x[i] > 0:
				dst[i] = g[i]
			case x[i] < 0:
				dst[i] = -g[i]
			default:
				dst[i] = 0
			}
		}
	case opReLU:
		reluGrad(dst, g, x)
	case opSigmoid:
		for i := range g {
			dst[i] = g[i] * y[i] * (1 - y[i])
		}
	case opTanh:
		for i := range g {
			dst[i] = g[i] * (1 - y[i]*y[i])
		}
	case opGELU:
		for i := range g {
			u := float64(x[i])
			th := math.Tanh(sqrt2overPi * (u + 0.044715*u*u*u))
			d := 0.5*(1+th) + 0.5*u*(1-th*th)*sqrt2overPi*(1+3*0.044715*u*u)
			dst[i] = g[i] * float32(d)
		}
	case opLeakyReLU:
		for i := range g {
			if x[i] > 0 {
				dst[i] = g[i]
			} else {
				dst[i] = g[i] * p
			}
		}
	case opELU:
		for i := range g {
			if x[i] > 0 {
				dst[i] = g[i]
			} else {
				dst[i] = g[i] * (y[i] + p)
			}
		}
	case opPow:
		for i := range g {
			dst[i] = g[i] * p * float32(math.Pow(float64(x[i]), float64(p-1)))
		}
	case opClamp:
		for i := range g {
			if x[i] >= p && x[i] <= q {
				dst[i] = g[i]
			} else {
				dst[i] = 0
			}
		}
	case opSquare:
		for i := range g {
			dst[i] = 2 * g[i] * x[i]
		}
	}
}

func unary(op unOp, t *Tensor, p, q float32) *Tensor {
	if t.dev != nil {
		if op == opNeg {
			return deviceScale("Neg", t, -1)
		}
		code, ok := deviceMaps[op]
		return deviceUnary(unNames[op], code, ok, t, p)
	}
	start := opStart()
	name := unNames[op]
	t.mustDense(name)
	out := newDense(t.shape)
	parallelFor(len(out.data), elemGrain, func(lo, hi int) {
		unKernel(op, out.data[lo:hi], t.data[lo:hi], p, q)
	})
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		d := newDense(t.shape)
		parallelFor(len(d.data), elemGrain, func(lo, hi int) {
			unGradKernel(op, d.data[lo:hi], g.data[lo:hi], t.data[lo:hi], out.data[lo:hi], p, q)
		})
		return []*Tensor{d}
	})
}

// Neg returns -t.
func (t *Tensor) Neg() *Tensor { return unary(opNeg, t, 0, 0) }

// Exp returns e^t element-wise.
func (t *Tensor) Exp() *Tensor { return unary(opExp, t, 0, 0) }

// Log returns the natural logarithm element-wise.
func (t *Tensor) Log() *Tensor { return unary(opLog, t, 0, 0) }

// Sqrt returns the square root element-wise.
func (t *Tensor) Sqrt() *Tensor { return unary(opSqrt, t, 0, 0) }

// Abs returns |t| element-wise (gradient 0 at 0).
func (t *Tensor) Abs() *Tensor { return unary(opAbs, t, 0, 0) }

// Square returns t² element-wise.
func (t *Tensor) Square() *Tensor { return unary(opSquare, t, 0, 0) }

// Pow returns t^p element-wise.
func (t *Tensor) Pow(p float32) *Tensor { return unary(opPow, t, p, 0) }

// Clamp limits every element to [lo, hi] (gradient 0 outside).
func (t *Tensor) Clamp(lo, hi float32) *Tensor { return unary(opClamp, t, lo, hi) }

// ReLU returns max(t, 0) element-wise.
func (t *Tensor) ReLU() *Tensor { return unary(opReLU, t, 0, 0) }

// LeakyReLU returns t where t > 0 and slope·t elsewhere.
func (t *Tensor) LeakyReLU(slope float32) *Tensor { return unary(opLeakyReLU, t, slope, 0) }

// ELU returns t where t > 0 and alpha·(e^t - 1) elsewhere.
func (t *Tensor) ELU(alpha float32) *Tensor { return unary(opELU, t, alpha, 0) }

// Sigmoid returns 1/(1+e^-t) element-wise, computed without overflow.
func (t *Tensor) Sigmoid() *Tensor { return unary(opSigmoid, t, 0, 0) }

// Tanh returns tanh(t) element-wise.
func (t *Tensor) Tanh() *Tensor { return unary(opTanh, t, 0, 0) }

// GELU returns the Gaussian error linear unit in its tanh approximation,
// 0.5·t·(1 + tanh(√(2/π)(t + 0.044715t³))).
func (t *Tensor) GELU() *Tensor { return unary(opGELU, t, 0, 0) }
