package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// AddTo adds src to dst in place.
func (d *backend) AddTo(dst, src *tensor.Tensor) error {
	if h, ok := d.halfView(dst); ok {
		return d.addToHalf(h, src)
	}
	vs, err := d.views(dst, src)
	if err != nil {
		return err
	}
	return Axpby(vs[0], 1, vs[1], 1)
}

// Scale returns n values (x[i] or 1)·(s[0] or 1)·k.
func (d *backend) Scale(n int, x, s *tensor.Tensor, k float32) (tensor.Storage, error) {
	vs, err := d.views(x, s)
	if err != nil {
		return nil, err
	}
	rows, cols := 1, n
	if vs[0] != nil {
		if vs[0].Len() != n {
			return nil, shapeErr("Scale", "%d values, x has %d", n, vs[0].Len())
		}
		rows, cols = vs[0].Rows, vs[0].Cols
	}
	out, err := d.Empty(rows, cols)
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("scale_op", d.gridFor(int64(n), 256), 256, vs[0], vs[1], out, int64(n), k)
}

// Binary returns a op b, b of a's length, one broadcast row or one value.
func (d *backend) Binary(op tbackend.BinaryOp, a, b *tensor.Tensor) (tensor.Storage, error) {
	if int(op) >= len(binaryOpKernels) {
		return nil, fmt.Errorf("gnnlib/cuda: Binary %v: %w", op, tensor.ErrNotOnDevice)
	}
	code := binaryOpKernels[op].code
	if op == tbackend.BinaryAdd && d.autocastBF16() {
		if s, ok, err := d.biasAddHalf(a, b); ok {
			return s, err // halfstore.go
		}
		if s, ok, err := d.addHalf(a, b); ok {
			return s, err // halfstore.go
		}
	}
	vs, err := d.views(a, b)
	if err != nil {
		return nil, err
	}
	row, f := 0, max(1, vs[0].Cols)
	switch {
	case vs[1].Len() == vs[0].Len():
	case vs[1].Len() == vs[0].Cols:
		row = 1
	case vs[1].Len() == 1: // a row of one value: b[i % 1]
		row, f = 1, 1
	default:
		return nil, shapeErr("Binary", "%dx%d %v %d values", vs[0].Rows, vs[0].Cols, op, vs[1].Len())
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	n := int64(vs[0].Len())
	if err != nil || n == 0 {
		return out, err
	}
	if op == tbackend.BinaryDiv {
		return out, d.launch("div_op", d.gridFor(n, 256), 256, vs[0], vs[1], out, n, f, row)
	}
	return out, d.launch("binary_op", d.gridFor(n, 256), 256, vs[0], vs[1], out, n, f, code, row)
}

// mapKernel returns the kernel (map_fwd or map_ext_fwd, with suffix
// replacing "fwd") and code of an element-wise op.
func mapKernel(method string, op tbackend.MapOp, suffix string) (string, int, error) {
	if int(op) >= len(mapOpKernels) {
		return "", 0, fmt.Errorf("gnnlib/cuda: %s %v: %w", method, op, tensor.ErrNotOnDevice)
	}
	k := mapOpKernels[op]
	return k.kernel + suffix, k.code, nil
}

// Map returns op(x) element-wise.
func (d *backend) Map(op tbackend.MapOp, x *tensor.Tensor, p float32) (tensor.Storage, error) {
	kernel, code, err := mapKernel("Map", op, "fwd")
	if err != nil {
		return nil, err
	}
	if op == tbackend.MapReLU && d.autocastBF16() {
		return d.actHalf(x, true, 0, 0) // halfstore.go
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch(kernel, d.gridFor(n, 256), 256, v, out, n, code, p)
}

// MapGrad returns g·op'(x) given x and y = op(x).
func (d *backend) MapGrad(op tbackend.MapOp, g, x, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	kernel, code, err := mapKernel("MapGrad", op, "bwd")
	if err != nil {
		return nil, err
	}
	if op == tbackend.MapReLU && d.autocastBF16() {
		return d.actGradHalf(g, y, true, 0) // halfstore.go
	}
	vs, err := d.views(g, x, y)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	n := int64(vs[0].Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch(kernel, d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], out, n, code, p)
}

// Dropout returns x with dropout p, its mask drawn from (seed, index).
func (d *backend) Dropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	if d.autocastBF16() {
		return d.actHalf(x, false, p, seed) // halfstore.go
	}
	return d.actDropout(x, false, p, seed)
}

// actDropout returns dropout(x), or dropout(relu(x)), with bias_act
// (no bias): the float32 path of Dropout and ReLUDropout.
func (d *backend) actDropout(x *tensor.Tensor, relu bool, p float32, seed uint64) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || v.Len() == 0 {
		return out, err
	}
	return out, BiasAct(out, v, nil, relu, p, seed)
}

// DropoutGrad returns g through Dropout's mask for the same p and seed.
func (d *backend) DropoutGrad(g *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	v, err := d.view(g)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("dropout_bwd", d.gridFor(n, 256), 256, v, out, n, p, seed)
}

// UnbiasAct undoes BiasAct(y, x, b, relu, p, seed) in place where the
// backward pass needs it: y becomes x wherever y is not zero (and 0 where
// it is), exactly x everywhere when relu is off and p is 0. A layer that
// applies BiasAct in place over its pre-activation can so keep one tensor
// for both ActBackward and a backward pass that reads the pre-activation
// only where the activation's gradient is not zero (GATv2's).
func UnbiasAct(y, b *Tensor, relu bool, p float32) error {
	d, err := sameDev("UnbiasAct", y, b)
	if err != nil {
		return err
	}
	if b != nil && b.Len() != y.Cols {
		return shapeErr("UnbiasAct", "y %dx%d, bias %d", y.Rows, y.Cols, b.Len())
	}
	n := int64(y.Len())
	return d.launch("unbias_act", d.gridFor(n, 256), 256, y, b, n, y.Cols, relu, p)
}

// BiasAct computes y = dropout(act(x + b)) element-wise, b broadcast over
// rows (nil: no bias), act = ReLU when relu is set, dropout with
// probability p drawing its mask from (seed, index) so that nothing is
// stored for the backward pass. y may be x.
func BiasAct(y, x, b *Tensor, relu bool, p float32, seed uint64) error {
	d, err := sameDev("BiasAct", y, x, b)
	if err != nil {
		return err
	}
	if y.Len() != x.Len() || (b != nil && b.Len() != x.Cols) {
		return shapeErr("BiasAct", "x %dx%d, y %dx%d", x.Rows, x.Cols, y.Rows, y.Cols)
	}
	n := int64(x.Len())
	return d.launch("bias_act", d.gridFor(n, 256), 256, x, b, y, n, x.Cols, relu, p, seed)
}

// ActBackward computes dx = g masked by BiasAct's output y: zero where y is
// zero (ReLU off or dropped), g/(1-p) elsewhere.
func ActBackward(dx, y, g *Tensor, relu bool, p float32) error {
	d, err := sameDev("ActBackward", dx, y, g)
	if err != nil {
		return err
	}
	n := int64(y.Len())
	if dx.Len() != y.Len() || g.Len() != y.Len() {
		return shapeErr("ActBackward", "lengths %d, %d, %d", dx.Len(), y.Len(), g.Len())
	}
	return d.launch("act_backward", d.gridFor(n, 256), 256, y, g, dx, n, relu, p)
}

// Axpby computes y = a·x + b·y.
func Axpby(y *Tensor, a float32, x *Tensor, b float32) error {
	d, err := sameDev("Axpby", y, x)
	if err != nil {
		return err
	}
	if y.Len() != x.Len() {
		return shapeErr("Axpby", "lengths %d and %d", y.Len(), x.Len())
	}
	n := int64(y.Len())
	return d.launch("axpby", d.gridFor(n, 256), 256, x, y, n, a, b)
}

// CopyCols copies width columns of src starting at soff into dst starting
// at doff, row by row (to split or join the halves of x·[W_l W_r]).
func CopyCols(dst *Tensor, doff int, src *Tensor, soff, width int) error {
	d, err := sameDev("CopyCols", dst, src)
	if err != nil {
		return err
	}
	if dst.Rows != src.Rows || soff+width > src.Cols || doff+width > dst.Cols {
		return shapeErr("CopyCols", "src %dx%d[%d:+%d], dst %dx%d[%d:]", src.Rows, src.Cols, soff, width, dst.Rows, dst.Cols, doff)
	}
	n := int64(src.Rows) * int64(width)
	return d.launch("copy_cols", d.gridFor(n, 256), 256, src, dst, src.Rows, width, src.Cols, soff, dst.Cols, doff)
}

// ReLUDropout returns dropout(relu(x)) in one pass (bias_act without a
// bias), the mask the one Dropout draws from (seed, index): gnnlib/nn's
// ReLUDropoutOps.
func (d *backend) ReLUDropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	if d.autocastBF16() {
		return d.actHalf(x, true, p, seed) // halfstore.go
	}
	return d.actDropout(x, true, p, seed)
}

// ReLUDropoutGradColSum is ReLUDropoutGrad and the column sums of its
// result in one pass (ActBackwardColSum): gnnlib/nn's
// ReLUDropoutColSumOps, the bias gradient of the layer whose output the
// ReLUDropout read. Bfloat16 g and y (Autocast) give a bfloat16 gradient
// (act_backward_colsum_bf16, tune.BF16ActColSum); other storage is read
// as float32.
func (d *backend) ReLUDropoutGradColSum(g, y *tensor.Tensor, p float32) (gx, colSum tensor.Storage, err error) {
	if hg, ok := d.halfView(g); ok && tune.BF16ActColSum {
		if hy, ok := d.halfView(y); ok {
			return d.actGradColSumHalf(hg, hy, p) // halfstore.go
		}
	}
	vs, err := d.views(g, y)
	if err != nil {
		return nil, nil, err
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil {
		return nil, nil, err
	}
	sum, err := d.Empty(1, vs[0].Cols)
	if err != nil {
		out.Free()
		return nil, nil, err
	}
	if vs[0].Len() == 0 {
		return out, sum, sum.Fill(0)
	}
	if err := ActBackwardColSum(out, sum, vs[1], vs[0], true, p); err != nil {
		out.Free()
		sum.Free()
		return nil, nil, err
	}
	return out, sum, nil
}

// ReLUDropoutGrad returns g through ReLUDropout given its output y: g/(1-p)
// where y is not zero, 0 elsewhere (ActBackward).
func (d *backend) ReLUDropoutGrad(g, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	if d.autocastBF16() {
		return d.actGradHalf(g, y, true, p) // halfstore.go
	}
	vs, err := d.views(g, y)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil || vs[0].Len() == 0 {
		return out, err
	}
	return out, ActBackward(out, vs[1], vs[0], true, p)
}
