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
	ops, ok := x.Device().(ReLUDropoutOps)
	if !ok {
		return x.ReLU().Dropout(p, r, true)
	}
	const name = "ReLUDropout"
	start := backend.OpStart()
	if p < 0 || p >= 1 {
		panic(&tensor.ShapeError{Op: name, A: x.Shape(), Msg: fmt.Sprintf("probability %g not in [0, 1)", p)})
	}
	// The seed as Tensor.Dropout draws it on a device, so that the mask is
	// the one the two ops would use.
	seed := uint64(r.Float64()*(1<<53)) ^ uint64(r.Float64()*(1<<53))<<11
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
