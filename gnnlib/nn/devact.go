package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// ReLUDropoutOps is an optional capability of a device (a DeviceOps that
// also has these methods; gnnlib/cuda's does): ReLU and dropout in one
// pass, the mask drawn from (seed, index) as the device's Dropout draws
// it, and the gradient through both from the output alone. ReLUDropout
// uses it; devices without it run the two ops.
type ReLUDropoutOps interface {
	ReLUDropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error)
	ReLUDropoutGrad(g, y *tensor.Tensor, p float32) (tensor.Storage, error)
}

// GraphSpMMBiasOps is an optional capability of a device: A·x + b (b
// broadcast over the rows) with the bias added as the propagation stores
// each row, the values of GraphSpMM and then Binary("add") without the
// intermediate. GCNConv's device op uses it.
type GraphSpMMBiasOps interface {
	GraphSpMMBias(g *graph.Graph, weighted bool, x, b *tensor.Tensor) (tensor.Storage, error)
}

// ReLUDropout returns d.Forward(x.ReLU()): the hidden activation of a GCN
// or GraphSAGE layer. On a device with ReLUDropoutOps (in training mode,
// P > 0) it is one op, whose backward pass keeps only its output (ReLU's
// derivative is 1 exactly where the output is not zero, unless dropped,
// where the gradient is zero anyway): one pass and one activation-sized
// tensor less per layer than the two ops, with the same values bit for
// bit (the same mask from the same draws of d's generator).
func ReLUDropout(x *tensor.Tensor, d *Dropout) *tensor.Tensor {
	if !d.Training() || d.P == 0 || !x.IsOnDevice() || x.IsSparse() {
		return d.Forward(x.ReLU())
	}
	return reluDropout(x, d.P, d.rng)
}

// reluDropout is ReLUDropout with probability p drawn from r (training,
// p > 0, x dense on a device).
func reluDropout(x *tensor.Tensor, p float32, r *tensor.RNG) *tensor.Tensor {
	be := x.Device()
	if gb, ok := be.(backend.GraphBackend); ok {
		be, _ = backend.FixAutocast(gb) // one lookup of the scope for the op's calls
	}
	ops, ok := be.(ReLUDropoutOps)
	if !ok {
		return x.ReLU().Dropout(p, r, true)
	}
	const name = "ReLUDropout"
	start := backend.OpStart()
	if p < 0 || p >= 1 {
		panic(&tensor.ShapeError{Op: name, A: x.Shape(), Msg: fmt.Sprintf("probability %g not in [0, 1)", p)})
	}
	seed := dropoutSeed(r)
	s, err := ops.ReLUDropout(x, p, seed)
	y := devStorage(name, x, s, err, x.Shape()...)
	shape, dev := x.Shape(), x.Device()
	var keeper *outKeeper
	var bsum *biasSum
	y = backend.NewOpSince(start, name, y, []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
		var gx *tensor.Tensor
		if co, ok := ops.(ReLUDropoutColSumOps); ok && bsum != nil && g.DType() == tensor.Float32 && y.DType() == tensor.Float32 && tensor.AutocastDType() == tensor.Float32 {
			// The bias gradient of x's layer op in the same pass.
			s, sum, err := co.ReLUDropoutGradColSum(g, y, p)
			deviceCheckOn(name+" backward", dev, err)
			gx = backend.FromStorage(s, shape...)
			bsum.set(gx, backend.FromStorage(sum, shape[len(shape)-1]))
		} else {
			s, err := ops.ReLUDropoutGrad(g, y, p)
			deviceCheckOn(name+" backward", dev, err)
			gx = backend.FromStorage(s, shape...)
		}
		if keeper != nil {
			keeper.gradFor(gx)
		}
		return []*tensor.Tensor{gx}
	})
	if !y.IsLeaf() {
		keeper = handOff(x, y, p) // x's fused layer op (GATv2Conv) keeps y instead
		if HandOffBiasGrad {
			bsum = takeBiasSum(x) // and sums the columns of its gradient here
		}
	}
	return y
}

// dropoutSeed draws a dropout mask's seed from r as Tensor.Dropout draws
// it on a device, so that ReLUDropout's mask is the one the two ops would
// use.
func dropoutSeed(r *tensor.RNG) uint64 {
	return uint64(r.Float64()*(1<<53)) ^ uint64(r.Float64()*(1<<53))<<11
}

// BiasActOps is an optional capability of a device with ReLUDropoutOps
// (gnnlib/cuda's and devicetest.Fake's have it): ReLUDropout of a
// layer's biased output in the pass that adds the bias, which
// ForwardReLUDropout's fused layer ops use. Both draw ReLUDropout's mask
// from seed.
type BiasActOps interface {
	// BiasReLUDropout writes dropout(relu(x + b)) over x, a fused layer
	// op's own pre-activation, and returns x's storage.
	BiasReLUDropout(x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error)
	// GraphSpMMBiasReLUDropout returns dropout(relu(A·x + b)) over g
	// (GraphSpMMBiasOps' propagation with the activation).
	GraphSpMMBiasReLUDropout(g *graph.Graph, weighted bool, x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error)
}

// FuseLayerActivation makes ForwardReLUDropout (and GCN's first layer)
// apply the ReLU and dropout inside the layer's fused device op (see
// there); false runs the layer and then ReLUDropout (gnnbench
// -nnepoch-ab compares the two). The devicetest.Fake checks agree bit for
// bit, and gnnlib/cuda's TestForwardReLUDropoutOnDevice passed on an H100
// (2026-12-06, final run). Set it before a model runs.
var FuseLayerActivation = true

// FuseLayerActivationUnderAutocast lets FuseLayerActivation apply to
// GATv2Conv under tensor.Autocast as well: the bias, ReLU and dropout
// in place over the attention's bfloat16 output (bias_act_bf16), and the
// backward pass rebuilding that output from the activation in bfloat16
// (unbias_act_bf16), instead of a biased output, a separate ReLUDropout
// and the attention output kept until the backward pass. GCNConv fuses
// under Autocast either way. false keeps the GATv2 layer's two ops under
// Autocast (gnnbench -only nnbf16 compares the two).
var FuseLayerActivationUnderAutocast = true

// actLayer is a layer whose fused device op can end in ReLUDropout.
type actLayer interface {
	// forwardReLUDropout returns ReLUDropout(Forward(g, x)) with
	// probability p, its mask's seed drawn from r, from one fused op, or
	// nil, having done nothing (drawn nothing from r), where it cannot.
	forwardReLUDropout(g *graph.Graph, x *tensor.Tensor, p float32, r *tensor.RNG) *tensor.Tensor
}

// ForwardReLUDropout returns ReLUDropout(layer.Forward(g, x), d): a
// hidden graph layer with its ReLU and dropout, as PyG's BasicGNN models
// and gnnbench's hand-written epochs apply them. On a device with
// BiasActOps, in training mode, a GCNConv (and a GATv2Conv with one head
// or concatenated heads, in float32) applies the bias, ReLU and dropout
// in the pass that makes its output (GCN's propagation, or in place over
// its product or attention output), so the biased output that the two
// calls would make, and that lives until the garbage collector finds it,
// is never made; its backward pass takes the activation's gradient and
// the bias gradient in one pass (ReLUDropoutColSumOps). The values are
// ReLUDropout's, the same mask from the same draws of d's generator.
// Other layers and devices run the two calls.
func ForwardReLUDropout(layer GraphLayer, g *graph.Graph, x *tensor.Tensor, d *Dropout) *tensor.Tensor {
	if y := fusedReLUDropout(layer, g, x, d.P, d.rng, d.Training()); y != nil {
		return y
	}
	return ReLUDropout(layer.Forward(g, x), d)
}

// fusedReLUDropout is ForwardReLUDropout's fused layer op with
// probability p drawn from r, or nil where there is none.
func fusedReLUDropout(layer GraphLayer, g *graph.Graph, x *tensor.Tensor, p float32, r *tensor.RNG, training bool) *tensor.Tensor {
	l, ok := layer.(actLayer)
	if !ok || !FuseLayerActivation || !training || p == 0 {
		return nil
	}
	return l.forwardReLUDropout(g, x, p, r)
}

// fusedAct is the ReLU and dropout (probability p, mask from seed) a
// fused layer op applies to its biased output.
type fusedAct struct {
	p    float32
	seed uint64
	// y is the op's output, the activation, whose zeros the backward
	// pass reads (ReLUDropoutGrad). It is set (keep) only with an
	// activation, and dropped once read: the op's backward function must
	// not hold the layer's output longer than the ops it stands for
	// would, or the caller's last reference to it would not be the last.
	y *tensor.Tensor
}

// keep records y, the output of the op applying a (nil: none).
func (a *fusedAct) keep(y *tensor.Tensor) {
	if a != nil {
		a.y = y
	}
}

// outputGrad starts a fused GCN layer's backward pass: it returns the
// gradient of the layer's biased output and, when b requires one, the
// bias gradient. With an activation (a != nil) that gradient, gx, is the
// op's own, made from grad and a.y: grad is freed when owned (ReLUDropout's
// op would have let it go here) and a.y dropped (the caller's to drop).
// Without one, grad passes through and gx is nil.
func (a *fusedAct) outputGrad(ops backend.GraphBackend, op string, x, grad, b *tensor.Tensor, owned bool, bsum *biasSum) (g, gb, gx *tensor.Tensor) {
	if a == nil {
		if b.RequiresGrad() {
			gb = bsum.colSum(ops, op, x, grad, b)
		}
		return grad, gb, nil
	}
	gx, gb = a.backward(ops, op, x, grad, a.y, b, b.RequiresGrad())
	a.y = nil
	if owned {
		freeStorage(grad)
	}
	return gx, gb, gx
}

// backward returns the gradient of the layer's biased output from grad,
// the gradient of its activation y, and with sum set the column sums of
// that gradient (the bias gradient, shaped like b), in one pass where
// the device has ReLUDropoutColSumOps and the storage is float32.
func (a *fusedAct) backward(ops backend.GraphBackend, op string, x, grad, y, b *tensor.Tensor, sum bool) (gx, db *tensor.Tensor) {
	shape := y.Shape()
	if co, ok := ops.(ReLUDropoutColSumOps); ok && sum && colSumIn(grad, y) {
		s, cs, err := co.ReLUDropoutGradColSum(grad, y, a.p)
		deviceCheck(op, x, err)
		return backend.FromStorage(s, shape...), backend.FromStorage(cs, b.Shape()...)
	}
	s, err := ops.(ReLUDropoutOps).ReLUDropoutGrad(grad, y, a.p)
	gx = devStorage(op, x, s, err, shape...)
	if sum {
		s, err := ops.ColSum(gx)
		db = devStorage(op, x, s, err, b.Shape()...)
	}
	return gx, db
}

// ActColSumUnderAutocast makes a fused layer activation's backward pass
// (ForwardReLUDropout's GCNConv and GATv2Conv) take the activation's
// gradient and the bias gradient in one ReLUDropoutColSumOps call under
// tensor.Autocast as well, where the device stores both in 16 bits
// (gnnlib/cuda: act_backward_colsum_bf16): one pass over the gradient
// instead of ReLUDropoutGrad and then ColSum. false keeps the two calls
// under Autocast.
var ActColSumUnderAutocast = true

// colSumIn reports whether the fused activation's backward pass takes
// grad through y and its column sums in one ReLUDropoutColSumOps call:
// float32 storage outside Autocast, or both in one 16-bit format with
// ActColSumUnderAutocast.
func colSumIn(grad, y *tensor.Tensor) bool {
	if grad.DType() == tensor.Float32 && y.DType() == tensor.Float32 && tensor.AutocastDType() == tensor.Float32 {
		return true
	}
	return ActColSumUnderAutocast && grad.DType() != tensor.Float32 && grad.DType() == y.DType()
}

// actOps returns x's device as BiasActOps and ReLUDropoutOps, or false.
func actOps(x *tensor.Tensor) bool {
	_, ok := x.Device().(BiasActOps)
	_, ok2 := x.Device().(ReLUDropoutOps)
	return ok && ok2
}
