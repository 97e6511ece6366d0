package cuda

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// BiasReLUDropout writes dropout(relu(x + b)) over x (gnnlib/nn's
// BiasActOps: a fused layer op's own pre-activation, which becomes its
// output) and returns x's storage: BiasAct in place, the mask
// ReLUDropout draws from seed, one pass instead of the bias add and
// ReLUDropout's. Bfloat16 storage (Autocast) takes BiasActBF16.
func (d *backend) BiasReLUDropout(x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	bv, err := d.view(b)
	if err != nil {
		return nil, err
	}
	if _, half := d.halfView(b); half {
		defer bv.Free()
	}
	bias := &Tensor{buf: bv.buf, ptr: bv.ptr, Rows: 1, Cols: bv.Len()}
	if h, ok := d.halfView(x); ok {
		if h.Len() == 0 {
			return x.Storage(), nil
		}
		return x.Storage(), BiasActBF16(h, h, bias, true, p, seed)
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	if v.Len() == 0 {
		return x.Storage(), nil
	}
	return x.Storage(), BiasAct(v, v, bias, true, p, seed)
}

// GraphSpMMBiasReLUDropout returns dropout(relu(A·x + b)) with
// ReLUDropout's mask from seed, the bias, ReLU and dropout applied as the
// SpMM stores each row (SpMMBiasAct, as gnnbench's hand-written GCN
// layer): gnnlib/nn's BiasActOps. Under Autocast(BFloat16) the bfloat16
// SpMM, then BiasActBF16 in place.
func (d *backend) GraphSpMMBiasReLUDropout(g *graph.Graph, weighted bool, x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	dg, err := d.deviceGraph(g, weighted)
	if err != nil {
		return nil, err
	}
	if d.autocastBF16() {
		s, err := d.spmmHalf(dg, false, x, nil)
		if err != nil {
			return nil, err
		}
		out := s.(*BF16Tensor)
		if _, err := d.BiasReLUDropout(tbackend.FromStorage(out, out.Rows, out.Cols), b, p, seed); err != nil {
			out.Free()
			return nil, err
		}
		return out, nil
	}
	vs, err := d.views(x, b)
	if err != nil {
		return nil, err
	}
	if _, half := d.halfView(b); half {
		defer vs[1].Free()
	}
	if _, half := d.halfView(x); half {
		defer vs[0].Free()
	}
	out, err := d.Empty(dg.n, vs[0].Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	bias := &Tensor{buf: vs[1].buf, ptr: vs[1].ptr, Rows: 1, Cols: vs[1].Len()}
	if err := SpMMBiasAct(out, dg, vs[0], bias, true, p, seed); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}
