package cuda

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// This file holds the Backend and DeviceOps methods beyond a GCN/GAT epoch:
// ops along an axis, row gathers and scatters, joins and slices, the other
// losses, SAGE's max aggregation, SGD, gradient clipping and the norms.
// Their kernels are in kernels/ops.cu.

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
func (d *Device) SumAxis(x *tensor.Tensor, axis int, scale float32) (tensor.Storage, error) {
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
func (d *Device) ExpandAxis(g *tensor.Tensor, shape []int, axis int, scale float32) (tensor.Storage, error) {
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
func (d *Device) Softmax(x *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
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
func (d *Device) SoftmaxGrad(g, y *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
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
func (d *Device) ArgReduce(x *tensor.Tensor, axis int, wantMax bool) ([]int, error) {
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
func (d *Device) Gather(x *tensor.Tensor, idx []int) (tensor.Storage, error) {
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
func (d *Device) ScatterAdd(src *tensor.Tensor, idx []int, n int) (tensor.Storage, error) {
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
func (d *Device) Concat(axis int, xs []*tensor.Tensor) (tensor.Storage, error) {
	if len(xs) == 0 {
		return nil, shapeErr("Concat", "no operands")
	}
	vs, err := d.views(xs...)
	if err != nil {
		return nil, err
	}
	outer, total := 0, 0
	cols := make([]int, len(xs))
	for i, x := range xs {
		o, c, _, err := blocks("Concat", x.Shape(), axis)
		if err != nil {
			return nil, err
		}
		if i > 0 && o != outer {
			return nil, shapeErr("Concat", "operand %d has %d outer rows, the first %d", i, o, outer)
		}
		outer, cols[i] = o, c
		total += c
	}
	if total > int32Max {
		return nil, fmt.Errorf("gnnlib/cuda: Concat: %d columns: %w", total, tensor.ErrNotOnDevice)
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

// Narrow returns [start, start+length) of x along axis (one CopyCols).
func (d *Device) Narrow(x *tensor.Tensor, axis, start, length int) (tensor.Storage, error) {
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

// Loss returns the mean element-wise loss op of pred against target and
// its gradient with respect to pred, fused (elem_loss).
func (d *Device) Loss(op string, pred, target *tensor.Tensor) (loss, grad tensor.Storage, err error) {
	code, ok := lossOps[op]
	if !ok {
		return nil, nil, fmt.Errorf("gnnlib/cuda: Loss %q: %w", op, tensor.ErrNotOnDevice)
	}
	vs, err := d.views(pred, target)
	if err != nil {
		return nil, nil, err
	}
	n := int64(vs[0].Len())
	if int64(vs[1].Len()) != n {
		return nil, nil, shapeErr("Loss", "%d predictions, %d targets", n, vs[1].Len())
	}
	l, err := d.Zeros(1, 1)
	if err != nil {
		return nil, nil, err
	}
	g, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 { // the mean of nothing, as on the CPU
		return l, g, l.Fill(float32(math.NaN()))
	}
	err = d.launch("elem_loss", min(d.gridFor(n, 256), 4*d.nsm), 256, vs[0], vs[1], g, l, n, code, float32(1/float64(n)))
	return l, g, err
}

// NLL returns the mean negative log-likelihood of logp at labels over
// rows (nil: all) and its gradient; the (row, label) pairs are uploaded
// per call.
func (d *Device) NLL(logp *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	v, err := d.view(logp)
	if err != nil {
		return nil, nil, err
	}
	if len(labels) != v.Rows {
		return nil, nil, shapeErr("NLL", "%d labels for %d rows", len(labels), v.Rows)
	}
	if rows == nil {
		rows = make([]int, v.Rows)
		for i := range rows {
			rows[i] = i
		}
	}
	ys := make([]int, len(rows))
	for i, r := range rows {
		if r < 0 || r >= v.Rows {
			return nil, nil, fmt.Errorf("gnnlib/cuda: NLL: row %d not in [0, %d): %w", r, v.Rows, tensor.ErrIndex)
		}
		if ys[i] = labels[r]; ys[i] < 0 || ys[i] >= v.Cols {
			return nil, nil, fmt.Errorf("gnnlib/cuda: NLL: label %d of row %d not in [0, %d): %w", ys[i], r, v.Cols, tensor.ErrIndex)
		}
	}
	if len(rows) == 0 {
		return nil, nil, shapeErr("NLL", "empty row set")
	}
	ry, err := d.uploadIndex("NLL", rows, v.Rows, ys)
	if err != nil {
		return nil, nil, err
	}
	defer ry.release()
	l, err := d.Zeros(1, 1)
	if err != nil {
		return nil, nil, err
	}
	g, err := d.Zeros(v.Rows, v.Cols)
	if err != nil {
		return nil, nil, err
	}
	k := int64(len(rows))
	return l, g, d.launch("nll_rows", min(d.gridFor(k, 256), 4*d.nsm), 256, v, ry, g, l, k, v.Cols, float32(1/float64(k)))
}

// GraphMaxAggregate returns the element-wise maximum of the in-neighbours'
// rows of x over g (AggregateMax, degree-aware) and a function computing
// x's gradient, which goes to the neighbour that won each element. The
// winners are kept on the device until the function is collected.
func (d *Device) GraphMaxAggregate(g *graph.Graph, x *tensor.Tensor) (tensor.Storage, func(grad *tensor.Tensor) (tensor.Storage, error), error) {
	v, err := d.view(x)
	if err != nil {
		return nil, nil, err
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		return nil, nil, err
	}
	f := v.Cols
	out, err := d.Empty(dg.n, f)
	if err != nil {
		return nil, nil, err
	}
	arg, err := d.Empty(dg.n, f) // int32 winners, -1 for none
	if err != nil {
		return nil, nil, err
	}
	if out.Len() > 0 {
		if err := AggregateMax(out, arg, dg, v); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, err
		}
		if gv.Len() != arg.Len() {
			return nil, shapeErr("GraphMaxAggregate backward", "gradient of %d values for %d outputs", gv.Len(), arg.Len())
		}
		dx, err := d.Zeros(dg.nsrc, f)
		total := int64(arg.Len())
		if err != nil || total == 0 {
			return dx, err
		}
		return dx, d.launch("scatter_arg", d.gridFor(total, 256), 256, arg, gv, dx, total, f)
	}
	return out, backward, nil
}

// SGDStep updates p (and buf, with momentum) in place as gnnlib/nn's
// SGD.Step does on the CPU.
func (d *Device) SGDStep(p, grad, buf *tensor.Tensor, lr, momentum, weightDecay float32, started bool) error {
	vs, err := d.views(p, grad, buf)
	if err != nil {
		return err
	}
	n := int64(vs[0].Len())
	if int64(vs[1].Len()) != n || (vs[2] != nil && int64(vs[2].Len()) != n) {
		return shapeErr("SGDStep", "parameter of %d values, gradient of %d", n, vs[1].Len())
	}
	if momentum != 0 && vs[2] == nil {
		return shapeErr("SGDStep", "momentum %g without a buffer", momentum)
	}
	if n == 0 {
		return nil
	}
	return d.launch("sgd_step", d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], n, lr, momentum, weightDecay, started)
}

// SumSquares returns the sum of the squares of every value of xs,
// accumulated in float64 on the device and copied back once.
func (d *Device) SumSquares(xs []*tensor.Tensor) (float64, error) {
	vs, err := d.views(xs...)
	if err != nil {
		return 0, err
	}
	acc, err := d.Zeros(1, 2) // one float64
	if err != nil {
		return 0, err
	}
	defer acc.Free()
	for _, v := range vs {
		if n := int64(v.Len()); n > 0 {
			if err := d.launch("sum_sq", min(d.gridFor(n, 256), 4*d.nsm), 256, v, acc, n); err != nil {
				return 0, err
			}
		}
	}
	raw, err := acc.Host()
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(uint64(math.Float32bits(raw[0])) | uint64(math.Float32bits(raw[1]))<<32), nil
}

// LayerNorm normalises the rows of x (its last axis, of gamma's length),
// keeping each row's mean and 1/std for the backward pass.
func (d *Device) LayerNorm(x, gamma, beta *tensor.Tensor, eps float32) (tensor.Storage, func(grad *tensor.Tensor) (dx, dgamma, dbeta tensor.Storage, err error), error) {
	vs, err := d.views(x, gamma, beta)
	if err != nil {
		return nil, nil, err
	}
	v, dim := vs[0], vs[1].Len()
	if v.Cols != dim || vs[2].Len() != dim {
		return nil, nil, shapeErr("LayerNorm", "rows of %d, gamma %d, beta %d", v.Cols, dim, vs[2].Len())
	}
	rows := v.Rows
	y, err := d.Empty(rows, dim)
	if err != nil {
		return nil, nil, err
	}
	mean, err := d.Empty(1, rows)
	if err != nil {
		return nil, nil, err
	}
	invstd, err := d.Empty(1, rows)
	if err != nil {
		return nil, nil, err
	}
	if y.Len() > 0 {
		if err := d.launch("layer_norm_fwd", d.gridFor(int64(rows)*32, 256), 256, v, vs[1], vs[2], y, mean, invstd, int64(rows), dim, eps); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, nil, nil, err
		}
		if gv.Len() != y.Len() {
			return nil, nil, nil, shapeErr("LayerNorm backward", "gradient of %d values for %d", gv.Len(), y.Len())
		}
		dx, err := d.Empty(rows, dim)
		if err != nil {
			return nil, nil, nil, err
		}
		dg, err := d.Zeros(1, dim)
		if err != nil {
			return nil, nil, nil, err
		}
		db, err := d.Zeros(1, dim)
		if err != nil || dx.Len() == 0 {
			return dx, dg, db, err
		}
		if err := d.launch("layer_norm_bwd_dx", d.gridFor(int64(rows)*32, 256), 256, v, vs[1], mean, invstd, gv, dx, int64(rows), dim); err != nil {
			return nil, nil, nil, err
		}
		// Row chunks of at least 512, few enough for the grid's y limit.
		chunk := max(512, (rows+65534)/65535)
		grid := [3]int{(dim + 127) / 128, (rows + chunk - 1) / chunk, 1}
		return dx, dg, db, d.launch3("layer_norm_bwd_param", grid, [3]int{128, 1, 1}, v, mean, invstd, gv, dg, db, rows, dim, chunk)
	}
	return y, backward, nil
}

// BatchNorm normalises the channels of x [N, C, ...] (axis 1) with the
// batch's statistics, moving runMean and runVar in place, when train is
// set, and with the running statistics otherwise; one block per channel
// reduces in float64.
func (d *Device) BatchNorm(x, gamma, beta, runMean, runVar *tensor.Tensor, train bool, momentum, eps float32) (tensor.Storage, func(grad *tensor.Tensor) (dx, dgamma, dbeta tensor.Storage, err error), error) {
	vs, err := d.views(x, gamma, beta, runMean, runVar)
	if err != nil {
		return nil, nil, err
	}
	shape := x.Shape()
	if len(shape) < 2 {
		return nil, nil, shapeErr("BatchNorm", "input of shape %v, want [N, C, ...]", shape)
	}
	n, c := shape[0], shape[1]
	inner := 1
	for _, s := range shape[2:] {
		inner *= s
	}
	for _, p := range vs[1:] {
		if p.Len() != c {
			return nil, nil, shapeErr("BatchNorm", "%d channels, a parameter of %d", c, p.Len())
		}
	}
	if n > int32Max || c > int32Max {
		return nil, nil, fmt.Errorf("gnnlib/cuda: BatchNorm: shape %v: %w", shape, tensor.ErrNotOnDevice)
	}
	m := int64(n) * int64(inner)
	if train && m < 2 {
		return nil, nil, shapeErr("BatchNorm", "%d values per channel in training", m)
	}
	total := int64(vs[0].Len())
	y, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil {
		return nil, nil, err
	}
	mean, err := d.Empty(1, c)
	if err != nil {
		return nil, nil, err
	}
	invstd, err := d.Empty(1, c)
	if err != nil {
		return nil, nil, err
	}
	grid := min(c, 4*d.nsm)
	if c > 0 {
		if err := d.launch("bn_stats", grid, 256, vs[0], mean, invstd, vs[3], vs[4], n, c, int64(inner), eps, momentum, train); err != nil {
			return nil, nil, err
		}
	}
	if total > 0 {
		if err := d.launch("bn_apply", d.gridFor(total, 256), 256, vs[0], mean, invstd, vs[1], vs[2], y, total, c, int64(inner)); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, nil, nil, err
		}
		if int64(gv.Len()) != total {
			return nil, nil, nil, shapeErr("BatchNorm backward", "gradient of %d values for %d", gv.Len(), total)
		}
		dx, err := d.Empty(vs[0].Rows, vs[0].Cols)
		if err != nil {
			return nil, nil, nil, err
		}
		dg, err := d.Zeros(1, c)
		if err != nil {
			return nil, nil, nil, err
		}
		db, err := d.Zeros(1, c)
		if err != nil || c == 0 || total == 0 {
			return dx, dg, db, err
		}
		if err := d.launch("bn_bwd_reduce", grid, 256, vs[0], gv, mean, invstd, dg, db, n, c, int64(inner)); err != nil {
			return nil, nil, nil, err
		}
		return dx, dg, db, d.launch("bn_bwd_dx", d.gridFor(total, 256), 256, vs[0], gv, mean, invstd, vs[1], dg, db, dx, total, c, int64(inner), float32(m), train)
	}
	return y, backward, nil
}

// Permute returns x with its axes reordered (out.shape[i] =
// x.shape[perm[i]]); the shape and strides go to the kernel in a small
// uploaded table.
func (d *Device) Permute(x *tensor.Tensor, perm []int) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(perm) != len(shape) {
		return nil, shapeErr("Permute", "%d axes for shape %v", len(perm), shape)
	}
	strides := make([]int, len(shape))
	st := 1
	for a := len(shape) - 1; a >= 0; a-- {
		strides[a] = st
		st *= shape[a]
	}
	meta := make([]int32, 1+2*len(perm))
	meta[0] = int32(len(perm))
	for i, a := range perm {
		if a < 0 || a >= len(shape) || shape[a] > int32Max || strides[a] > int32Max {
			return nil, fmt.Errorf("gnnlib/cuda: Permute %v of shape %v: %w", perm, shape, tensor.ErrNotOnDevice)
		}
		meta[1+i], meta[1+len(perm)+i] = int32(shape[a]), int32(strides[a])
	}
	out, err := d.Empty(v.Rows, v.Cols) // the caller gives it the permuted shape
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	mb, err := d.uploadInts(meta)
	if err != nil {
		return nil, err
	}
	defer mb.release()
	return out, d.launch("permute_nd", d.gridFor(n, 256), 256, v, out, n, mb)
}

// convShape returns the sizes of a convolution of x [N, C, H, W] with
// kh×kw windows, failing when the kernels' int arguments cannot hold them.
func convShape(op string, shape []int, kh, kw, stride, padding int) (n, c, h, w, oh, ow int, err error) {
	if len(shape) != 4 || kh < 1 || kw < 1 || stride < 1 || padding < 0 {
		return 0, 0, 0, 0, 0, 0, shapeErr(op, "input %v, kernel %dx%d, stride %d, padding %d", shape, kh, kw, stride, padding)
	}
	n, c, h, w = shape[0], shape[1], shape[2], shape[3]
	oh, ow = (h+2*padding-kh)/stride+1, (w+2*padding-kw)/stride+1
	if oh < 1 || ow < 1 {
		return 0, 0, 0, 0, 0, 0, shapeErr(op, "kernel %dx%d larger than the padded input %v", kh, kw, shape)
	}
	if c*kh*kw > int32Max || n > int32Max || h*w > int32Max {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("gnnlib/cuda: %s: input %v too large for the kernels: %w", op, shape, tensor.ErrNotOnDevice)
	}
	return n, c, h, w, oh, ow, nil
}

// Im2Col returns the receptive fields of x [N, C, H, W], one row of
// C·KH·KW values per output pixel ([N·OH·OW, C·KH·KW]), so that a
// convolution is one product with the weight (see tensor.Backend).
func (d *Device) Im2Col(x *tensor.Tensor, kh, kw, stride, padding int) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	n, c, h, w, oh, ow, err := convShape("Im2Col", x.Shape(), kh, kw, stride, padding)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(n*oh*ow, c*kh*kw)
	total := int64(out.Len())
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("im2col_rows", d.gridFor(total, 256), 256, v, out, n, c, h, w, kh, kw, oh, ow, stride, padding)
}

// Col2Im adds the rows of cols back into an image of shape [N, C, H, W].
func (d *Device) Col2Im(cols *tensor.Tensor, shape []int, kh, kw, stride, padding int) (tensor.Storage, error) {
	v, err := d.view(cols)
	if err != nil {
		return nil, err
	}
	n, c, h, w, oh, ow, err := convShape("Col2Im", shape, kh, kw, stride, padding)
	if err != nil {
		return nil, err
	}
	if v.Len() != n*oh*ow*c*kh*kw {
		return nil, shapeErr("Col2Im", "%d values for the fields of %v", v.Len(), shape)
	}
	out, err := d.Empty(n*c*h, w)
	total := int64(out.Len())
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("col2im_rows", d.gridFor(total, 256), 256, v, out, n, c, h, w, kh, kw, oh, ow, stride, padding)
}

// poolShape checks a pooling of x [N, C, H, W] and returns the number of
// outputs with the sizes the kernels take.
func poolShape(op string, shape []int, kernel, stride int) (total int64, h, w, oh, ow int, err error) {
	if len(shape) != 4 || kernel < 1 || stride < 1 || kernel > shape[2] || kernel > shape[3] {
		return 0, 0, 0, 0, 0, shapeErr(op, "input %v, kernel %d, stride %d", shape, kernel, stride)
	}
	h, w = shape[2], shape[3]
	oh, ow = (h-kernel)/stride+1, (w-kernel)/stride+1
	return int64(shape[0]) * int64(shape[1]) * int64(oh) * int64(ow), h, w, oh, ow, nil
}

// Pool2D returns the maximum or mean over kernel×kernel windows of x.
func (d *Device) Pool2D(op string, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	code, ok := poolOps[op]
	if !ok {
		return nil, fmt.Errorf("gnnlib/cuda: Pool2D %q: %w", op, tensor.ErrNotOnDevice)
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	total, h, w, oh, ow, err := poolShape("Pool2D", x.Shape(), kernel, stride)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(1, int(total))
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("pool2d_fwd", d.gridFor(total, 256), 256, v, out, total, h, w, oh, ow, kernel, stride, code)
}

// Pool2DGrad returns the gradient of Pool2D's input x from the output's
// gradient g.
func (d *Device) Pool2DGrad(op string, g, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	code, ok := poolOps[op]
	if !ok {
		return nil, fmt.Errorf("gnnlib/cuda: Pool2DGrad %q: %w", op, tensor.ErrNotOnDevice)
	}
	vs, err := d.views(g, x)
	if err != nil {
		return nil, err
	}
	total, h, w, oh, ow, err := poolShape("Pool2DGrad", x.Shape(), kernel, stride)
	if err != nil {
		return nil, err
	}
	if int64(vs[0].Len()) != total {
		return nil, shapeErr("Pool2DGrad", "gradient of %d values for %d outputs", vs[0].Len(), total)
	}
	dx, err := d.Zeros(vs[1].Rows, vs[1].Cols)
	if err != nil || total == 0 {
		return dx, err
	}
	return dx, d.launch("pool2d_bwd", d.gridFor(total, 256), 256, vs[0], vs[1], dx, total, h, w, oh, ow, kernel, stride, code)
}
