package cuda

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ColSum sums x over its rows.
func (d *backend) ColSum(x *tensor.Tensor) (tensor.Storage, error) {
	if h, ok := d.halfView(x); ok {
		return d.colSumHalf(h) // halfstore.go
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(1, v.Cols)
	if err != nil {
		return nil, err
	}
	return out, ColSum(out, v)
}

// Sum returns the sum of x's values as a 1x1 tensor.
func (d *backend) Sum(x *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Zeros(1, 1)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("sum_all", min(d.gridFor(n, 256), 4*d.nsm), 256, v, out, n)
}

// int32Max is the largest size the kernels take in an int argument.
const int32Max = math.MaxInt32

// axisLines views shape around axis as [outer, n, inner] and returns the
// number of lines outer·inner with n and inner, failing when the kernels'
// int arguments cannot hold them.
func axisLines(op string, shape []int, axis int) (lines int64, n, inner int, err error) {
	if axis < 0 || axis >= len(shape) {
		return 0, 0, 0, shapeErr(op, "axis %d of shape %v", axis, shape)
	}
	outer, inner := 1, 1
	for _, v := range shape[:axis] {
		outer *= v
	}
	for _, v := range shape[axis+1:] {
		inner *= v
	}
	n = shape[axis]
	if n > int32Max || inner > int32Max {
		return 0, 0, 0, fmt.Errorf("gnnlib/cuda: %s: shape %v too large for the kernels: %w", op, shape, tensor.ErrNotOnDevice)
	}
	return int64(outer) * int64(inner), n, inner, nil
}

// SumAxis returns x summed over axis, times scale.
func (d *backend) SumAxis(x *tensor.Tensor, axis int, scale float32) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	lines, n, inner, err := axisLines("SumAxis", x.Shape(), axis)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(1, int(lines))
	if err != nil || lines == 0 {
		return out, err
	}
	return out, d.launch("sum_lines", d.gridFor(lines, 256), 256, v, out, lines, n, inner, scale)
}

// ExpandAxis returns g repeated shape[axis] times along axis, times scale.
func (d *backend) ExpandAxis(g *tensor.Tensor, shape []int, axis int, scale float32) (tensor.Storage, error) {
	v, err := d.view(g)
	if err != nil {
		return nil, err
	}
	lines, n, inner, err := axisLines("ExpandAxis", shape, axis)
	if err != nil {
		return nil, err
	}
	if int64(v.Len()) != lines {
		return nil, shapeErr("ExpandAxis", "%d values into shape %v without axis %d", v.Len(), shape, axis)
	}
	rows, cols := matrixShape(shape)
	out, err := d.Empty(rows, cols)
	total := int64(out.Len())
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("expand_lines", d.gridFor(total, 256), 256, v, out, total, n, inner, scale)
}

// Softmax returns the softmax (log: log-softmax) of x along axis, a warp
// per line.
func (d *backend) Softmax(x *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	lines, n, inner, err := axisLines("Softmax", x.Shape(), axis)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	return out, d.launch("softmax_lines", d.gridFor(lines*32, 256), 256, v, out, lines, n, inner, log)
}

// SoftmaxGrad returns the gradient of Softmax's input from its output y
// and the output's gradient g.
func (d *backend) SoftmaxGrad(g, y *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
	vs, err := d.views(g, y)
	if err != nil {
		return nil, err
	}
	if vs[0].Len() != vs[1].Len() {
		return nil, shapeErr("SoftmaxGrad", "gradient of %d values, output of %d", vs[0].Len(), vs[1].Len())
	}
	lines, n, inner, err := axisLines("SoftmaxGrad", y.Shape(), axis)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(vs[1].Rows, vs[1].Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	return out, d.launch("softmax_lines_bwd", d.gridFor(lines*32, 256), 256, vs[0], vs[1], out, lines, n, inner, log)
}

// ArgReduce returns the index of the first maximum (minimum unless
// wantMax) along axis of every line; only the indices are copied back.
func (d *backend) ArgReduce(x *tensor.Tensor, axis int, wantMax bool) ([]int, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	lines, n, inner, err := axisLines("ArgReduce", x.Shape(), axis)
	if err != nil {
		return nil, err
	}
	if lines == 0 {
		return []int{}, nil
	}
	if n == 0 {
		return nil, shapeErr("ArgReduce", "empty axis %d of %v", axis, x.Shape())
	}
	arg, err := d.Empty(1, int(lines)) // int32 values
	if err != nil {
		return nil, err
	}
	defer arg.Free()
	if err := d.launch("argext_lines", d.gridFor(lines, 256), 256, v, arg, lines, n, inner, wantMax); err != nil {
		return nil, err
	}
	return ArgHost(arg)
}

// uploadIndex checks that every index is in [0, n) and uploads them as
// int32, with each followed by second[i] when second is not nil.
func (d *Device) uploadIndex(op string, idx []int, n int, second []int) (*buffer, error) {
	if n > int32Max {
		return nil, fmt.Errorf("gnnlib/cuda: %s: %d rows: %w", op, n, tensor.ErrNotOnDevice)
	}
	k := 1
	if second != nil {
		k = 2
	}
	raw := make([]int32, 0, k*len(idx))
	for i, r := range idx {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("gnnlib/cuda: %s: index %d not in [0, %d): %w", op, r, n, tensor.ErrIndex)
		}
		raw = append(raw, int32(r))
		if second != nil {
			raw = append(raw, int32(second[i]))
		}
	}
	return d.uploadInts(raw)
}

// rowShape returns the rows along axis 0 of shape and the values in each.
func rowShape(shape []int) (rows, width int) {
	if len(shape) == 0 {
		return 1, 1
	}
	width = 1
	for _, v := range shape[1:] {
		width *= v
	}
	return shape[0], width
}

// Gather returns the rows idx of x (IndexSelect).
func (d *backend) Gather(x *tensor.Tensor, idx []int) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	rows, w := rowShape(x.Shape())
	out, err := d.Empty(len(idx), w)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	ib, err := d.uploadIndex("Gather", idx, rows, nil)
	if err != nil {
		return nil, err
	}
	defer ib.release()
	n := int64(len(idx))
	return out, d.launch("gather_rows", d.gridFor(n*int64(w), 256), 256, v, ib, out, n, int64(w))
}

// ScatterAdd returns n rows, row r the sum of the rows src[i] with
// idx[i] == r, added atomically (in no fixed order).
func (d *backend) ScatterAdd(src *tensor.Tensor, idx []int, n int) (tensor.Storage, error) {
	v, err := d.view(src)
	if err != nil {
		return nil, err
	}
	rows, w := rowShape(src.Shape())
	if rows != len(idx) {
		return nil, shapeErr("ScatterAdd", "%d rows for %d indices", rows, len(idx))
	}
	out, err := d.Zeros(n, w)
	if err != nil || out.Len() == 0 || len(idx) == 0 {
		return out, err
	}
	ib, err := d.uploadIndex("ScatterAdd", idx, n, nil)
	if err != nil {
		return nil, err
	}
	defer ib.release()
	k := int64(len(idx))
	return out, d.launch("scatter_add_rows", d.gridFor(k*int64(w), 256), 256, v, ib, out, k, int64(w))
}

// blocks views a tensor of shape around axis as outer rows of
// shape[axis]·inner values, the layout in which Concat and Narrow copy
// column ranges (CopyCols).
func blocks(op string, shape []int, axis int) (outer, cols, inner int, err error) {
	if axis < 0 || axis >= len(shape) {
		return 0, 0, 0, shapeErr(op, "axis %d of shape %v", axis, shape)
	}
	outer, inner = 1, 1
	for _, v := range shape[:axis] {
		outer *= v
	}
	for _, v := range shape[axis+1:] {
		inner *= v
	}
	cols = shape[axis] * inner
	if outer > int32Max || cols > int32Max {
		return 0, 0, 0, fmt.Errorf("gnnlib/cuda: %s: shape %v too large for the kernels: %w", op, shape, tensor.ErrNotOnDevice)
	}
	return outer, cols, inner, nil
}

// Concat joins xs along axis: one CopyCols per operand.
func (d *backend) Concat(axis int, xs []*tensor.Tensor) (tensor.Storage, error) {
	if len(xs) == 0 {
		return nil, shapeErr("Concat", "no operands")
	}
	if tune.BF16Concat && d.autocastBF16() {
		return d.concatHalf(axis, xs) // halfstore.go
	}
	vs, err := d.views(xs...)
	if err != nil {
		return nil, err
	}
	outer, total, cols, err := concatShape(xs, axis)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(outer, total)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	off := 0
	for i, v := range vs {
		if cols[i] > 0 {
			src := &Tensor{buf: v.buf, ptr: v.ptr, Rows: outer, Cols: cols[i]}
			if err := CopyCols(out, off, src, 0, cols[i]); err != nil {
				return nil, err
			}
		}
		off += cols[i]
	}
	return out, nil
}

// Narrow returns [start, start+length) of x along axis (one CopyCols;
// of bfloat16 storage under Autocast, narrowHalf).
func (d *backend) Narrow(x *tensor.Tensor, axis, start, length int) (tensor.Storage, error) {
	if h, ok := d.halfView(x); ok && tune.BF16Narrow && d.autocastBF16() {
		return d.narrowHalf(h, x.Shape(), axis, start, length) // halfstore.go
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	outer, cols, inner, err := blocks("Narrow", shape, axis)
	if err != nil {
		return nil, err
	}
	if start < 0 || length < 0 || start+length > shape[axis] {
		return nil, shapeErr("Narrow", "[%d, %d+%d) of axis %d of %v", start, start, length, axis, shape)
	}
	out, err := d.Empty(outer, length*inner)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	src := &Tensor{buf: v.buf, ptr: v.ptr, Rows: outer, Cols: cols}
	return out, CopyCols(out, 0, src, start*inner, length*inner)
}

// ActBackwardColSum is ActBackward followed by ColSum(db, dx) in one pass:
// dx = g masked by BiasAct's output y, db[c] = Σ_r dx[r,c]. dx may be g.
func ActBackwardColSum(dx, db, y, g *Tensor, relu bool, p float32) error {
	d, err := sameDev("ActBackwardColSum", dx, db, y, g)
	if err != nil {
		return err
	}
	if dx.Len() != y.Len() || g.Len() != y.Len() || dx.Cols != y.Cols || db.Len() != y.Cols {
		return shapeErr("ActBackwardColSum", "dx %dx%d, y %dx%d, g %dx%d, db %d", dx.Rows, dx.Cols, y.Rows, y.Cols, g.Rows, g.Cols, db.Len())
	}
	if err := db.Fill(0); err != nil {
		return err
	}
	k := colKernel("act_backward_colsum", y, g, dx)
	return d.launch3(k.name, k.grid, k.block, y, g, dx, db, y.Rows, y.Cols, k.chunk, relu, p)
}

// colGrid is the launch grid of the scalar column reductions: 128 columns
// and a chunk of 512 rows a block.
func colGrid(x *Tensor) (gx, gy, chunk int) {
	chunk = 512
	return (x.Cols + 127) / 128, (x.Rows + chunk - 1) / chunk, chunk
}

// colLaunch is a column reduction's kernel and launch shape.
type colLaunch struct {
	name        string
	grid, block [3]int
	chunk       int
}

// colVec4Chunk is the rows a block of the _v4 column reductions takes:
// 32 a warp, eight steps of four rows.
const colVec4Chunk = 256

// colKernel picks the column reduction named base for tensors of x's
// shape at ts' addresses: its _v4 form (reduce.cu) when tune.ColSumVec4
// is on, the width is a multiple of 4 and every row starts 16-byte
// aligned, else the scalar form (colGrid).
func colKernel(base string, x *Tensor, ts ...*Tensor) colLaunch {
	vec := tune.ColSumVec4 && x.Cols%4 == 0 && x.ptr%16 == 0
	for _, t := range ts {
		vec = vec && (t == nil || t.ptr%16 == 0)
	}
	if !vec {
		gx, gy, chunk := colGrid(x)
		return colLaunch{base, [3]int{gx, gy, 1}, [3]int{128, 1, 1}, chunk}
	}
	return colLaunch{base + "_v4", [3]int{(x.Cols + 127) / 128, (x.Rows + colVec4Chunk - 1) / colVec4Chunk, 1}, [3]int{256, 1, 1}, colVec4Chunk}
}

// ColSum computes dst[c] = Σ_r x[r,c] (the bias gradient).
func ColSum(dst, x *Tensor) error {
	d, err := sameDev("ColSum", dst, x)
	if err != nil {
		return err
	}
	if dst.Len() != x.Cols {
		return shapeErr("ColSum", "x %dx%d into %d", x.Rows, x.Cols, dst.Len())
	}
	if err := dst.Fill(0); err != nil {
		return err
	}
	k := colKernel("col_sum", x)
	return d.launch3(k.name, k.grid, k.block, x, dst, x.Rows, x.Cols, k.chunk)
}

// concatShape checks Concat's operands along axis: the rows outside it
// (outer) must agree; it returns them, the columns of the result (total,
// at most int32Max) and each operand's columns.
func concatShape(xs []*tensor.Tensor, axis int) (outer, total int, cols []int, err error) {
	cols = make([]int, len(xs))
	for i, x := range xs {
		o, c, _, err := blocks("Concat", x.Shape(), axis)
		if err != nil {
			return 0, 0, nil, err
		}
		if i > 0 && o != outer {
			return 0, 0, nil, shapeErr("Concat", "operand %d has %d outer rows, the first %d", i, o, outer)
		}
		outer, cols[i] = o, c
		total += c
	}
	if total > int32Max {
		return 0, 0, nil, fmt.Errorf("gnnlib/cuda: Concat: %d columns: %w", total, tensor.ErrNotOnDevice)
	}
	return outer, total, cols, nil
}
