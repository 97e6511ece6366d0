package tensor

import "slices"

// broadcastShape returns the NumPy broadcast of shapes a and b or panics
// with a *ShapeError naming op.
func broadcastShape(op string, a, b []int) []int {
	n := len(a)
	if len(b) > n {
		n = len(b)
	}
	out := make([]int, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			panic(&ShapeError{Op: op, A: cloneInts(a), B: cloneInts(b), Msg: "shapes do not broadcast"})
		}
	}
	return out
}

// bcastStrides returns the strides of a tensor of shape s viewed as shape
// out (s broadcast to out): 0 along broadcast axes.
func bcastStrides(s, out []int) []int {
	st := make([]int, len(out))
	stride := 1
	for i := len(out) - 1; i >= 0; i-- {
		j := len(s) - len(out) + i
		if j < 0 {
			continue
		}
		if s[j] != 1 {
			st[i] = stride
		}
		stride *= s[j]
	}
	return st
}

// isSuffixRepeat reports whether a tensor of shape s broadcast to out is
// just s repeated: s equals out's trailing axes after dropping leading 1s.
func isSuffixRepeat(s, out []int) bool {
	k := 0
	for k < len(s) && s[k] == 1 {
		k++
	}
	s = s[k:]
	if len(s) > len(out) {
		return false
	}
	return slices.Equal(s, out[len(out)-len(s):])
}

// expand materialises t broadcast to shape out (returns t when equal).
func expand(t *Tensor, out []int) *Tensor {
	if slices.Equal(t.shape, out) {
		return t
	}
	r := newDense(out)
	if len(r.data) == 0 {
		return r
	}
	if isSuffixRepeat(t.shape, out) {
		m := len(t.data)
		for off := 0; off < len(r.data); off += m {
			copy(r.data[off:off+m], t.data)
		}
		return r
	}
	st := bcastStrides(t.shape, out)
	idx := make([]int, len(out))
	last := len(out) - 1
	src := 0
	inner, innerSt := out[last], st[last]
	for off := 0; off < len(r.data); off += inner {
		row := r.data[off : off+inner]
		if innerSt == 0 {
			v := t.data[src]
			for i := range row {
				row[i] = v
			}
		} else {
			copy(row, t.data[src:src+inner])
		}
		// advance the multi-index over all axes but the last
		for ax := last - 1; ax >= 0; ax-- {
			idx[ax]++
			src += st[ax]
			if idx[ax] < out[ax] {
				break
			}
			src -= st[ax] * idx[ax]
			idx[ax] = 0
		}
	}
	return r
}

// sumTo reduces g (shape out) to shape s by summing over broadcast axes: the
// adjoint of expand. The order of additions is fixed, so it is deterministic.
func sumTo(g *Tensor, s []int) *Tensor {
	if slices.Equal(g.shape, s) {
		return g
	}
	r := newDense(s)
	out := g.shape
	if len(g.data) == 0 {
		return r
	}
	if isSuffixRepeat(s, out) {
		m := len(r.data)
		for off := 0; off < len(g.data); off += m {
			d, x := r.data, g.data[off:off+m]
			for i := range d {
				d[i] += x[i]
			}
		}
		return r
	}
	st := bcastStrides(s, out)
	idx := make([]int, len(out))
	last := len(out) - 1
	dst := 0
	inner, innerSt := out[last], st[last]
	for off := 0; off < len(g.data); off += inner {
		row := g.data[off : off+inner]
		if innerSt == 0 {
			var acc float32
			for _, v := range row {
				acc += v
			}
			r.data[dst] += acc
		} else {
			d := r.data[dst : dst+inner]
			for i, v := range row {
				d[i] += v
			}
		}
		for ax := last - 1; ax >= 0; ax-- {
			idx[ax]++
			dst += st[ax]
			if idx[ax] < out[ax] {
				break
			}
			dst -= st[ax] * idx[ax]
			idx[ax] = 0
		}
	}
	return r
}
