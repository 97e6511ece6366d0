package cuda

import (
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
