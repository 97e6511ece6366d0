package tensor

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Tensor is an n-dimensional array of float32 values in row-major order, or
// (when IsSparse reports true) a 2-D matrix in compressed sparse row form.
//
// A Tensor produced by an op while gradients are enabled remembers the op
// and its inputs, so that Backward can compute gradients. Tensors are not
// safe for concurrent mutation; concurrent reads are fine.
type Tensor struct {
	data  []float32 // dense values, len == product(shape); nil when sparse
	shape []int
	sp    *csr // non-nil for a sparse tensor
	// dev holds the values of a tensor on a device (data is then nil);
	// nil for a tensor in host memory, so the CPU path costs one check.
	dev Storage

	requiresGrad bool    // set by SetRequiresGrad (leaves)
	grad         *Tensor // accumulated gradient of a leaf
	node         *node   // how this tensor was computed; nil for leaves
}

// numel returns the number of elements of a shape.
func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// checkShape panics with a *ShapeError on a negative dimension and with
// an error wrapping ErrTooLarge on a shape whose size overflows int.
func checkShape(op string, shape []int) {
	for _, d := range shape {
		if d < 0 {
			panic(&ShapeError{Op: op, A: cloneInts(shape), Msg: "negative dimension"})
		}
	}
	elements(op, shape)
}

func cloneInts(s []int) []int {
	if s == nil {
		return nil
	}
	return append([]int(nil), s...)
}

// newDense allocates a zeroed dense tensor; the shape slice is copied. A
// shape too large to allocate panics with an error wrapping ErrTooLarge
// before the allocation.
func newDense(shape []int) *Tensor {
	return &Tensor{data: make([]float32, checkedLen("New", shape)), shape: cloneInts(shape)}
}

// Zeros returns a tensor of the given shape filled with 0. With no shape it
// returns a scalar (zero axes).
func Zeros(shape ...int) *Tensor {
	checkShape("Zeros", shape)
	return newDense(shape)
}

// Ones returns a tensor of the given shape filled with 1.
func Ones(shape ...int) *Tensor { return Full(1, shape...) }

// Full returns a tensor of the given shape filled with v.
func Full(v float32, shape ...int) *Tensor {
	checkShape("Full", shape)
	t := newDense(shape)
	for i := range t.data {
		t.data[i] = v
	}
	return t
}

// ZerosLike returns a zero tensor with the shape of t, on t's device.
func ZerosLike(t *Tensor) *Tensor {
	if t.dev != nil {
		return deviceFull(t.dev.Backend(), 0, t.shape)
	}
	return newDense(t.shape)
}

// OnesLike returns a tensor of ones with the shape of t, on t's device.
func OnesLike(t *Tensor) *Tensor {
	if t.dev != nil {
		return deviceFull(t.dev.Backend(), 1, t.shape)
	}
	return Full(1, t.shape...)
}

// FromSlice returns a tensor holding a copy of data with the given shape.
// With no shape the tensor is 1-D of length len(data). It panics with a
// *ShapeError when len(data) does not match the shape.
func FromSlice(data []float32, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	checkShape("FromSlice", shape)
	if numel(shape) != len(data) {
		panic(&ShapeError{Op: "FromSlice", A: []int{len(data)}, B: cloneInts(shape), Msg: "data length does not match shape"})
	}
	return &Tensor{data: append([]float32(nil), data...), shape: cloneInts(shape)}
}

// Wrap is FromSlice without the copy: the tensor takes ownership of data,
// which the caller must not modify afterwards except through the tensor.
// It is meant for compiled code (such as gnnlib/nn) that fills a fresh
// buffer and hands it over.
func Wrap(data []float32, shape ...int) *Tensor {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	checkShape("Wrap", shape)
	if numel(shape) != len(data) {
		panic(&ShapeError{Op: "Wrap", A: []int{len(data)}, B: cloneInts(shape), Msg: "data length does not match shape"})
	}
	return &Tensor{data: data, shape: cloneInts(shape)}
}

// FromFloat64s returns a tensor of the given shape with data converted to
// float32.
func FromFloat64s(data []float64, shape ...int) *Tensor {
	f := make([]float32, len(data))
	for i, v := range data {
		f[i] = float32(v)
	}
	return Wrap(f, shape...)
}

// Scalar returns a tensor with zero axes holding v.
func Scalar(v float32) *Tensor { return &Tensor{data: []float32{v}, shape: []int{}} }

// Arange returns the 1-D tensor [start, start+step, ...] of the values
// below stop (above stop for a negative step), like numpy.arange. A NaN or
// infinite argument panics with an error wrapping ErrNotFinite, and a
// count too large to allocate with one wrapping ErrTooLarge.
func Arange(start, stop, step float64) *Tensor {
	for _, v := range []float64{start, stop, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			panic(fmt.Errorf("tensor: Arange(%v, %v, %v): %w", start, stop, step, ErrNotFinite))
		}
	}
	if step == 0 {
		panic(&ShapeError{Op: "Arange", Msg: "zero step"})
	}
	count := math.Ceil((stop - start) / step) // may be +Inf: (1e308 - -1e308)/1e-300
	if count > float64(math.MaxInt/4) || count*4 > float64(maxBytes()) {
		panic(fmt.Errorf("tensor: Arange(%v, %v, %v): %g values: %w", start, stop, step, count, ErrTooLarge))
	}
	n := max(int(count), 0)
	t := newDense([]int{n})
	for i := range t.data {
		t.data[i] = float32(start + float64(i)*step)
	}
	return t
}

// Eye returns the n×n identity matrix.
func Eye(n int) *Tensor {
	t := Zeros(n, n)
	for i := 0; i < n; i++ {
		t.data[i*n+i] = 1
	}
	return t
}

// Data returns the underlying values in row-major order. The slice aliases
// the tensor: writing to it changes the tensor (which is how optimisers
// update parameters in place). It panics for a sparse tensor.
func (t *Tensor) Data() []float32 {
	t.mustDense("Data")
	return t.data
}

// Float64s returns a copy of the values converted to float64 (handy for
// gonum and plots).
func (t *Tensor) Float64s() []float64 {
	if t.dev != nil { // an explicit read: copy back
		t = t.moved(nil)
	}
	t.mustDense("Float64s")
	f := make([]float64, len(t.data))
	for i, v := range t.data {
		f[i] = float64(v)
	}
	return f
}

// Shape returns a copy of the tensor's shape.
func (t *Tensor) Shape() []int { return cloneInts(t.shape) }

// Dims returns the number of axes (0 for a scalar).
func (t *Tensor) Dims() int { return len(t.shape) }

// Size returns the length of one axis; negative axes count from the end.
func (t *Tensor) Size(axis int) int { return t.shape[t.axis("Size", axis)] }

// Len returns the number of elements (rows×cols for a sparse matrix).
func (t *Tensor) Len() int { return numel(t.shape) }

// axis normalises a possibly negative axis, panicking when out of range.
func (t *Tensor) axis(op string, a int) int {
	n := len(t.shape)
	if a < 0 {
		a += n
	}
	if a < 0 || a >= n {
		panic(&ShapeError{Op: op, A: cloneInts(t.shape), Msg: fmt.Sprintf("axis %d out of range", a)})
	}
	return a
}

// offset converts a multi-index to a flat offset.
func (t *Tensor) offset(op string, idx []int) int {
	if len(idx) != len(t.shape) {
		panic(&ShapeError{Op: op, A: cloneInts(t.shape), B: cloneInts(idx), Msg: "index has the wrong number of axes"})
	}
	off := 0
	for i, v := range idx {
		if v < 0 {
			v += t.shape[i]
		}
		if v < 0 || v >= t.shape[i] {
			panic(&ShapeError{Op: op, A: cloneInts(t.shape), B: cloneInts(idx), Msg: "index out of range"})
		}
		off = off*t.shape[i] + v
	}
	return off
}

// At returns the element at the given multi-index (negative indices count
// from the end). It works on sparse tensors too.
func (t *Tensor) At(idx ...int) float32 {
	if t.dev != nil { // an explicit read: copy back
		return t.moved(nil).At(idx...)
	}
	if t.sp != nil {
		t.offset("At", idx) // bounds check
		r, c := idx[0], idx[1]
		if r < 0 {
			r += t.shape[0]
		}
		if c < 0 {
			c += t.shape[1]
		}
		return t.sp.at(r, c)
	}
	return t.data[t.offset("At", idx)]
}

// Set stores v at the given multi-index. It is meant for building small
// tensors by hand; it does not record anything for autograd.
func (t *Tensor) Set(v float32, idx ...int) {
	t.mustDense("Set")
	t.data[t.offset("Set", idx)] = v
}

// Item returns the value of a one-element tensor.
func (t *Tensor) Item() float32 {
	if t.dev != nil && t.Len() == 1 { // an explicit read: copy the value back
		return t.moved(nil).data[0]
	}
	t.mustDense("Item")
	if len(t.data) != 1 {
		panic(&ShapeError{Op: "Item", A: cloneInts(t.shape), Msg: "not a one-element tensor"})
	}
	return t.data[0]
}

// Clone returns a copy of t (dense or sparse) that shares nothing with it and
// is not connected to the autograd graph (like torch's clone().detach()).
// Use t.Add(Scalar(0)) or an op to keep the graph.
func (t *Tensor) Clone() *Tensor {
	if t.dev != nil {
		return deviceClone(t)
	}
	if t.sp != nil {
		return &Tensor{shape: cloneInts(t.shape), sp: t.sp.clone()}
	}
	return &Tensor{data: append([]float32(nil), t.data...), shape: cloneInts(t.shape)}
}

// SameShape reports whether t and u have equal shapes.
func (t *Tensor) SameShape(u *Tensor) bool { return slices.Equal(t.shape, u.shape) }

// AllClose reports whether t and u have the same shape and every pair of
// elements satisfies |a-b| <= atol + rtol*|b|.
func AllClose(t, u *Tensor, rtol, atol float64) bool {
	if !t.SameShape(u) {
		return false
	}
	a, b := t.dense(), u.dense()
	if a.dev != nil {
		a = a.moved(nil)
	}
	if b.dev != nil {
		b = b.moved(nil)
	}
	for i := range a.data {
		x, y := float64(a.data[i]), float64(b.data[i])
		if math.IsNaN(x) || math.IsNaN(y) || math.Abs(x-y) > atol+rtol*math.Abs(y) {
			return false
		}
	}
	return true
}

// dense returns t itself when dense and a dense copy when sparse.
func (t *Tensor) dense() *Tensor {
	if t.sp != nil {
		return t.sp.toDense(t.shape[0], t.shape[1])
	}
	return t
}

// previewEdge is how many leading and trailing entries String shows per axis
// once an axis is longer than previewMax.
const (
	previewEdge = 3
	previewMax  = 6
)

// String formats the tensor like PyTorch: tensor([[1, 2], [3, 4]], shape=[2 2]),
// eliding the middle of long axes with "...".
func (t *Tensor) String() string {
	if t == nil {
		return "tensor(nil)"
	}
	if t.dev != nil {
		return deviceString(t)
	}
	var b strings.Builder
	if t.sp != nil {
		fmt.Fprintf(&b, "sparse(nnz=%d, shape=%v)", len(t.sp.values), t.shape)
		return b.String()
	}
	b.WriteString("tensor(")
	if len(t.shape) == 0 {
		b.WriteString(formatFloat(t.data[0]))
	} else {
		t.writeAxis(&b, 0, 0)
	}
	fmt.Fprintf(&b, ", shape=%v", t.shape)
	if t.node != nil {
		fmt.Fprintf(&b, ", op=%s", t.node.name)
	} else if t.requiresGrad {
		b.WriteString(", requires_grad")
	}
	b.WriteString(")")
	return b.String()
}

func (t *Tensor) writeAxis(b *strings.Builder, ax, off int) {
	n := t.shape[ax]
	stride := numel(t.shape[ax+1:])
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if n > previewMax && i == previewEdge {
			b.WriteString("..., ")
			i = n - previewEdge
		}
		if ax == len(t.shape)-1 {
			b.WriteString(formatFloat(t.data[off+i]))
		} else {
			t.writeAxis(b, ax+1, off+i*stride)
		}
		if i < n-1 {
			b.WriteString(", ")
		}
	}
	b.WriteByte(']')
}

func formatFloat(v float32) string {
	return fmt.Sprintf("%.4g", v)
}
