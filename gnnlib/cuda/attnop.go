package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// attnKernels is one fused attention family (GATv2, GAT, the Graph
// Transformer) as fusedAttention drives it for gnnlib/nn.
type attnKernels interface {
	// forward runs the forward kernels on the inputs as the kernels take
	// them (heads widened to the kernels' width) and returns the output.
	forward(ins []*Tensor) (*Tensor, error)
	// backward returns the gradients of the inputs, at the kernels'
	// width, from the forward's output out and dout (both at the kernels'
	// width too). out is the block forward returned, or a float32 copy
	// of it when Autocast stored the output in bfloat16 (the kernels
	// recompute the attention from out and the saved log-sum-exp).
	backward(ins []*Tensor, out, dout *Tensor) ([]*Tensor, error)
	// release frees what the forward kept for the backward (the
	// log-sum-exp, saved edges), the output excepted.
	release()
}

// halfKernels is an attention family with bfloat16 kernels (GAT, GATv2,
// the Graph Transformer: all three), which fusedAttention runs under
// Autocast(BFloat16). Its features (feature(i)) reach the kernels as
// bfloat16 (ins16[i]); its other inputs (GATv2's att, GAT's per-node
// scores) as float32 (ins[i]). forward16 returns the bfloat16 output; backward16 the
// gradients, bfloat16 for the features and float32 for the others.
type halfKernels interface {
	attnKernels
	feature(i int) bool
	forward16(ins16 []*BF16Tensor, ins []*Tensor) (*BF16Tensor, error)
	backward16(ins16 []*BF16Tensor, ins []*Tensor, out, dout *BF16Tensor) ([]tensor.Storage, error)
}

// fusedAttention is the lifecycle every fused attention op of gnnlib/nn
// goes through, written once: the inputs are padded with zero channels
// when a head's width c is not the kernels' width cp (padHeads, which
// changes no score, output or gradient); the forward runs and its output
// is narrowed back; the backward function runs once, pads dOut, narrows
// the gradients to the inputs' shapes and frees the op's private state
// (and the padded copies) as soon as it ran instead of when the collector
// finds the closure dead. An unpadded output belongs to the caller.
//
// An input stored in bfloat16 reaches the kernels as a float32 copy
// (view widens it). The op frees that copy, and its padded copy, as soon
// as the forward kernels ran and widens the bfloat16 input again for the
// backward pass: between the two passes it holds only the caller's
// bfloat16 tensor, not a float32 copy beside it.
//
// Under Autocast(BFloat16) with BF16Attention on (the default), a family
// with bfloat16 kernels (halfKernels) runs them when its heads need no padding (bf16 set): the features are
// read in bfloat16 (the caller's storage, or a rounded copy of a float32
// input, made again for the backward pass rather than held between the
// passes), the output is bfloat16 storage handed to the caller and read
// again by the backward pass (as FlashAttention reads its bfloat16 O),
// and the features' gradients are bfloat16: no float32 copy of a feature,
// the output or a gradient is made.
//
// Otherwise, under Autocast(BFloat16), the output goes the way of the
// inputs: the op hands the caller a bfloat16 copy, frees the float32
// output and widens the copy again for the backward pass. Handing the
// caller the float32 block instead would let Autocast free it (it keeps
// the outputs of ops in bfloat16 and frees their float32 storage) while
// the backward kernels still meant to read it.
type fusedAttention struct {
	d            *backend
	heads, c, cp int
	srcs         []*tensor.Tensor // the caller's tensors
	shapes       [][2]int         // the rows and columns of the inputs' views
	widened      []bool           // the view of srcs[i] was a float32 copy of bfloat16
	ins          []*Tensor        // what the kernels read: the views, or padded copies
	out          *Tensor          // the kernels' output (nil between the passes when half is set)
	half         *BF16Tensor      // the caller's bfloat16 output under Autocast
	k            attnKernels
	done         bool
	// The bfloat16 kernels (halfKernels, start16 makes ins16): ins holds
	// only the float32 inputs, ins16 the features.
	ins16 []*BF16Tensor // the features as the kernels read them (an element nil between the passes where own16)
	own16 []bool        // ins16[i] is a rounded copy of a float32 input, which the op frees
	out16 *BF16Tensor   // the output, the caller's
}

func (op *fusedAttention) padded() bool { return op.cp != op.c }

// bf16 reports whether the op runs its bfloat16 kernels (start16).
func (op *fusedAttention) bf16() bool { return op.ins16 != nil }

// owned reports whether the op allocated ins[i] (a padded or widened
// copy) and so frees it.
func (op *fusedAttention) owned(i int) bool { return op.padded() || op.widened[i] }

// freeIns frees the copies of the inputs the op made.
func (op *fusedAttention) freeIns() {
	for i, t := range op.ins {
		if t != nil && op.owned(i) {
			t.Free()
		}
	}
	op.freeRounded()
}

// halfInputs makes ins16 and, for the float32 inputs, ins in bfloat16
// mode: a feature stored in bfloat16 is read as it is, a float32 one
// through a rounded copy (own16).
func (op *fusedAttention) halfInputs() error {
	hk := op.k.(halfKernels)
	for i, x := range op.srcs {
		if op.ins16[i] != nil || op.ins[i] != nil {
			continue
		}
		if !hk.feature(i) {
			v, err := op.d.view(x)
			if err != nil {
				return err
			}
			_, op.widened[i] = op.d.halfView(x)
			op.ins[i] = v
			continue
		}
		_, stored := op.d.halfView(x)
		h, _, err := op.d.halfOperand(x)
		if err != nil {
			return err
		}
		op.ins16[i], op.own16[i] = h, !stored
	}
	return nil
}

// freeRounded frees the rounded copies of float32 features (bfloat16
// mode); halfInputs makes them again.
func (op *fusedAttention) freeRounded() {
	for i, h := range op.ins16 {
		if h != nil && op.own16[i] {
			h.Free()
			op.ins16[i] = nil
		}
	}
}

// dropWidened frees, after the forward kernels ran, the inputs the op
// widened from bfloat16 (and their padded copies); rewiden makes them
// again for the backward pass.
func (op *fusedAttention) dropWidened() {
	for i, w := range op.widened {
		if w && op.ins[i] != nil {
			op.ins[i].Free()
			op.ins[i] = nil
		}
	}
}

// rewiden widens (and pads) again the bfloat16 inputs dropWidened freed.
func (op *fusedAttention) rewiden() error {
	for i, w := range op.widened {
		if !w || op.ins[i] != nil {
			continue
		}
		v, err := op.d.view(op.srcs[i])
		if err != nil {
			return err
		}
		if op.padded() {
			p, err := op.d.padHeads(v, op.heads, op.c, op.cp)
			v.Free()
			if err != nil {
				return err
			}
			v = p
		}
		op.ins[i] = v
	}
	return nil
}

// again gives the op input i made again, x (the same values in a new
// block: gnnlib/nn's GATv2Conv frees its product after the forward pass
// and computes it again, nn.RecomputeGATv2Product), for the backward
// pass to read in place of the block the forward pass read, which the
// caller has freed. The op's padded copies are not made again: a padded
// op refuses.
func (op *fusedAttention) again(i int, x *tensor.Tensor) error {
	if op.padded() {
		return fmt.Errorf("gnnlib/cuda: fused attention given an input again with padded heads")
	}
	if r, c := matrixShape(x.Shape()); r != op.shapes[i][0] || c != op.shapes[i][1] {
		return shapeErr("fused attention backward", "input %d again %dx%d, the forward pass read %dx%d", i, r, c, op.shapes[i][0], op.shapes[i][1])
	}
	op.srcs[i] = x
	if op.bf16() {
		// halfInputs reads x, or rounds it, again.
		if op.own16[i] && op.ins16[i] != nil {
			op.ins16[i].Free()
		}
		op.ins16[i] = nil
		return nil
	}
	if op.ins[i] != nil && op.owned(i) {
		op.ins[i].Free()
	}
	op.ins[i] = nil
	v, err := op.d.view(x)
	if err != nil {
		return err
	}
	_, op.widened[i] = op.d.halfView(x)
	op.ins[i] = v
	return nil
}

// attentionInputs checks what the fused GATv2 and Transformer attention
// ask of a call from the tensor API (a square graph; heads the kernels'
// widths take, padded by fusedGATv2Width) and returns the inputs' device
// views, the channels per head, the padded width and the device graph.
// What they refuse wraps tensor.ErrNotOnDevice, so that gnnlib/nn
// composes the attention instead. vs is nil where the op is to run its
// bfloat16 kernels (halfAttention), which read the inputs themselves.
func (d *backend) attentionInputs(op string, g *graph.Graph, heads int, xs ...*tensor.Tensor) (vs []*Tensor, c, cp int, dg *Graph, err error) {
	if !g.IsSquare() {
		return nil, 0, 0, nil, fmt.Errorf("gnnlib/cuda: %s on a rectangular graph (a sampled block): %w", op, tensor.ErrNotOnDevice)
	}
	_, cols := matrixShape(xs[0].Shape())
	c = cols / heads
	cp = fusedGATv2Width(c)
	half := d.halfAttention(c, cp, xs...)
	if !half {
		if vs, err = d.views(xs...); err != nil {
			return nil, 0, 0, nil, err
		}
	}
	if _, ok := gatShape(cp); !ok {
		freeViews(d, vs, xs)
		return nil, 0, 0, nil, fmt.Errorf("gnnlib/cuda: %s with %d channels per head (the fused kernel takes up to %d): %w", op, c, maxGATv2Channels, tensor.ErrNotOnDevice)
	}
	if dg, err = d.deviceGraph(g, false); err != nil {
		freeViews(d, vs, xs)
		return nil, 0, 0, nil, err
	}
	return vs, c, cp, dg, nil
}

// freeViews frees the views of xs (vs, d.views(xs...)) that are float32
// copies of bfloat16 storage.
func freeViews(d *backend, vs []*Tensor, xs []*tensor.Tensor) {
	for i, v := range vs {
		if _, half := d.halfView(xs[i]); half && v != nil {
			v.Free()
		}
	}
}

// BF16Attention makes the fused attention ops of gnnlib/nn (GATAttention,
// GATv2Attention, TransformerAttention) run their bfloat16 kernels under
// tensor.Autocast(tensor.BFloat16) (fusedAttention's bfloat16 mode) and
// UnbiasAct rebuild a bfloat16 output in bfloat16, instead of reading
// float32 copies of their bfloat16 operands. It is on by default. On an
// H100 (2026-12-06) TestGATBF16 and TestTransformerBF16 passed; the GATv2
// gradients that TestGATv2BF16 and TestAttentionBackwardAfterHalfStore
// found past their bounds were rounding those tests did not allow for
// (the tests now do: TestGATv2LayoutsEmulated, doc.go's "Bfloat16 and the
// tensor cores"), and in their new form they passed on the H100 in the
// final run that day. Turn it off to compare with the float32 kernels.
// GATv2ForwardBF16, TransformerForwardBF16, GATForwardBF16 and their
// backward passes run them whatever it says. Set it before work is
// queued.
var BF16Attention = true

// halfAttention reports whether a fused attention over xs runs its
// bfloat16 kernels: BF16Attention on, under Autocast(BFloat16), with
// heads of c channels that need no padding (cp == c), every input on d
// and every bfloat16 one 16-byte aligned (the kernels load 4 or 8 values
// at once).
func (d *backend) halfAttention(c, cp int, xs ...*tensor.Tensor) bool {
	if !BF16Attention || !d.autocastBF16() || cp != c {
		return false
	}
	for _, x := range xs {
		if h, ok := d.halfView(x); ok {
			if h.ptr%16 != 0 {
				return false
			}
			continue
		}
		if s, ok := x.Storage().(*Tensor); !ok || s.buf.dev != d.Device {
			return false
		}
	}
	return true
}

// runAttention pads views (d.views(srcs...)) when needed, runs k's
// forward and returns the output with the backward function gnnlib/nn's
// device ops expect.
func (d *backend) runAttention(heads, c, cp int, srcs []*tensor.Tensor, views []*Tensor, k attnKernels) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	op, out, err := d.startAttention(heads, c, cp, srcs, views, k)
	if err != nil {
		return nil, nil, err
	}
	return out, op.backward, nil
}

// startAttention is runAttention's forward: the op and the output. views
// nil (attentionInputs' answer for halfAttention) runs k's bfloat16
// kernels.
func (d *backend) startAttention(heads, c, cp int, srcs []*tensor.Tensor, views []*Tensor, k attnKernels) (*fusedAttention, tensor.Storage, error) {
	op := &fusedAttention{d: d, heads: heads, c: c, cp: cp, srcs: srcs, ins: make([]*Tensor, len(srcs)),
		shapes: make([][2]int, len(srcs)), widened: make([]bool, len(srcs)), k: k}
	if views == nil {
		if _, ok := k.(halfKernels); !ok {
			return nil, nil, fmt.Errorf("gnnlib/cuda: fused attention without bfloat16 kernels given no float32 views")
		}
		if err := op.start16(); err != nil {
			return nil, nil, err
		}
		return op, op.out16, nil
	}
	for i, v := range views {
		op.shapes[i] = [2]int{v.Rows, v.Cols}
		if srcs[i] != nil {
			_, op.widened[i] = d.halfView(srcs[i])
		}
	}
	if !op.padded() {
		copy(op.ins, views)
	} else {
		for i, t := range views {
			var err error
			op.ins[i], err = d.padHeads(t, heads, c, cp)
			if op.widened[i] {
				t.Free()
			}
			if err != nil {
				op.freeIns()
				return nil, nil, err
			}
		}
	}
	var err error
	if op.out, err = k.forward(op.ins); err != nil {
		op.freeIns()
		return nil, nil, err
	}
	op.dropWidened()
	out := op.out
	switch {
	case op.padded():
		if out, err = d.unpadHeads(op.out, heads, c, cp); err != nil {
			op.out.Free()
			k.release()
			op.freeIns()
			return nil, nil, err
		}
	case d.autocastBF16():
		h, err := ToBF16(op.out)
		op.out.Free()
		op.out = nil
		if err != nil {
			k.release()
			op.freeIns()
			return nil, nil, err
		}
		op.half = h
		return op, h, nil
	}
	return op, out, nil
}

// start16 is startAttention's bfloat16 mode.
func (op *fusedAttention) start16() error {
	op.ins16, op.own16 = make([]*BF16Tensor, len(op.srcs)), make([]bool, len(op.srcs))
	for i, x := range op.srcs {
		op.shapes[i][0], op.shapes[i][1] = matrixShape(x.Shape())
	}
	if err := op.halfInputs(); err != nil {
		op.freeIns()
		return err
	}
	out, err := op.k.(halfKernels).forward16(op.ins16, op.ins)
	if err != nil {
		op.freeIns()
		return err
	}
	op.out16 = out
	op.dropWidened()
	op.freeRounded()
	return nil
}

// backward16 is backward's bfloat16 mode: the gradients of the features
// in bfloat16, of the other inputs in float32.
func (op *fusedAttention) backward16(grad *tensor.Tensor) ([]tensor.Storage, error) {
	if op.out16 == nil {
		return nil, fmt.Errorf("gnnlib/cuda: fused attention's backward pass without its output")
	}
	if err := op.halfInputs(); err != nil {
		return nil, err
	}
	dout, release, err := op.d.halfOperand(grad)
	if err != nil {
		return nil, err
	}
	defer release()
	if dout.Len() != op.out16.Len() {
		return nil, shapeErr("fused attention backward", "dOut %dx%d, output %dx%d", dout.Rows, dout.Cols, op.out16.Rows, op.out16.Cols)
	}
	dout = &BF16Tensor{buf: dout.buf, ptr: dout.ptr, Rows: op.out16.Rows, Cols: op.out16.Cols}
	return op.k.(halfKernels).backward16(op.ins16, op.ins, op.out16, dout)
}

// ownsOut reports whether op.out is the op's own block (padded, or the
// float32 copy of a bfloat16 output), which the backward pass frees.
func (op *fusedAttention) ownsOut() bool { return op.padded() || op.half != nil }

func (op *fusedAttention) backward(grad *tensor.Tensor) (g0, g1, g2 tensor.Storage, err error) {
	gs, err := op.backwardAll(grad)
	if err != nil {
		return nil, nil, nil, err
	}
	return gs[0], gs[1], gs[2], nil
}

// backwardAll is backward for an op of any number of inputs: one
// gradient each, in the inputs' order.
func (op *fusedAttention) backwardAll(grad *tensor.Tensor) ([]tensor.Storage, error) {
	if op.done {
		return nil, errBackwardTwice
	}
	op.done = true
	defer func() {
		op.k.release()
		if op.ownsOut() && op.out != nil {
			op.out.Free()
		}
		op.freeIns()
	}()
	d := op.d
	if op.bf16() {
		gs, err := op.backward16(grad)
		if err != nil {
			return nil, err
		}
		for i, g := range gs {
			setShape(g, op.shapes[i][0], op.shapes[i][1])
		}
		return gs, nil
	}
	if err := op.rewiden(); err != nil {
		return nil, err
	}
	if op.half != nil {
		var err error
		if op.out, err = d.widen(op.half, op.half.Rows, op.half.Cols); err != nil {
			return nil, err
		}
	}
	dout, err := d.view(grad)
	if err != nil {
		return nil, err
	}
	if _, half := d.halfView(grad); half {
		defer dout.Free()
	}
	if op.padded() {
		if dout, err = d.padHeads(dout, op.heads, op.c, op.cp); err != nil {
			return nil, err
		}
		defer dout.Free()
	}
	gs, err := op.k.backward(op.ins, op.out, dout)
	if err != nil {
		return nil, err
	}
	outs := make([]*Tensor, len(gs))
	if !op.padded() {
		copy(outs, gs)
	} else {
		defer func() {
			for _, t := range gs {
				t.Free()
			}
		}()
		for i, t := range gs {
			if outs[i], err = d.unpadHeads(t, op.heads, op.c, op.cp); err != nil {
				for _, o := range outs[:i] {
					o.Free()
				}
				return nil, err
			}
		}
	}
	// Each gradient takes its input's shape (att's 1 x HC, a score's N x H).
	for i, t := range outs {
		if rows, cols := op.shapes[i][0], op.shapes[i][1]; t.Len() == rows*cols {
			t.Rows, t.Cols = rows, cols
		}
	}
	res := make([]tensor.Storage, len(outs))
	for i, t := range outs {
		if t != nil {
			res[i] = t
		}
	}
	return res, nil
}

// setShape gives a gradient its input's shape (att's 1 x HC, a score's N
// x H) when it has as many values.
func setShape(s tensor.Storage, rows, cols int) {
	switch t := s.(type) {
	case *Tensor:
		if t.Len() == rows*cols {
			t.Rows, t.Cols = rows, cols
		}
	case *BF16Tensor:
		if t.Len() == rows*cols {
			t.Rows, t.Cols = rows, cols
		}
	}
}

// freeAll frees the tensors of ts that are not nil.
func freeAll(ts []*Tensor) {
	for _, t := range ts {
		if t != nil {
			t.Free()
		}
	}
}
