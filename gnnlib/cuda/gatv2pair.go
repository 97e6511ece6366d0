package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// GATv2AttentionPair is the fused GATv2 attention for gnnlib/nn's
// GATv2PairOps: hlr = x·[W_src W_dst] (N x 2HC, the messages in the first
// HC columns, the targets in the rest), read in place as the two halves
// (as GATv2Forward reads gnnbench's hand-written epoch's one product),
// and the backward function writes both halves' gradients into one N x
// 2HC block, so that the layer makes one product for the two weight
// gradients and one for x's gradient instead of two each and a sum. As
// with GATv2AttentionOut, the caller owns the output and hands it (or a
// copy rebuilt by UnbiasAct) back to the backward function, or, with act
// set, the activation over it (tbackend.OutAct), from which the
// destination pass rebuilds each row's values as it reads them
// (GATv2.OutAct): no rebuilt copy is stored. A caller that freed hlr
// after the forward pass hands the product made again to the backward
// function (again; nil when it kept hlr).
//
// Under Autocast(BFloat16) with BF16Attention the bfloat16 kernels read
// the halves of a bfloat16 hlr and write one bfloat16 gradient block.
// Shapes the two-product path pads (heads of a width not a multiple of
// 4, or past maxMaskedGATv2Channels) are refused with an error wrapping
// tensor.ErrNotOnDevice (GATv2PairTakes says so first): gnnlib/nn runs
// them as two products.
func (d *backend) GATv2AttentionPair(g *graph.Graph, hlr, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(grad, out, again *tensor.Tensor, act *tbackend.OutAct) (tensor.Storage, tensor.Storage, error), error) {
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
	xs := []*tensor.Tensor{hlr, att}
	var vs []*Tensor // nil: the bfloat16 kernels (startAttention)
	if !d.halfAttention(c, c, hlr, att) {
		var err error
		if vs, err = d.views(xs...); err != nil {
			return nil, nil, err
		}
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
	return out, func(grad, o, again *tensor.Tensor, act *tbackend.OutAct) (tensor.Storage, tensor.Storage, error) {
		if op.done {
			_, err := op.backwardAll(grad) // errBackwardTwice
			return nil, nil, err
		}
		if o == nil {
			return nil, nil, fmt.Errorf("gnnlib/cuda: %s's backward pass without the output", name)
		}
		if again != nil {
			if err := op.again(0, again); err != nil {
				return nil, nil, err
			}
		}
		if act != nil && op.half == nil { // a kept float16 output is the output itself
			b, err := d.view(act.Bias)
			if err != nil {
				return nil, nil, err
			}
			if _, half := d.halfView(act.Bias); half {
				defer b.Free()
			}
			if b.Len() != hc {
				return nil, nil, shapeErr(name+" backward", "activation bias of %d values, want %d", b.Len(), hc)
			}
			k.fw.OutAct = OutAct{Bias: b, ReLU: act.ReLU, P: act.P}
		}
		if op.bf16() {
			// The bfloat16 kernels read the output in bfloat16.
			h, release, err := d.halfOperand(o)
			if err != nil {
				return nil, nil, err
			}
			defer release()
			if h.Len() != rows*hc {
				return nil, nil, shapeErr(name+" backward", "output %dx%d, want %dx%d", h.Rows, h.Cols, rows, hc)
			}
			op.out16 = &BF16Tensor{buf: h.buf, ptr: h.ptr, Rows: rows, Cols: hc}
			gs, err := op.backwardAll(grad)
			if err != nil {
				return nil, nil, err
			}
			return gs[0], gs[1], nil
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

func (k *gatv2PairOp) feature(i int) bool { return i == 0 } // x·[W_l W_r]; att is float32

// halves16 splits a bfloat16 N x 2HC block into its column halves.
func (k *gatv2PairOp) halves16(t *BF16Tensor) (mat, mat) {
	hc := k.heads * k.c
	return mat{t.ptr, int64(t.Cols)}, mat{t.ptr + uintptr(hc)*2, int64(t.Cols)}
}

func (k *gatv2PairOp) forward16(ins16 []*BF16Tensor, ins []*Tensor) (*BF16Tensor, error) {
	hc := k.heads * k.c
	if x := ins16[0]; x.Rows != k.g.n || x.Cols != 2*hc {
		return nil, shapeErr("GATv2AttentionPair", "xlr %dx%d, want %dx%d", x.Rows, x.Cols, k.g.n, 2*hc)
	}
	a := &Tensor{buf: ins[1].buf, ptr: ins[1].ptr, Rows: 1, Cols: hc}
	xl, xr := k.halves16(ins16[0])
	var err error
	k.fw, err = gatv2Forward(k.g, xl, xr, a, k.heads, k.c, k.slope, k.drop, true)
	if err != nil {
		return nil, err
	}
	return k.fw.Out16, nil
}

func (k *gatv2PairOp) backward16(ins16 []*BF16Tensor, ins []*Tensor, out, dout *BF16Tensor) ([]tensor.Storage, error) {
	k.fw.Out16 = out
	hc := k.heads * k.c
	if err := k.fw.checkDout("GATv2AttentionPair backward", k.g, dout.Rows, dout.Cols, true); err != nil {
		return nil, err
	}
	a := &Tensor{buf: ins[1].buf, ptr: ins[1].ptr, Rows: 1, Cols: hc}
	dxlr, err := k.d.EmptyBF16(k.g.n, 2*hc)
	if err != nil {
		return nil, err
	}
	datt, err := k.d.Empty(1, hc)
	if err != nil {
		dxlr.Free()
		return nil, err
	}
	xl, xr := k.halves16(ins16[0])
	dxl, dxr := k.halves16(dxlr)
	// The edge-coefficient backward runs its source pass first.
	if k.fw.SourceFirst() {
		err = k.fw.backwardSrc(k.g, xl, xr, a, dout.ptr, dxl)
		if err == nil {
			err = k.fw.backwardDst(k.g, xl, xr, a, dout.ptr, dxr, datt)
		}
	} else {
		err = k.fw.backwardDst(k.g, xl, xr, a, dout.ptr, dxr, datt)
		if err == nil {
			err = k.fw.backwardSrc(k.g, xl, xr, a, dout.ptr, dxl)
		}
	}
	if err != nil {
		dxlr.Free()
		datt.Free()
		return nil, err
	}
	return []tensor.Storage{dxlr, datt}, nil
}

func (k *gatv2PairOp) release() {
	k.fw.LSE.Free()
	if k.fw.d != nil {
		k.fw.d.Free()
	}
	k.fw.freeEdges()
	k.fw.freeEdgeCoef()
}

// GATv2PairTakes reports whether GATv2AttentionPair takes heads of
// hf/heads channels: widths the kernels run unpadded.
func (d *backend) GATv2PairTakes(hf, heads int) bool {
	if heads <= 0 || hf%heads != 0 {
		return false
	}
	c := hf / heads
	_, ok := gatShape(c)
	return ok && fusedGATv2Width(c) == c
}
