package quant

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// FakeQuant returns x quantized and dequantized with p, x' = (x_q − Z)·S,
// as an autograd operation whose backward pass is the straight-through
// estimator: the gradient passes unchanged where x lies inside the
// clipping range [(QMin−Z)·S, (QMax−Z)·S] of its channel and is zero
// outside, where rounding saturates and x has no influence on x'.
func FakeQuant(x *tensor.Tensor, p Params) (*tensor.Tensor, error) {
	return fakeQuantRows(x, p, nil)
}

// FakeQuantRows is FakeQuant on the rows of a 2-D x (node features) except
// those with keep[row] true, which pass through in full precision with
// gradient one: Degree-Quant's protection of high-degree nodes (see
// DegreeMask). keep may be nil.
func FakeQuantRows(x *tensor.Tensor, p Params, keep []bool) (*tensor.Tensor, error) {
	if keep != nil && (x.Dims() != 2 || len(keep) != x.Size(0)) {
		return nil, fmt.Errorf("quant: FakeQuantRows: mask of %d rows for shape %v: %w", len(keep), x.Shape(), ErrRange)
	}
	return fakeQuantRows(x, p, keep)
}

func fakeQuantRows(x *tensor.Tensor, p Params, keep []bool) (*tensor.Tensor, error) {
	start := backend.OpStart()
	shape := x.Shape()
	if err := checkBits(p.Bits); err != nil {
		return nil, err
	}
	n, inner := 1, 0
	if p.Axis != PerTensor {
		if p.Axis >= len(shape) || shape[p.Axis] != len(p.Scale) {
			return nil, fmt.Errorf("quant: FakeQuant: %d channels on axis %d of shape %v: %w", len(p.Scale), p.Axis, shape, ErrRange)
		}
		n, inner = channelGeom(shape, p.Axis)
	}
	src := x.Data()
	out := make([]float32, len(src))
	pass := make([]bool, len(src)) // where the STE lets the gradient through
	rowLen := 1
	if keep != nil {
		rowLen = shape[1]
	}
	for i, v := range src {
		if keep != nil && keep[i/rowLen] {
			out[i], pass[i] = v, true
			continue
		}
		c := channelOf(i, n, inner)
		s, z := p.Scale[c], p.Zero[c]
		q := min(max(roundToInt32(v*(1/s))+z, p.QMin()), p.QMax())
		out[i] = float32(q-z) * s
		lo, hi := p.Clip(c)
		pass[i] = v >= lo && v <= hi
	}
	y := tensor.Wrap(out, shape...)
	return backend.NewOpSince(start, "FakeQuant", y, []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
		gd := g.Data()
		dx := make([]float32, len(gd))
		for i, ok := range pass {
			if ok {
				dx[i] = gd[i]
			}
		}
		return []*tensor.Tensor{tensor.Wrap(dx, shape...)}
	}), nil
}

// LSQ fake-quantizes x symmetrically with a learned scale, as in Learned
// Step Size Quantization (Esser et al., 2020): x' = clamp(round(x/s),
// −Q, Q)·s with Q = 2^(bits−1)−1 and s the one-element tensor scale. The
// gradient to x is the straight-through estimator; the gradient to s is,
// per element, −x/s + round(x/s) inside the range and ±Q outside,
// multiplied by g = 1/sqrt(N·Q) to keep the scale's steps in proportion
// with the weights'.
func LSQ(x, scale *tensor.Tensor, bits int) (*tensor.Tensor, error) {
	start := backend.OpStart()
	if err := checkBits(bits); err != nil {
		return nil, err
	}
	if scale.Len() != 1 || scale.Data()[0] <= 0 {
		return nil, fmt.Errorf("quant: LSQ scale must be one positive value, got %v: %w", scale.Shape(), ErrRange)
	}
	s := scale.Data()[0]
	q := float32(int32(1)<<(bits-1) - 1)
	src := x.Data()
	out := make([]float32, len(src))
	ds := make([]float32, len(src)) // d x'/d s per element
	pass := make([]bool, len(src))
	for i, v := range src {
		r := v / s
		switch {
		case r <= -q:
			out[i], ds[i] = -q*s, -q
		case r >= q:
			out[i], ds[i] = q*s, q
		default:
			rr := float32(roundToInt32(r))
			out[i], ds[i], pass[i] = rr*s, rr-r, true
		}
	}
	gScale := float32(1 / math.Sqrt(float64(len(src))*float64(q)))
	shape := x.Shape()
	y := tensor.Wrap(out, shape...)
	return backend.NewOpSince(start, "LSQ", y, []*tensor.Tensor{x, scale}, func(g *tensor.Tensor) []*tensor.Tensor {
		gd := g.Data()
		dx := make([]float32, len(gd))
		var sum float32
		for i, ok := range pass {
			if ok {
				dx[i] = gd[i]
			}
			sum += gd[i] * ds[i]
		}
		return []*tensor.Tensor{tensor.Wrap(dx, shape...), tensor.Full(sum*gScale, scale.Shape()...)}
	}), nil
}
