package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GATv2AttentionPair is the fused GATv2 attention for gnnlib/nn's
// GATv2PairOps: hlr = x·[W_src W_dst] (N x 2HC, the messages in the first
// HC columns, the targets in the rest), read in place as the two halves
// (as GATv2Forward reads gnnbench's hand-written epoch's one product),
// and the backward function writes both halves' gradients into one N x
// 2HC block, so that the layer makes one product for the two weight
// gradients and one for x's gradient instead of two each and a sum. As
// with GATv2AttentionOut, the caller owns the output and hands it (or a
// copy rebuilt by UnbiasAct) back to the backward function.
//
// Shapes the two-product path pads (heads of a width not a multiple of
// 4, or past maxMaskedGATv2Channels) and the bfloat16 kernels
// (BF16Attention under Autocast) are refused with an error wrapping
// tensor.ErrNotOnDevice: gnnlib/nn then runs GATv2AttentionOut on the
// halves as two products.
func (d *backend) GATv2AttentionPair(g *graph.Graph, hlr, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, error), error) {
	const name = "GATv2AttentionPair"
	if !g.IsSquare() {
		return nil, nil, fmt.Errorf("gnnlib/cuda: %s on a rectangular graph (a sampled block): %w", name, tensor.ErrNotOnDevice)
	}
	rows, cols := matrixShape(hlr.Shape())
	if heads <= 0 || cols%(2*heads) != 0 || att.Len() != cols/2 {
		return nil, nil, shapeErr(name, "hlr %dx%d, att %d values, %d heads", rows, cols, att.Len(), heads)
	}
	hc := cols / 2
	c := hc / heads
	if _, ok := gatShape(c); !ok || fusedGATv2Width(c) != c {
		return nil, nil, fmt.Errorf("gnnlib/cuda: %s with %d channels per head (one product takes the widths the kernels run unpadded): %w", name, c, tensor.ErrNotOnDevice)
	}
	if d.halfAttention(c, c, hlr, att) {
		return nil, nil, fmt.Errorf("gnnlib/cuda: %s under the bfloat16 attention kernels: %w", name, tensor.ErrNotOnDevice)
	}
	xs := []*tensor.Tensor{hlr, att}
	vs, err := d.views(xs...)
	if err != nil {
		return nil, nil, err
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		freeViews(d, vs, xs)
		return nil, nil, err
	}
	k := &gatv2PairOp{d: d, g: dg, heads: heads, c: c, slope: slope, drop: AttentionDropout{P: p, Seed: seed}}
	op, out, err := d.startAttention(heads, c, c, xs, vs, k)
	if err != nil {
		return nil, nil, err
	}
	return out, func(grad, o *tensor.Tensor) (tensor.Storage, tensor.Storage, error) {
		if op.done {
			_, err := op.backwardAll(grad) // errBackwardTwice
			return nil, nil, err
		}
		if o == nil {
			return nil, nil, fmt.Errorf("gnnlib/cuda: %s's backward pass without the output", name)
		}
		v, err := d.view(o)
		if err != nil {
			return nil, nil, err
		}
		if _, half := d.halfView(o); half {
			defer v.Free()
		}
		if v.Len() != rows*hc {
			return nil, nil, shapeErr(name+" backward", "output %dx%d, want %dx%d", v.Rows, v.Cols, rows, hc)
		}
		if op.half == nil {
			op.out = &Tensor{buf: v.buf, ptr: v.ptr, Rows: rows, Cols: hc}
		}
		gs, err := op.backwardAll(grad)
		if err != nil {
			return nil, nil, err
		}
		return gs[0], gs[1], nil
	}, nil
}

// gatv2PairOp is GATv2AttentionPair's kernels for fusedAttention: inputs
// x·[W_l W_r] (N x 2HC) and att; gradients in the same shapes.
type gatv2PairOp struct {
	d        *backend
	g        *Graph
	heads, c int
	slope    float32
	drop     AttentionDropout
	fw       *GATv2
}

func (k *gatv2PairOp) mats(ins []*Tensor) (xlr, att *Tensor) {
	hc := k.heads * k.c
	return &Tensor{buf: ins[0].buf, ptr: ins[0].ptr, Rows: k.g.n, Cols: 2 * hc},
		&Tensor{buf: ins[1].buf, ptr: ins[1].ptr, Rows: 1, Cols: hc}
}

func (k *gatv2PairOp) forward(ins []*Tensor) (*Tensor, error) {
	xlr, a := k.mats(ins)
	var err error
	k.fw, err = GATv2Forward(k.g, xlr, a, k.heads, k.c, k.slope, k.drop)
	if err != nil {
		return nil, err
	}
	return k.fw.Out, nil
}

func (k *gatv2PairOp) backward(ins []*Tensor, out, dout *Tensor) ([]*Tensor, error) {
	k.fw.Out = out
	xlr, a := k.mats(ins)
	dxlr, err := k.d.Empty(k.g.n, xlr.Cols)
	if err != nil {
		return nil, err
	}
	datt, err := k.d.Empty(1, a.Cols)
	if err != nil {
		dxlr.Free()
		return nil, err
	}
	if err := k.fw.Backward(k.g, xlr, a, dout, dxlr, datt); err != nil {
		dxlr.Free()
		datt.Free()
		return nil, err
	}
	return []*Tensor{dxlr, datt}, nil
}

func (k *gatv2PairOp) release() {
	k.fw.LSE.Free()
	if k.fw.d != nil {
		k.fw.d.Free()
	}
	k.fw.freeEdges()
}

// GATv2PairTakes reports whether GATv2AttentionPair takes heads of
// hf/heads channels on the calling goroutine: widths the kernels run
// unpadded, and not under the bfloat16 attention kernels.
func (d *backend) GATv2PairTakes(hf, heads int) bool {
	if heads <= 0 || hf%heads != 0 {
		return false
	}
	c := hf / heads
	if _, ok := gatShape(c); !ok || fusedGATv2Width(c) != c {
		return false
	}
	return !(BF16Attention && d.autocastBF16())
}
