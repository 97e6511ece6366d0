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
// *tensor.DeviceError when the device has none. The calling goroutine's
// Autocast format is looked up once, here, and fixed for the calls the
// op makes through the returned value, in its forward pass and in its
// backward function (backend.FixAutocast).
func deviceOps(op string, x *tensor.Tensor) backend.GraphBackend {
	ops, _ := deviceOpsCast(op, x)
	return ops
}

// deviceOpsCast is deviceOps that also returns the Autocast format it
// fixed, for an op whose own choices depend on it.
func deviceOpsCast(op string, x *tensor.Tensor) (backend.GraphBackend, tensor.DType) {
	ops, ok := x.Device().(backend.GraphBackend)
	if !ok {
		notOnDevice(op, x)
	}
	return backend.FixAutocast(ops)
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

// multiStepOps is an optional capability of a device (gnnlib/cuda's
// has it): an optimiser's step over many parameters at once, as
// AdamStep and SGDStep over each in turn, which the device may do in
// fewer launches. Adam.Step and SGD.Step use it; devices without it get
// one call a parameter.
type multiStepOps interface {
	AdamSteps(ps, grads, ms, vs []*tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error
	SGDSteps(ps, grads, bufs []*tensor.Tensor, lr, momentum, weightDecay float32, started bool) error
}

// byDevice splits the parameters idx of ps by device, in order of first
// appearance (a model's parameters are on one device).
func byDevice(ps []*tensor.Tensor, idx []int) [][]int {
	if len(idx) == 0 {
		return nil
	}
	groups := [][]int{nil}
	dev := []tensor.Backend{ps[idx[0]].Device()}
outer:
	for _, i := range idx {
		for k, d := range dev {
			if ps[i].Device() == d {
				groups[k] = append(groups[k], i)
				continue outer
			}
		}
		dev = append(dev, ps[i].Device())
		groups = append(groups, []int{i})
	}
	return groups
}

// deviceSteps is Adam.Step for the parameters idx, which are on a device
// and have gradients; their moments move to the device at their first
// step there. A device with multiStepOps gets them in one call.
func (o *Adam) deviceSteps(idx []int, step, sc2 float32) {
	if o.dm == nil {
		o.dm = make([][2]*tensor.Tensor, len(o.params))
	}
	for _, grp := range byDevice(o.params, idx) {
		p0 := o.params[grp[0]]
		ops := deviceOps("Adam.Step", p0)
		ps, gs, ms, vs := make([]*tensor.Tensor, len(grp)), make([]*tensor.Tensor, len(grp)), make([]*tensor.Tensor, len(grp)), make([]*tensor.Tensor, len(grp))
		for k, i := range grp {
			p := o.params[i]
			if o.dm[i][0] == nil || o.dm[i][0].Device() != p.Device() {
				o.dm[i] = [2]*tensor.Tensor{tensor.Wrap(o.m[i], p.Shape()...).To(p.Device()), tensor.Wrap(o.v[i], p.Shape()...).To(p.Device())}
			}
			ps[k], gs[k], ms[k], vs[k] = p, p.Grad(), o.dm[i][0], o.dm[i][1]
		}
		b1, b2, eps, wd, shrink := float32(o.Beta1), float32(o.Beta2), float32(o.Eps), float32(o.WeightDecay), float32(1-o.lr*o.WeightDecay)
		if multi, ok := ops.(multiStepOps); ok {
			deviceCheck("Adam.Step", p0, multi.AdamSteps(ps, gs, ms, vs, step, b1, b2, eps, sc2, wd, shrink, o.decoupled))
			continue
		}
		for k, p := range ps {
			deviceCheck("Adam.Step", p, ops.AdamStep(p, gs[k], ms[k], vs[k], step, b1, b2, eps, sc2, wd, shrink, o.decoupled))
		}
	}
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

// deviceSteps is SGD.Step for the parameters idx, which are on a device
// and have gradients; their momentum buffers move to the device at their
// first step there. A device with multiStepOps gets them in one call.
func (o *SGD) deviceSteps(idx []int) {
	if o.Momentum != 0 && o.db == nil {
		o.db = make([]*tensor.Tensor, len(o.params))
	}
	for _, grp := range byDevice(o.params, idx) {
		p0 := o.params[grp[0]]
		ops := deviceOps("SGD.Step", p0)
		ps, gs, bufs := make([]*tensor.Tensor, len(grp)), make([]*tensor.Tensor, len(grp)), make([]*tensor.Tensor, len(grp))
		for k, i := range grp {
			p := o.params[i]
			if o.Momentum != 0 {
				if o.db[i] == nil || o.db[i].Device() != p.Device() {
					o.db[i] = tensor.Wrap(o.buf[i], p.Shape()...).To(p.Device())
				}
				bufs[k] = o.db[i]
			}
			ps[k], gs[k] = p, p.Grad()
		}
		lr, mom, wd := float32(o.lr), float32(o.Momentum), float32(o.WeightDecay)
		if multi, ok := ops.(multiStepOps); ok {
			deviceCheck("SGD.Step", p0, multi.SGDSteps(ps, gs, bufs, lr, mom, wd, o.started))
			continue
		}
		for k, p := range ps {
			deviceCheck("SGD.Step", p, ops.SGDStep(p, gs[k], bufs[k], lr, mom, wd, o.started))
		}
	}
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
