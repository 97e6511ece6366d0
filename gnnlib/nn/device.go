package nn

import (
	"errors"
	"fmt"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// To moves the parameters of m to dev in place (dev nil: back to the CPU),
// so that the same model code runs there once its inputs are moved too:
//
//	dev, err := tensor.Device("cuda")
//	nn.To(model, dev)
//	x := ds.X.To(dev)
//	opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
//
// Gradients are dropped. It panics with a *tensor.DeviceError when a copy
// fails.
func To(m Module, dev tensor.Backend) {
	for _, p := range m.Params() {
		p.MoveTo(dev)
	}
}

// deviceOps returns x's device with its GraphOps for op, panicking with a
// *tensor.DeviceError when the device has none.
func deviceOps(op string, x *tensor.Tensor) backend.GraphBackend {
	be := x.Device()
	ops, ok := be.(backend.GraphBackend)
	if !ok {
		notOnDevice(op, x)
	}
	return ops
}

// notOnDevice panics because op has no device version.
func notOnDevice(op string, x *tensor.Tensor) {
	panic(&tensor.DeviceError{Op: op, Device: x.Device().String(), Err: tensor.ErrNotOnDevice})
}

// deviceCheck panics with a *tensor.DeviceError when err is not nil.
func deviceCheck(op string, x *tensor.Tensor, err error) {
	if err != nil {
		deviceCheckOn(op, x.Device(), err)
	}
}

// deviceCheckOn is deviceCheck for an op on dev, for backward functions
// that keep no operand.
func deviceCheckOn(op string, dev tensor.Backend, err error) {
	if err != nil {
		panic(&tensor.DeviceError{Op: op, Device: dev.String(), Err: err})
	}
}

// deviceSpMM is spmm on a device: the backward pass runs the transposed
// product over the transpose the backend cached with the graph.
func deviceSpMM(name string, g *graph.Graph, weighted bool, x *tensor.Tensor) *tensor.Tensor {
	start := backend.OpStart()
	ops := deviceOps(name, x)
	f := checkNodes(name, x, g.NumSrc())
	s, err := ops.GraphSpMM(g, weighted, false, x)
	deviceCheck(name, x, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		s, err := ops.GraphSpMM(g, weighted, true, grad)
		deviceCheckOn(name+" backward", ops, err)
		return []*tensor.Tensor{backend.FromStorage(s, g.NumSrc(), f)}
	})
}

// attentionDropout returns the attention dropout probability a device
// kernel applies (p while training, else 0) and the seed of its mask,
// drawn from r (nil: a fixed one) as tensor's device dropout draws its
// own; the mask differs from the CPU's for the same r.
func attentionDropout(p float32, r *tensor.RNG, training bool) (float32, uint64) {
	if !training || p == 0 {
		return 0, 0
	}
	if r == nil {
		r = tensor.NewRNG(1)
	}
	return p, uint64(r.Float64()*(1<<53)) ^ uint64(r.Float64()*(1<<53))<<11
}

// deviceGATv2 is GATv2Attention on a device, with the fused kernel where
// the device has one for the shape and composed device ops otherwise.
func deviceGATv2(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const name = "GATv2Attention"
	start := backend.OpStart()
	ops := deviceOps(name, hs)
	if hd.Device() != hs.Device() || att.Device() != hs.Device() {
		panic(&tensor.DeviceError{Op: name, Device: hs.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
	}
	p, seed := attentionDropout(p, rng, training)
	s, backward, err := ops.GATv2Attention(g, hs, hd, att, heads, slope, p, seed)
	if errors.Is(err, tensor.ErrNotOnDevice) {
		// The fused kernel does not take this shape: compose it.
		return composedGATv2(g, hs, hd, att, heads, slope, p, rng, training)
	}
	deviceCheck(name, hs, err)
	shape := hs.Shape()
	hdShape, attShape := hd.Shape(), att.Shape() // the backward keeps no operand
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), shape[1]), []*tensor.Tensor{hs, hd, att}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dhs, dhd, datt, err := backward(grad)
		deviceCheckOn(name+" backward", ops, err)
		return []*tensor.Tensor{backend.FromStorage(dhs, shape...), backend.FromStorage(dhd, hdShape...), backend.FromStorage(datt, attShape...)}
	})
}

// deviceAdamStep is Adam.Step for parameter i on a device; the moments
// move to the device at its first step there.
func (o *Adam) deviceStep(i int, p, g *tensor.Tensor, step, sc2 float32) {
	ops := deviceOps("Adam.Step", p)
	if o.dm == nil {
		o.dm = make([][2]*tensor.Tensor, len(o.params))
	}
	if o.dm[i][0] == nil || o.dm[i][0].Device() != p.Device() {
		o.dm[i] = [2]*tensor.Tensor{tensor.Wrap(o.m[i], p.Shape()...).To(p.Device()), tensor.Wrap(o.v[i], p.Shape()...).To(p.Device())}
	}
	err := ops.AdamStep(p, g, o.dm[i][0], o.dm[i][1], step, float32(o.Beta1), float32(o.Beta2), float32(o.Eps), sc2,
		float32(o.WeightDecay), float32(1-o.lr*o.WeightDecay), o.decoupled)
	deviceCheck("Adam.Step", p, err)
}

// deviceMean is MeanAggregate on a device: an SpMM with weights 1/deg(v),
// whose backward pass runs over the cached transpose.
func deviceMean(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	const name = "MeanAggregate"
	start := backend.OpStart()
	ops := deviceOps(name, x)
	f := checkNodes(name, x, g.NumSrc())
	s, err := ops.GraphMeanSpMM(g, false, x)
	deviceCheck(name, x, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		s, err := ops.GraphMeanSpMM(g, true, grad)
		deviceCheckOn(name+" backward", ops, err)
		return []*tensor.Tensor{backend.FromStorage(s, g.NumSrc(), f)}
	})
}

// deviceGAT is GATAttention on a device, with the fused kernel where the
// device has one for the shape and composed device ops otherwise.
func deviceGAT(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const name = "GATAttention"
	start := backend.OpStart()
	ops := deviceOps(name, h)
	if aSrc.Device() != h.Device() || aDst.Device() != h.Device() {
		panic(&tensor.DeviceError{Op: name, Device: h.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
	}
	p, seed := attentionDropout(p, rng, training)
	s, backward, err := ops.GATAttention(g, h, aSrc, aDst, heads, slope, p, seed)
	if errors.Is(err, tensor.ErrNotOnDevice) {
		return composedGAT(g, h, aSrc, aDst, heads, slope, p, rng, training)
	}
	deviceCheck(name, h, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), h.Shape()[1]), []*tensor.Tensor{h, aSrc, aDst}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dh, ds, dd, err := backward(grad)
		deviceCheck(name+" backward", h, err)
		return []*tensor.Tensor{backend.FromStorage(dh, h.Shape()...), backend.FromStorage(ds, aSrc.Shape()...), backend.FromStorage(dd, aDst.Shape()...)}
	})
}

// deviceHeadDot is headLogits on a device: one kernel instead of the
// broadcast product and axis sum, which have no device version.
func deviceHeadDot(h, att *tensor.Tensor, heads int) *tensor.Tensor {
	const name = "HeadDot"
	start := backend.OpStart()
	ops := deviceOps(name, h)
	if att.Device() != h.Device() {
		panic(&tensor.DeviceError{Op: name, Device: h.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
	}
	s, backward, err := ops.HeadDot(h, att, heads)
	deviceCheck(name, h, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, h.Size(0), heads), []*tensor.Tensor{h, att}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx, datt, err := backward(grad)
		deviceCheck(name+" backward", h, err)
		return []*tensor.Tensor{backend.FromStorage(dx, h.Shape()...), backend.FromStorage(datt, att.Shape()...)}
	})
}

// deviceMax is MaxAggregate on a device: the degree-aware max kernels,
// whose winners the backward pass scatters the gradient to.
func deviceMax(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	const name = "MaxAggregate"
	start := backend.OpStart()
	ops := deviceOps(name, x)
	f := checkNodes(name, x, g.NumSrc())
	s, backward, err := ops.GraphMaxAggregate(g, x)
	deviceCheck(name, x, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		s, err := backward(grad)
		deviceCheck(name+" backward", x, err)
		return []*tensor.Tensor{backend.FromStorage(s, g.NumSrc(), f)}
	})
}

// deviceStep is SGD.Step for parameter i on a device; the momentum buffer
// moves to the device at its first step there.
func (o *SGD) deviceStep(i int, p, g *tensor.Tensor) {
	ops := deviceOps("SGD.Step", p)
	var buf *tensor.Tensor
	if o.Momentum != 0 {
		if o.db == nil {
			o.db = make([]*tensor.Tensor, len(o.params))
		}
		if o.db[i] == nil || o.db[i].Device() != p.Device() {
			o.db[i] = tensor.Wrap(o.buf[i], p.Shape()...).To(p.Device())
		}
		buf = o.db[i]
	}
	err := ops.SGDStep(p, g, buf, float32(o.lr), float32(o.Momentum), float32(o.WeightDecay), o.started)
	deviceCheck("SGD.Step", p, err)
}

// sameDevice panics unless every tensor of ts lives on x's device.
func sameDevice(op string, x *tensor.Tensor, ts ...*tensor.Tensor) {
	for _, t := range ts {
		if t.Device() != x.Device() {
			panic(&tensor.DeviceError{Op: op, Device: x.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
		}
	}
}

// deviceNorm records a fused norm's device forward pass y with inputs x,
// gamma and beta and its backward function.
func deviceNorm(name string, start time.Time, y tensor.Storage, backward func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), x, gamma, beta *tensor.Tensor) *tensor.Tensor {
	return backend.NewOpSince(start, name, backend.FromStorage(y, x.Shape()...), []*tensor.Tensor{x, gamma, beta}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx, dg, db, err := backward(grad)
		deviceCheck(name+" backward", x, err)
		return []*tensor.Tensor{backend.FromStorage(dx, x.Shape()...), backend.FromStorage(dg, gamma.Shape()...), backend.FromStorage(db, beta.Shape()...)}
	})
}

// deviceForward is BatchNorm's forward pass on x's device. The running
// statistics move there first (in place, keeping their identity).
func (b *BatchNorm) deviceForward(x *tensor.Tensor) *tensor.Tensor {
	const name = "BatchNorm"
	start := backend.OpStart()
	ops := deviceOps(name, x)
	sameDevice(name, x, b.Gamma, b.Beta)
	b.statsTo(x.Device())
	y, backward, err := ops.BatchNorm(x, b.Gamma, b.Beta, b.RunningMean, b.RunningVar, b.Training(), b.Momentum, b.Eps)
	deviceCheck(name, x, err)
	return deviceNorm(name, start, y, backward, x, b.Gamma, b.Beta)
}

// statsTo moves the running statistics to dev (nil: the CPU) in place.
func (b *BatchNorm) statsTo(dev tensor.Backend) {
	for _, t := range []*tensor.Tensor{b.RunningMean, b.RunningVar} {
		if t.Device() != dev {
			t.MoveTo(dev)
		}
	}
}

// deviceForward is LayerNorm's forward pass on x's device.
func (l *LayerNorm) deviceForward(x *tensor.Tensor) *tensor.Tensor {
	const name = "LayerNorm"
	start := backend.OpStart()
	ops := deviceOps(name, x)
	sameDevice(name, x, l.Gamma, l.Beta)
	y, backward, err := ops.LayerNorm(x, l.Gamma, l.Beta, l.Eps)
	deviceCheck(name, x, err)
	return deviceNorm(name, start, y, backward, x, l.Gamma, l.Beta)
}

// deviceSumSquares adds Σ g² of the device gradients gs, grouped by
// device in order of first appearance, to s.
func deviceSumSquares(gs []*tensor.Tensor) float64 {
	var devs []tensor.Backend
	by := map[tensor.Backend][]*tensor.Tensor{}
	for _, g := range gs {
		d := g.Device()
		if by[d] == nil {
			devs = append(devs, d)
		}
		by[d] = append(by[d], g)
	}
	var s float64
	for _, d := range devs {
		x := by[d][0]
		v, err := deviceOps("ClipGradNorm", x).SumSquares(by[d])
		deviceCheck("ClipGradNorm", x, err)
		s += v
	}
	return s
}
