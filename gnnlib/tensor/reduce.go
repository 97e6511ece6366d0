package tensor

import (
	"math"
)

// split3 views shape as [outer, n, inner] around axis.
func split3(shape []int, axis int) (outer, n, inner int) {
	return numel(shape[:axis]), shape[axis], numel(shape[axis+1:])
}

// reducedShape is shape without axis, or with it set to 1 when keepdim.
func reducedShape(shape []int, axis int, keepdim bool) []int {
	out := make([]int, 0, len(shape))
	out = append(out, shape[:axis]...)
	if keepdim {
		out = append(out, 1)
	}
	return append(out, shape[axis+1:]...)
}

// Sum returns the sum of all elements as a scalar (zero-axis) tensor. It
// accumulates in float64 for accuracy.
func (t *Tensor) Sum() *Tensor {
	if t.dev != nil {
		return deviceSum("Sum", t, 1)
	}
	start := opStart()
	t.mustDense("Sum")
	var acc float64
	for _, v := range t.data {
		acc += float64(v)
	}
	out := Scalar(float32(acc))
	return newOpSince(start, "Sum", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Full(g.data[0], t.shape...)}
	})
}

// Mean returns the mean of all elements as a scalar tensor.
func (t *Tensor) Mean() *Tensor {
	if t.dev != nil {
		return deviceSum("Mean", t, 1/float32(t.Len()))
	}
	start := opStart()
	t.mustDense("Mean")
	var acc float64
	for _, v := range t.data {
		acc += float64(v)
	}
	n := float32(len(t.data))
	out := Scalar(float32(acc / float64(len(t.data))))
	return newOpSince(start, "Mean", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Full(g.data[0]/n, t.shape...)}
	})
}

// sumAxisData sums along axis without autograd, scaled by scale.
func sumAxisData(t *Tensor, axis int, keepdim bool, scale float32) *Tensor {
	outer, n, inner := split3(t.shape, axis)
	out := newDense(reducedShape(t.shape, axis, keepdim))
	parallelFor(outer, elemGrain/(n*inner+1)+1, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			dst := out.data[o*inner : (o+1)*inner]
			src := t.data[o*n*inner:]
			if inner == 1 {
				var acc float32
				for _, v := range src[:n] {
					acc += v
				}
				dst[0] = acc * scale
				continue
			}
			for k := 0; k < n; k++ {
				row := src[k*inner : (k+1)*inner]
				for i, v := range row {
					dst[i] += v
				}
			}
			if scale != 1 {
				for i := range dst {
					dst[i] *= scale
				}
			}
		}
	})
	return out
}

// SumAxis sums along axis (negative counts from the end); keepdim keeps the
// reduced axis with length 1.
func (t *Tensor) SumAxis(axis int, keepdim bool) *Tensor {
	return t.sumAxis("SumAxis", axis, keepdim, false)
}

// MeanAxis averages along axis; keepdim keeps the reduced axis with length 1.
func (t *Tensor) MeanAxis(axis int, keepdim bool) *Tensor {
	return t.sumAxis("MeanAxis", axis, keepdim, true)
}

func (t *Tensor) sumAxis(name string, axis int, keepdim, mean bool) *Tensor {
	start := opStart()
	if t.dev == nil {
		t.mustDense(name)
	}
	axis = t.axis(name, axis)
	scale := float32(1)
	if mean {
		scale = 1 / float32(t.shape[axis])
	}
	if t.dev != nil {
		return deviceSumAxis(name, t, axis, keepdim, scale)
	}
	out := sumAxisData(t, axis, keepdim, scale)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		// broadcast g back over the reduced axis
		gk := &Tensor{data: g.data, shape: reducedShape(t.shape, axis, true)}
		e := expand(gk, t.shape)
		if e == gk {
			e = gk.Clone()
		}
		if scale != 1 {
			for i := range e.data {
				e.data[i] *= scale
			}
		}
		return []*Tensor{e}
	})
}

// argReduce finds, for each slice along axis, the index of the first
// maximum (max true) or minimum.
func argReduce(t *Tensor, axis int, wantMax bool) (idx []int, vals []float32) {
	outer, n, inner := split3(t.shape, axis)
	idx = make([]int, outer*inner)
	vals = make([]float32, outer*inner)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			best, bi := t.data[base], 0
			for k := 1; k < n; k++ {
				v := t.data[base+k*inner]
				if (wantMax && v > best) || (!wantMax && v < best) || (best != best && v == v) {
					best, bi = v, k
				}
			}
			idx[o*inner+i], vals[o*inner+i] = bi, best
		}
	}
	return idx, vals
}

func (t *Tensor) extremum(name string, axis int, keepdim, wantMax bool) *Tensor {
	start := opStart()
	t.mustDense(name)
	axis = t.axis(name, axis)
	if t.shape[axis] == 0 {
		panic(&ShapeError{Op: name, A: cloneInts(t.shape), Msg: "empty axis"})
	}
	idx, vals := argReduce(t, axis, wantMax)
	out := &Tensor{data: vals, shape: reducedShape(t.shape, axis, keepdim)}
	_, n, inner := split3(t.shape, axis)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		d := newDense(t.shape)
		for j, k := range idx {
			o, i := j/inner, j%inner
			d.data[o*n*inner+k*inner+i] = g.data[j]
		}
		return []*Tensor{d}
	})
}

// Max returns the maximum along axis; the gradient flows to the first
// maximal element of each slice.
func (t *Tensor) Max(axis int, keepdim bool) *Tensor { return t.extremum("Max", axis, keepdim, true) }

// Min returns the minimum along axis; the gradient flows to the first
// minimal element of each slice.
func (t *Tensor) Min(axis int, keepdim bool) *Tensor { return t.extremum("Min", axis, keepdim, false) }

// ArgMax returns the index of the first maximum along axis for every slice,
// in row-major order of the remaining axes (for [N, C] and axis 1: one class
// per row). It records no gradient.
func (t *Tensor) ArgMax(axis int) []int {
	if t.dev != nil { // computed on the device; the indices come back
		return deviceArgReduce("ArgMax", t, axis, true)
	}
	t.mustDense("ArgMax")
	idx, _ := argReduce(t, t.axis("ArgMax", axis), true)
	return idx
}

// ArgMin is ArgMax for the minimum.
func (t *Tensor) ArgMin(axis int) []int {
	if t.dev != nil {
		return deviceArgReduce("ArgMin", t, axis, false)
	}
	t.mustDense("ArgMin")
	idx, _ := argReduce(t, t.axis("ArgMin", axis), false)
	return idx
}

// softmaxData computes softmax (log false) or log-softmax along axis.
func softmaxData(t *Tensor, axis int, log bool) *Tensor {
	outer, n, inner := split3(t.shape, axis)
	out := newDense(t.shape)
	parallelFor(outer*inner, elemGrain/(n+1)+1, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			o, i := j/inner, j%inner
			base := o*n*inner + i
			m := float32(math.Inf(-1))
			for k := 0; k < n; k++ {
				if v := t.data[base+k*inner]; v > m {
					m = v
				}
			}
			if math.IsInf(float64(m), -1) {
				m = 0 // all -Inf: avoid -Inf - -Inf = NaN
			}
			var s float64
			for k := 0; k < n; k++ {
				e := math.Exp(float64(t.data[base+k*inner] - m))
				s += e
				if !log {
					out.data[base+k*inner] = float32(e)
				}
			}
			if log {
				ls := float32(math.Log(s)) + m
				for k := 0; k < n; k++ {
					out.data[base+k*inner] = t.data[base+k*inner] - ls
				}
			} else {
				inv := float32(1 / s)
				for k := 0; k < n; k++ {
					out.data[base+k*inner] *= inv
				}
			}
		}
	})
	return out
}

// Softmax returns exp(t)/sum(exp(t)) along axis, computed stably (the max is
// subtracted first).
func (t *Tensor) Softmax(axis int) *Tensor {
	if t.dev != nil {
		return deviceSoftmax("Softmax", t, t.axis("Softmax", axis), false)
	}
	start := opStart()
	t.mustDense("Softmax")
	axis = t.axis("Softmax", axis)
	out := softmaxData(t, axis, false)
	return newOpSince(start, "Softmax", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		// dx = y * (g - sum(g*y))
		outer, n, inner := split3(t.shape, axis)
		d := newDense(t.shape)
		for j := 0; j < outer*inner; j++ {
			base := (j/inner)*n*inner + j%inner
			var s float32
			for k := 0; k < n; k++ {
				s += g.data[base+k*inner] * out.data[base+k*inner]
			}
			for k := 0; k < n; k++ {
				p := base + k*inner
				d.data[p] = out.data[p] * (g.data[p] - s)
			}
		}
		return []*Tensor{d}
	})
}

// LogSoftmax returns t - logsumexp(t) along axis, computed stably.
func (t *Tensor) LogSoftmax(axis int) *Tensor {
	if t.dev != nil {
		return deviceSoftmax("LogSoftmax", t, t.axis("LogSoftmax", axis), true)
	}
	start := opStart()
	t.mustDense("LogSoftmax")
	axis = t.axis("LogSoftmax", axis)
	out := softmaxData(t, axis, true)
	return newOpSince(start, "LogSoftmax", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		// dx = g - softmax * sum(g)
		outer, n, inner := split3(t.shape, axis)
		d := newDense(t.shape)
		for j := 0; j < outer*inner; j++ {
			base := (j/inner)*n*inner + j%inner
			var s float32
			for k := 0; k < n; k++ {
				s += g.data[base+k*inner]
			}
			for k := 0; k < n; k++ {
				p := base + k*inner
				d.data[p] = g.data[p] - float32(math.Exp(float64(out.data[p])))*s
			}
		}
		return []*Tensor{d}
	})
}
