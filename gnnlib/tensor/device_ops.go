package tensor

import (
	"fmt"
	"time"
)

// The device versions of the ops along an axis, the row gathers and
// scatters, joins and slices, and the losses beyond CrossEntropy. Each
// checks its operands as the CPU version does, calls one Backend method
// and records a backward pass made of Backend calls too.

// deviceSoftmax is Softmax (log false) or LogSoftmax along a normalised
// axis on a device.
func deviceSoftmax(name string, t *Tensor, axis int, log bool) *Tensor {
	start := OpStart()
	be := t.dev.Backend()
	s, err := be.Softmax(t, axis, log)
	out := devResult(name, be, s, err, t.shape)
	return NewOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.SoftmaxGrad(g, out, axis, log)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// deviceSumAxis is SumAxis (scale 1) and MeanAxis along a normalised axis
// on a device.
func deviceSumAxis(name string, t *Tensor, axis int, keepdim bool, scale float32) *Tensor {
	start := OpStart()
	be := t.dev.Backend()
	s, err := be.SumAxis(t, axis, scale)
	out := devResult(name, be, s, err, reducedShape(t.shape, axis, keepdim))
	return NewOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
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
	return NewOpSince(start0, "IndexSelect", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
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
	return NewOpSince(start0, name, out, inputs, func(g *Tensor) []*Tensor {
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
	return NewOpSince(start0, "Concat", out, ts, func(g *Tensor) []*Tensor {
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
	return NewOpSince(start0, "Narrow", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
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

// deviceLoss is MSE (op "mse") or BCEWithLogits ("bce_logits") on a
// device: loss and gradient come from one fused pass, and the backward
// pass scales the stored gradient by the upstream one.
func deviceLoss(name, op string, pred, target *Tensor) *Tensor {
	start := OpStart()
	be := backendOf(name, pred, target)
	if !pred.SameShape(target) {
		panic(&ShapeError{Op: name, A: cloneInts(pred.shape), B: cloneInts(target.shape)})
	}
	ls, gs, err := be.Loss(op, pred, target)
	loss := devResult(name, be, ls, err, []int{})
	grad := &Tensor{dev: gs, shape: cloneInts(pred.shape)}
	n := float32(pred.Len())
	return NewOpSince(start, name, loss, []*Tensor{pred, target}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(grad.Len(), grad, g, 1)
		dp := devResult(name+" backward", be, s, err, pred.shape)
		var dt *Tensor
		if target.RequiresGrad() {
			if op == "mse" { // -dp
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
	start := OpStart()
	be := logp.dev.Backend()
	ls, gs, err := be.NLL(logp, labels, rows)
	loss := devResult("NLL", be, ls, err, []int{})
	grad := &Tensor{dev: gs, shape: cloneInts(logp.shape)}
	return NewOpSince(start, "NLL", loss, []*Tensor{logp}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(grad.Len(), grad, g, 1)
		return []*Tensor{devResult("NLL backward", be, s, err, logp.shape)}
	})
}

// deviceDropout is Dropout on a device: the mask is a function of a seed
// drawn from rng and of the element's index, recomputed by the backward
// pass rather than stored, so it differs from the CPU's for the same rng.
func deviceDropout(t *Tensor, p float32, rng *RNG) *Tensor {
	start := OpStart()
	if p < 0 || p >= 1 {
		panic(&ShapeError{Op: "Dropout", A: cloneInts(t.shape), Msg: fmt.Sprintf("probability %g not in [0, 1)", p)})
	}
	be := t.dev.Backend()
	seed := uint64(rng.Float64()*(1<<53)) ^ uint64(rng.Float64()*(1<<53))<<11
	s, err := be.Dropout(t, p, seed)
	out := devResult("Dropout", be, s, err, t.shape)
	return NewOpSince(start, "Dropout", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.DropoutGrad(g, p, seed)
		return []*Tensor{devResult("Dropout backward", be, s, err, t.shape)}
	})
}
