package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// unbiasActTo writes into x what UnbiasAct(y, b, relu, p) would leave in
// a copy of y: y·(1-p) − b where y is not zero and 0 where it is (relu or
// p set), y − b everywhere otherwise; one pass over y (unbias_act_to).
func unbiasActTo(x, y, b *Tensor, relu bool, p float32) error {
	d, err := sameDev("UnbiasAct", x, y, b)
	if err != nil {
		return err
	}
	if x.Len() != y.Len() || (b != nil && b.Len() != y.Cols) {
		return shapeErr("UnbiasAct", "y %dx%d into %dx%d, bias %v", y.Rows, y.Cols, x.Rows, x.Cols, b)
	}
	if x.ptr == y.ptr {
		return UnbiasAct(x, b, relu, p)
	}
	n := int64(y.Len())
	return d.launch("unbias_act_to", d.gridFor(n, 256), 256, y, b, x, n, y.Cols, relu, p)
}

// unbiasActOnePass is the backend's UnbiasAct of float32 y with
// tune.UnbiasActOnePass: the rebuilt x in new storage, in one pass.
func (d *backend) unbiasActOnePass(y *tensor.Tensor, b *Tensor, relu bool, p float32) (tensor.Storage, error) {
	v, err := d.view(y)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if err := unbiasActTo(out, v, b, relu, p); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// unbiasOnePass reports whether UnbiasAct of y takes unbiasActOnePass:
// float32 storage (16-bit storage is widened by the copy) with the switch on.
func (d *backend) unbiasOnePass(y *tensor.Tensor) bool {
	_, half := d.halfView(y)
	return tune.UnbiasActOnePass && !half
}

// actBackwardColSumUnbias is ActBackwardColSum(dx, db, y, g, relu, p) that
// also writes into xo what UnbiasAct(y, b, relu, p) leaves in a copy of y,
// in the same pass over y (act_backward_colsum_unbias). dx may be g.
func actBackwardColSumUnbias(dx, db, xo, y, g, b *Tensor, relu bool, p float32) error {
	d, err := sameDev("ActBackwardColSum", dx, db, xo, y, g, b)
	if err != nil {
		return err
	}
	if dx.Len() != y.Len() || g.Len() != y.Len() || xo.Len() != y.Len() || dx.Cols != y.Cols || db.Len() != y.Cols || (b != nil && b.Len() != y.Cols) {
		return shapeErr("ActBackwardColSum", "dx %dx%d, y %dx%d, g %dx%d, x %dx%d, db %d, bias %v", dx.Rows, dx.Cols, y.Rows, y.Cols, g.Rows, g.Cols, xo.Rows, xo.Cols, db.Len(), b)
	}
	if err := db.Fill(0); err != nil {
		return err
	}
	k := colKernel("act_backward_colsum_unbias", y, g, b, dx, xo)
	return d.launch3(k.name, k.grid, k.block, y, g, b, dx, db, xo, y.Rows, y.Cols, k.chunk, relu, p)
}

// ReLUDropoutGradColSumUnbias is gnnlib/nn's ReLUDropoutGradUnbiasOps:
// ReLUDropoutGradColSum(g, y, p) and UnbiasAct(y, b, true, p) in one pass
// over float32 storage (act_backward_colsum_unbias), the values of the
// two. 16-bit storage gives an error wrapping tensor.ErrNotOnDevice (the
// nn layer asks only with float32).
func (d *backend) ReLUDropoutGradColSumUnbias(g, y, b *tensor.Tensor, p float32) (gx, colSum, x tensor.Storage, err error) {
	for _, t := range []*tensor.Tensor{g, y, b} {
		if _, half := d.halfView(t); half {
			return nil, nil, nil, fmt.Errorf("gnnlib/cuda: ReLUDropoutGradColSumUnbias of 16-bit storage: %w", tensor.ErrNotOnDevice)
		}
	}
	vs, err := d.views(g, y, b)
	if err != nil {
		return nil, nil, nil, err
	}
	rows, cols := vs[1].Rows, vs[1].Cols
	bias := &Tensor{buf: vs[2].buf, ptr: vs[2].ptr, Rows: 1, Cols: vs[2].Len()}
	out, err := d.Empty(rows, cols)
	if err != nil {
		return nil, nil, nil, err
	}
	xo, err := d.Empty(rows, cols)
	if err != nil {
		out.Free()
		return nil, nil, nil, err
	}
	sum, err := d.Empty(1, cols)
	if err == nil && out.Len() == 0 {
		err = sum.Fill(0)
	} else if err == nil {
		err = actBackwardColSumUnbias(out, sum, xo, vs[1], vs[0], bias, true, p)
	}
	if err != nil {
		out.Free()
		xo.Free()
		sum.Free()
		return nil, nil, nil, err
	}
	return out, sum, xo, nil
}
