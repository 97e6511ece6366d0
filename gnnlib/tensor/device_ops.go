package tensor

import (
	"fmt"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend/opcode"
)

// The device versions of the ops along an axis, the row gathers and
// scatters, joins and slices, and the losses beyond CrossEntropy. Each
// checks its operands as the CPU version does, calls one Backend method
// and records a backward pass made of Backend calls too.

// deviceSoftmax is Softmax (log false) or LogSoftmax along a normalised
// axis on a device.
func deviceSoftmax(name string, t *Tensor, axis int, log bool) *Tensor {
	start := opStart()
	be := t.dev.Backend()
	s, err := be.Softmax(t, axis, log)
	out := devResult(name, be, s, err, t.shape)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.SoftmaxGrad(g, out, axis, log)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// deviceSumAxis is SumAxis (scale 1) and MeanAxis along a normalised axis
// on a device.
func deviceSumAxis(name string, t *Tensor, axis int, keepdim bool, scale float32) *Tensor {
	start := opStart()
	be := t.dev.Backend()
	s, err := be.SumAxis(t, axis, scale)
	out := devResult(name, be, s, err, reducedShape(t.shape, axis, keepdim))
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.ExpandAxis(g, t.shape, axis, scale)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// deviceArgReduce is ArgMax (wantMax) and ArgMin on a device: the
// indices are computed there and only they come back.
func deviceArgReduce(name string, t *Tensor, axis int, wantMax bool) []int {
	axis = t.axis(name, axis)
	if t.shape[axis] == 0 {
		panic(&ShapeError{Op: name, A: cloneInts(t.shape), Msg: "empty axis"})
	}
	be := t.dev.Backend()
	idx, err := be.ArgReduce(t, axis, wantMax)
	if err != nil {
		devicePanic(name, be, err)
	}
	return idx
}

// deviceIndexSelect is IndexSelect on a device (indices checked).
func deviceIndexSelect(start0 time.Time, t *Tensor, idx []int) *Tensor {
	be := t.dev.Backend()
	rows := t.shape[0]
	s, err := be.Gather(t, idx)
	out := devResult("IndexSelect", be, s, err, append([]int{len(idx)}, t.shape[1:]...))
	return newOpSince(start0, "IndexSelect", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.ScatterAdd(g, idx, rows)
		return []*Tensor{devResult("IndexSelect backward", be, s, err, t.shape)}
	})
}

// deviceScatter returns n rows with src's rows added at rows idx on a
// device, plus t's values when t is not nil (IndexAdd); the gradient goes
// to src (gathered) and to t (as it is).
func deviceScatter(start0 time.Time, name string, t, src *Tensor, idx []int, n int) *Tensor {
	be := src.dev.Backend()
	if t != nil {
		be = backendOf(name, t, src)
	}
	shape := append([]int{n}, src.shape[1:]...)
	s, err := be.ScatterAdd(src, idx, n)
	out := devResult(name, be, s, err, shape)
	inputs := []*Tensor{src}
	if t != nil {
		if err := be.AddTo(out, t); err != nil {
			devicePanic(name, be, err)
		}
		inputs = []*Tensor{t, src}
	}
	return newOpSince(start0, name, out, inputs, func(g *Tensor) []*Tensor {
		var gs *Tensor
		if src.RequiresGrad() {
			s, err := be.Gather(g, idx)
			gs = devResult(name+" backward", be, s, err, src.shape)
		}
		if t == nil {
			return []*Tensor{gs}
		}
		return []*Tensor{g, gs}
	})
}

// deviceConcat is Concat on a device; sizes are the operands' lengths
// along the normalised axis and shape the result's.
func deviceConcat(start0 time.Time, be Backend, axis int, shape, sizes []int, ts []*Tensor) *Tensor {
	s, err := be.Concat(axis, ts)
	out := devResult("Concat", be, s, err, shape)
	return newOpSince(start0, "Concat", out, ts, func(g *Tensor) []*Tensor {
		grads := make([]*Tensor, len(ts))
		off := 0
		for i, t := range ts {
			if t.RequiresGrad() {
				s, err := be.Narrow(g, axis, off, sizes[i])
				grads[i] = devResult("Concat backward", be, s, err, t.shape)
			}
			off += sizes[i]
		}
		return grads
	})
}

// deviceNarrow is Narrow on a device (range checked); its gradient is g
// between zeros, joined by Concat.
func deviceNarrow(start0 time.Time, t *Tensor, axis, start, length int) *Tensor {
	be := t.dev.Backend()
	shape := cloneInts(t.shape)
	shape[axis] = length
	s, err := be.Narrow(t, axis, start, length)
	out := devResult("Narrow", be, s, err, shape)
	return newOpSince(start0, "Narrow", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		var parts []*Tensor
		zeros := func(n int) {
			if n > 0 {
				z := cloneInts(t.shape)
				z[axis] = n
				parts = append(parts, deviceFull(be, 0, z))
			}
		}
		zeros(start)
		parts = append(parts, g)
		zeros(t.shape[axis] - start - length)
		if len(parts) == 1 {
			return []*Tensor{g}
		}
		s, err := be.Concat(axis, parts)
		return []*Tensor{devResult("Narrow backward", be, s, err, t.shape)}
	})
}

// deviceLoss is MSE (op LossMSE) or BCEWithLogits (LossBCELogits) on a
// device: loss and gradient come from one fused pass, and the backward
// pass scales the stored gradient by the upstream one.
func deviceLoss(name string, op opcode.LossOp, pred, target *Tensor) *Tensor {
	start := opStart()
	be := backendOf(name, pred, target)
	if !pred.SameShape(target) {
		panic(&ShapeError{Op: name, A: cloneInts(pred.shape), B: cloneInts(target.shape)})
	}
	ls, gs, err := be.Loss(op, pred, target)
	loss := devResult(name, be, ls, err, []int{})
	grad := &Tensor{dev: gs, shape: cloneInts(pred.shape)}
	n := float32(pred.Len())
	return newOpSince(start, name, loss, []*Tensor{pred, target}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(grad.Len(), grad, g, 1)
		dp := devResult(name+" backward", be, s, err, pred.shape)
		var dt *Tensor
		if target.RequiresGrad() {
			if op == opcode.LossMSE { // -dp
				s, err = be.Scale(grad.Len(), grad, g, -1)
			} else { // -logits·g/n
				s, err = be.Scale(pred.Len(), pred, g, -1/n)
			}
			dt = devResult(name+" backward", be, s, err, target.shape)
		}
		return []*Tensor{dp, dt}
	})
}

// deviceNLL is NLL on a device (operands checked).
func deviceNLL(logp *Tensor, labels, rows []int) *Tensor {
	start := opStart()
	be := logp.dev.Backend()
	ls, gs, err := be.NLL(logp, labels, rows)
	loss := devResult("NLL", be, ls, err, []int{})
	grad := &Tensor{dev: gs, shape: cloneInts(logp.shape)}
	return newOpSince(start, "NLL", loss, []*Tensor{logp}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(grad.Len(), grad, g, 1)
		return []*Tensor{devResult("NLL backward", be, s, err, grad.shape)}
	})
}

// deviceDropout is Dropout on a device: the mask is a function of a seed
// drawn from rng and of the element's index, recomputed by the backward
// pass rather than stored, so it differs from the CPU's for the same rng.
func deviceDropout(t *Tensor, p float32, rng *RNG) *Tensor {
	start := opStart()
	if p < 0 || p >= 1 {
		panic(&ShapeError{Op: "Dropout", A: cloneInts(t.shape), Msg: fmt.Sprintf("probability %g not in [0, 1)", p)})
	}
	be := t.dev.Backend()
	seed := uint64(rng.Float64()*(1<<53)) ^ uint64(rng.Float64()*(1<<53))<<11
	s, err := be.Dropout(t, p, seed)
	out := devResult("Dropout", be, s, err, t.shape)
	shape := t.shape // the backward pass keeps no operand
	return newOpSince(start, "Dropout", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.DropoutGrad(g, p, seed)
		return []*Tensor{devResult("Dropout backward", be, s, err, shape)}
	})
}

// freeStorage gives an intermediate device tensor's memory back at once
// when its storage can (see releaser).
func freeStorage(t *Tensor) {
	if f, ok := t.dev.(interface{ Free() }); ok {
		f.Free()
	}
}

// devicePermute is Permute and Transpose on a device; inv is perm's
// inverse.
func devicePermute(start time.Time, name string, t *Tensor, perm, inv []int) *Tensor {
	be := t.dev.Backend()
	shape := make([]int, len(perm))
	for i, a := range perm {
		shape[i] = t.shape[a]
	}
	s, err := be.Permute(t, perm)
	out := devResult(name, be, s, err, shape)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.Permute(g, inv)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// deviceConv2D is Conv2D on a device (operands checked): im2col into one
// row per output pixel, one product with the weight, the bias, and a
// permutation to NCHW. The columns are kept for the weight gradient, as
// on the CPU.
func deviceConv2D(start time.Time, x, w, b *Tensor, g convGeom) *Tensor {
	const name = "Conv2D"
	be := backendOf(name, x, w)
	if b != nil {
		backendOf(name, x, b)
	}
	ckk, ohw := g.ckk(), g.ohw()
	rows := g.n * ohw
	s, err := be.Im2Col(x, g.kh, g.kw, g.stride, g.padding)
	cols := devResult(name, be, s, err, []int{rows, ckk})
	w2 := &Tensor{dev: w.dev, shape: []int{g.o, ckk}}
	s, err = be.MatMul(cols, w2, false, true)
	y := devResult(name, be, s, err, []int{rows, g.o})
	if b != nil {
		s, err = be.Binary(opcode.BinaryAdd, y, b)
		yb := devResult(name, be, s, err, y.shape)
		freeStorage(y)
		y = yb
	}
	s, err = be.Permute(&Tensor{dev: y.dev, shape: []int{g.n, ohw, g.o}}, []int{0, 2, 1})
	out := devResult(name, be, s, err, []int{g.n, g.o, g.oh, g.ow})
	freeStorage(y)
	inputs := []*Tensor{x, w}
	if b != nil {
		inputs = append(inputs, b)
	}
	return newOpSince(start, name, out, inputs, func(gr *Tensor) []*Tensor {
		grads := make([]*Tensor, len(inputs))
		s, err := be.Permute(&Tensor{dev: gr.dev, shape: []int{g.n, g.o, ohw}}, []int{0, 2, 1})
		g2 := devResult(name+" backward", be, s, err, []int{rows, g.o})
		if x.RequiresGrad() { // dcols = G·W, folded back
			s, err := be.MatMul(g2, w2, false, false)
			dcols := devResult(name+" backward", be, s, err, []int{rows, ckk})
			s, err = be.Col2Im(dcols, x.shape, g.kh, g.kw, g.stride, g.padding)
			grads[0] = devResult(name+" backward", be, s, err, x.shape)
			freeStorage(dcols)
		}
		if w.RequiresGrad() { // dW = Gᵀ·cols
			s, err := be.MatMul(g2, cols, true, false)
			grads[1] = devResult(name+" backward", be, s, err, w.shape)
		}
		if b != nil && b.RequiresGrad() {
			s, err := be.ColSum(g2)
			grads[2] = devResult(name+" backward", be, s, err, b.shape)
		}
		freeStorage(g2)
		return grads
	})
}

// devicePool is MaxPool2D (op PoolMax) and AvgPool2D (PoolAvg) on a device;
// the backward pass finds each window's maximum again instead of storing
// it.
func devicePool(start time.Time, name string, op opcode.PoolOp, t *Tensor, g convGeom) *Tensor {
	be := t.dev.Backend()
	s, err := be.Pool2D(op, t, g.kh, g.stride)
	out := devResult(name, be, s, err, []int{g.n, g.c, g.oh, g.ow})
	return newOpSince(start, name, out, []*Tensor{t}, func(gr *Tensor) []*Tensor {
		s, err := be.Pool2DGrad(op, gr, t, g.kh, g.stride)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}
