package tensor

import (
	"fmt"
	"slices"
)

// Reshape returns a tensor with the same elements in a new shape; one
// dimension may be -1 and is inferred. The data is shared (a view).
func (t *Tensor) Reshape(shape ...int) *Tensor {
	if t.dev != nil {
		return deviceReshape(t, shape)
	}
	start := opStart()
	t.mustDense("Reshape")
	shape = reshapeTarget(t.shape, t.Len(), shape)
	out := &Tensor{data: t.data, shape: shape}
	return newOpSince(start, "Reshape", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{{data: g.data, shape: t.shape}}
	})
}

// reshapeTarget returns the shape a Reshape of a tensor of shape from
// (n elements) to shape gives, with a -1 dimension inferred; it panics with
// a *ShapeError when the shapes do not fit.
func reshapeTarget(from []int, n int, shape []int) []int {
	shape = cloneInts(shape)
	elements("Reshape", shape) // the products below must not wrap around
	infer, known := -1, 1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			panic(&ShapeError{Op: "Reshape", A: cloneInts(from), B: shape, Msg: "bad target shape"})
		default:
			known *= d
		}
	}
	if infer >= 0 && known > 0 {
		shape[infer] = n / known
	}
	if numel(shape) != n || infer >= 0 && known == 0 {
		panic(&ShapeError{Op: "Reshape", A: cloneInts(from), B: shape, Msg: "cannot reshape"})
	}
	return shape
}

// View is Reshape (PyTorch's name).
func (t *Tensor) View(shape ...int) *Tensor { return t.Reshape(shape...) }

// Flatten returns t as a 1-D tensor.
func (t *Tensor) Flatten() *Tensor { return t.Reshape(-1) }

// FlattenFrom keeps the axes before axis and flattens the rest into one:
// for a batch [N, C, H, W], FlattenFrom(1) gives [N, C·H·W].
func (t *Tensor) FlattenFrom(axis int) *Tensor {
	axis = t.axis("FlattenFrom", axis)
	shape := append(cloneInts(t.shape[:axis]), numel(t.shape[axis:]))
	return t.Reshape(shape...)
}

// Transpose returns the transpose of a 2-D tensor (a copy).
func (t *Tensor) Transpose() *Tensor {
	if len(t.shape) != 2 {
		panic(&ShapeError{Op: "Transpose", A: cloneInts(t.shape), Msg: "needs a 2-D tensor (use Permute)"})
	}
	return t.permute("Transpose", []int{1, 0})
}

// T is Transpose.
func (t *Tensor) T() *Tensor { return t.Transpose() }

// Permute reorders the axes: out.Shape()[i] == t.Shape()[axes[i]] (a copy).
func (t *Tensor) Permute(axes ...int) *Tensor { return t.permute("Permute", axes) }

func (t *Tensor) permute(name string, axes []int) *Tensor {
	start := opStart()
	if t.dev == nil {
		t.mustDense(name)
	}
	n := len(t.shape)
	if len(axes) != n {
		panic(&ShapeError{Op: name, A: cloneInts(t.shape), B: cloneInts(axes), Msg: "axes must list every axis once"})
	}
	perm := make([]int, n)
	seen := make([]bool, n)
	for i, a := range axes {
		if a < 0 {
			a += n
		}
		if a < 0 || a >= n || seen[a] {
			panic(&ShapeError{Op: name, A: cloneInts(t.shape), B: cloneInts(axes), Msg: "axes must list every axis once"})
		}
		seen[a] = true
		perm[i] = a
	}
	inv := make([]int, n)
	for i, a := range perm {
		inv[a] = i
	}
	if t.dev != nil {
		return devicePermute(start, name, t, perm, inv)
	}
	out := permuteData(t, perm)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{permuteData(g, inv)}
	})
}

// permuteData copies t with its axes reordered by perm.
func permuteData(t *Tensor, perm []int) *Tensor {
	n := len(t.shape)
	shape := make([]int, n)
	for i, a := range perm {
		shape[i] = t.shape[a]
	}
	out := newDense(shape)
	if len(out.data) == 0 {
		return out
	}
	if n == 2 && perm[0] == 1 { // blocked 2-D transpose for cache locality
		r, c := t.shape[0], t.shape[1]
		const bs = 32
		for i0 := 0; i0 < r; i0 += bs {
			for j0 := 0; j0 < c; j0 += bs {
				for i := i0; i < min(i0+bs, r); i++ {
					for j := j0; j < min(j0+bs, c); j++ {
						out.data[j*r+i] = t.data[i*c+j]
					}
				}
			}
		}
		return out
	}
	// strides of the source, in the order of the output axes
	srcStride := make([]int, n)
	st := 1
	for a := n - 1; a >= 0; a-- {
		for i, p := range perm {
			if p == a {
				srcStride[i] = st
			}
		}
		st *= t.shape[a]
	}
	idx := make([]int, n)
	src := 0
	for off := range out.data {
		out.data[off] = t.data[src]
		for ax := n - 1; ax >= 0; ax-- {
			idx[ax]++
			src += srcStride[ax]
			if idx[ax] < shape[ax] {
				break
			}
			src -= srcStride[ax] * idx[ax]
			idx[ax] = 0
		}
	}
	return out
}

// rowLen is the number of elements in one slice along axis 0.
func (t *Tensor) rowLen() int { return numel(t.shape[1:]) }

// IndexSelect gathers rows (slices along axis 0): out[i] = t[idx[i]].
// Indices may repeat. It works on sparse matrices too (the result is
// sparse, with no gradient).
func (t *Tensor) IndexSelect(idx []int) *Tensor {
	start := opStart()
	if len(t.shape) == 0 {
		panic(&ShapeError{Op: "IndexSelect", A: []int{}, Msg: "needs at least one axis"})
	}
	rows := t.shape[0]
	for _, r := range idx {
		if r < 0 || r >= rows {
			indexPanic("IndexSelect", r, rows)
		}
	}
	if t.sp != nil {
		return sparseRows(t, idx)
	}
	if t.dev != nil {
		return deviceIndexSelect(start, t, idx)
	}
	w := t.rowLen()
	shape := append([]int{len(idx)}, t.shape[1:]...)
	out := newDense(shape)
	parallelFor(len(idx), elemGrain/(w+1)+1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := idx[i]
			copy(out.data[i*w:(i+1)*w], t.data[r*w:(r+1)*w])
		}
	})
	return newOpSince(start, "IndexSelect", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{scatterAddData(g, idx, rows)}
	})
}

// scatterAddData returns n rows with src's rows summed into rows idx, in
// order (deterministic).
func scatterAddData(src *Tensor, idx []int, n int) *Tensor {
	shape := append([]int{n}, src.shape[1:]...)
	out := newDense(shape)
	w := src.rowLen()
	for i, r := range idx {
		d, s := out.data[r*w:(r+1)*w], src.data[i*w:(i+1)*w]
		for j, v := range s {
			d[j] += v
		}
	}
	return out
}

// checkScatter checks the operands of a scatter into n rows; src may live
// on a device.
func checkScatter(op string, src *Tensor, idx []int, n int) {
	if src.dev == nil {
		src.mustDense(op)
	}
	if len(src.shape) == 0 || src.shape[0] != len(idx) {
		panic(&ShapeError{Op: op, A: cloneInts(src.shape), B: []int{len(idx)}, Msg: "src must have one row per index"})
	}
	for _, r := range idx {
		if r < 0 || r >= n {
			indexPanic(op, r, n)
		}
	}
}

// IndexAdd returns a copy of t with the rows of src added at rows idx:
// out[idx[i]] += src[i] (indices may repeat; additions happen in order).
// src has shape [len(idx), t.Shape()[1:]...]. Gradients flow to t and src.
func (t *Tensor) IndexAdd(idx []int, src *Tensor) *Tensor {
	start := opStart()
	if t.dev == nil {
		t.mustDense("IndexAdd")
	}
	if len(t.shape) == 0 || !slices.Equal(t.shape[1:], src.shape[min(1, len(src.shape)):]) {
		panic(&ShapeError{Op: "IndexAdd", A: cloneInts(t.shape), B: cloneInts(src.shape), Msg: "rows differ in shape"})
	}
	checkScatter("IndexAdd", src, idx, t.shape[0])
	if t.dev != nil || src.dev != nil {
		return deviceScatter(start, "IndexAdd", t, src, idx, t.shape[0])
	}
	out := scatterAddData(src, idx, t.shape[0])
	for i, v := range t.data {
		out.data[i] += v
	}
	return newOpSince(start, "IndexAdd", out, []*Tensor{t, src}, func(g *Tensor) []*Tensor {
		var gs *Tensor
		if src.RequiresGrad() {
			gs = g.Detach().IndexSelect(idx)
		}
		return []*Tensor{g, gs}
	})
}

// ScatterAddRows returns a tensor of n rows where row r is the sum of the
// rows src[i] with idx[i] == r (the adjoint of IndexSelect).
func ScatterAddRows(src *Tensor, idx []int, n int) *Tensor {
	start := opStart()
	checkScatter("ScatterAddRows", src, idx, n)
	if src.dev != nil {
		return deviceScatter(start, "ScatterAddRows", nil, src, idx, n)
	}
	out := scatterAddData(src, idx, n)
	return newOpSince(start, "ScatterAddRows", out, []*Tensor{src}, func(g *Tensor) []*Tensor {
		return []*Tensor{g.Detach().IndexSelect(idx)}
	})
}

// Concat joins tensors along axis; all other axes must match.
func Concat(axis int, ts ...*Tensor) *Tensor {
	start := opStart()
	if len(ts) == 0 {
		panic(&ShapeError{Op: "Concat", Msg: "no tensors"})
	}
	first := ts[0]
	var be Backend // the device, when the operands live on one
	if first.dev == nil {
		first.mustDense("Concat")
	}
	axis = first.axis("Concat", axis)
	shape := cloneInts(first.shape)
	sizes := make([]int, len(ts))
	total := 0
	for i, t := range ts {
		if first.dev != nil || t.dev != nil {
			be = backendOf("Concat", first, t)
		} else {
			t.mustDense("Concat")
		}
		if len(t.shape) != len(shape) {
			panic(&ShapeError{Op: "Concat", A: cloneInts(first.shape), B: cloneInts(t.shape)})
		}
		for a := range shape {
			if a != axis && t.shape[a] != shape[a] {
				panic(&ShapeError{Op: "Concat", A: cloneInts(first.shape), B: cloneInts(t.shape)})
			}
		}
		sizes[i] = t.shape[axis]
		total += sizes[i]
	}
	shape[axis] = total
	if be != nil {
		return deviceConcat(start, be, axis, shape, sizes, ts)
	}
	out := newDense(shape)
	outer, _, inner := split3(shape, axis)
	off := 0
	for i, t := range ts {
		w := sizes[i] * inner
		for o := 0; o < outer; o++ {
			copy(out.data[o*total*inner+off:o*total*inner+off+w], t.data[o*w:(o+1)*w])
		}
		off += w
	}
	return newOpSince(start, "Concat", out, ts, func(g *Tensor) []*Tensor {
		return splitData(g, axis, sizes)
	})
}

// splitData cuts t along axis into pieces of the given sizes.
func splitData(t *Tensor, axis int, sizes []int) []*Tensor {
	outer, total, inner := split3(t.shape, axis)
	res := make([]*Tensor, len(sizes))
	off := 0
	for i, sz := range sizes {
		shape := cloneInts(t.shape)
		shape[axis] = sz
		p := newDense(shape)
		w := sz * inner
		for o := 0; o < outer; o++ {
			copy(p.data[o*w:(o+1)*w], t.data[o*total*inner+off:o*total*inner+off+w])
		}
		off += w
		res[i] = p
	}
	return res
}

// Split cuts t along axis into pieces of the given sizes, which must add up
// to the axis length.
func (t *Tensor) Split(axis int, sizes ...int) []*Tensor {
	if t.dev == nil {
		t.mustDense("Split")
	}
	axis = t.axis("Split", axis)
	sum := 0
	for _, s := range sizes {
		if s < 0 {
			panic(&ShapeError{Op: "Split", A: cloneInts(t.shape), B: cloneInts(sizes), Msg: "negative size"})
		}
		sum += s
	}
	if sum != t.shape[axis] {
		panic(&ShapeError{Op: "Split", A: cloneInts(t.shape), B: cloneInts(sizes), Msg: fmt.Sprintf("sizes do not add up to axis %d", axis)})
	}
	res := make([]*Tensor, len(sizes))
	off := 0
	for i, s := range sizes {
		res[i] = t.Narrow(axis, off, s)
		off += s
	}
	return res
}

// Narrow returns the slice [start, start+length) of t along axis (a copy).
func (t *Tensor) Narrow(axis, start, length int) *Tensor {
	t0 := opStart()
	if t.dev == nil {
		t.mustDense("Narrow")
	}
	axis = t.axis("Narrow", axis)
	if start < 0 || length < 0 || start+length > t.shape[axis] {
		panic(&ShapeError{Op: "Narrow", A: cloneInts(t.shape), B: []int{start, length}, Msg: fmt.Sprintf("range out of bounds on axis %d", axis)})
	}
	if t.dev != nil {
		return deviceNarrow(t0, t, axis, start, length)
	}
	sizes := []int{start, length, t.shape[axis] - start - length}
	out := splitData(t, axis, sizes)[1]
	return newOpSince(t0, "Narrow", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		shape := cloneInts(t.shape)
		shape[axis] = start
		before := newDense(shape)
		shape[axis] = sizes[2]
		after := newDense(shape)
		var d *Tensor
		NoGrad(func() { d = Concat(axis, before, g, after) })
		return []*Tensor{d}
	})
}
