package nn

import (
	"errors"
	"slices"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// On a device, GCNConv and GATv2Conv run as one recorded op each, whose
// forward and backward passes make the same backend calls as the ops they
// stand for (so the same values, bit for bit) and free the device memory
// of the intermediates no one else can see as soon as they are spent,
// instead of leaving it to the garbage collector (which returns device
// memory only when it finalises the tensors): x·W and Â·(x·W) at once for
// GCN, and for GATv2 x·W_src, x·W_dst and the attention output when the
// layer's backward pass has read them (the attention output at once when
// a ReLUDropout consumes the layer's output: GATv2OutOps, devkeep.go).

// freeStorage gives t's device memory back at once when its storage can
// (gnnlib/cuda's and devicetest.Fake's can).
func freeStorage(t *tensor.Tensor) {
	if t == nil {
		return
	}
	if f, ok := t.Storage().(backend.Freer); ok {
		f.Free()
	}
}

// onDevice reports whether x and every tensor of ps live on x's device,
// x dense and 2-D: what the fused layer ops take.
func onDevice(x *tensor.Tensor, ps ...*tensor.Tensor) bool {
	if !x.IsOnDevice() || x.IsSparse() || x.Dims() != 2 {
		return false
	}
	for _, p := range ps {
		if p.Device() != x.Device() {
			return false
		}
	}
	_, ok := x.Device().(backend.GraphBackend)
	return ok
}

// devStorage panics with a *tensor.DeviceError for op when err is set and
// returns s as a tensor of shape.
func devStorage(op string, x *tensor.Tensor, s tensor.Storage, err error, shape ...int) *tensor.Tensor {
	deviceCheck(op, x, err)
	return backend.FromStorage(s, shape...)
}

// deviceGCNConv is GCNConv.Forward on a device: Â·(x·W) + B, as MatMul,
// the propagation over g.GCNNorm() and the bias add would compute it,
// with x·W and Â·(x·W) freed as soon as the next product has read them.
// The backward pass reads x and W only: dB = Σ_rows G, T = Âᵀ·G,
// dW = xᵀ·T, dx = T·Wᵀ. A layer that widens its input (in < out, a
// first layer of 128 features into 256) aggregates first, at the
// narrower width, as gnnbench's hand-written epoch does: see
// deviceGCNConvAggFirst.
//
// With act (ForwardReLUDropout) the op's output is dropout(relu(·)) of
// that, the activation applied as the propagation stores each row, or in
// place over Z·W + B; its backward pass starts with the activation's
// gradient and the bias gradient in one pass.
func deviceGCNConv(c *GCNConv, g *graph.Graph, x *tensor.Tensor, act *fusedAct) *tensor.Tensor {
	const name = "GCNConv"
	start := backend.OpStart()
	ops, dt := deviceOpsCast(name, x)
	a := g.GCNNorm()
	w, b := c.W, c.B
	in, out := w.Size(0), w.Size(1)
	if x.Size(1) != in {
		panic(&tensor.ShapeError{Op: "MatMul", A: x.Shape(), B: w.Shape()})
	}
	checkNodes(name, x, a.NumSrc())
	if b.Len() != out {
		panic(&tensor.ShapeError{Op: "Add", A: []int{a.NumNodes(), out}, B: b.Shape()})
	}
	if in < out && GCNAggregateFirst && (dt == tensor.Float32 || AggregateFirstUnderAutocast) && x.DType() == tensor.Float32 {
		return deviceGCNConvAggFirst(start, ops, a, x, w, b, act)
	}
	s, err := ops.MatMul(x, w, false, false)
	xw := devStorage(name, x, s, err, x.Size(0), out)
	var y *tensor.Tensor
	if act != nil {
		s, err = ops.(BiasActOps).GraphSpMMBiasReLUDropout(a, a.Weights != nil, xw, b, act.p, act.seed)
		freeStorage(xw)
		y = devStorage(name, x, s, err, a.NumNodes(), out)
	} else if fo, ok := ops.(GraphSpMMBiasOps); ok {
		// The bias added as the propagation stores each row.
		s, err = fo.GraphSpMMBias(a, a.Weights != nil, xw, b)
		freeStorage(xw)
		y = devStorage(name, x, s, err, a.NumNodes(), out)
	} else {
		s, err = ops.GraphSpMM(a, a.Weights != nil, false, xw)
		freeStorage(xw)
		ax := devStorage(name, x, s, err, a.NumNodes(), out)
		s, err = ops.Binary(backend.BinaryAdd, ax, b)
		freeStorage(ax)
		y = devStorage(name, x, s, err, a.NumNodes(), out)
	}
	var bsum *biasSum
	big := bigOutput(y)
	y = backend.NewGraphOpSince(start, name, a.NumEdges(), y, []*tensor.Tensor{x, w, b}, func(grad *tensor.Tensor) []*tensor.Tensor {
		const back = name + " backward"
		defer collectAfterPass(x, big)
		grads := make([]*tensor.Tensor, 3)
		var gx *tensor.Tensor // the biased output's gradient, the op's own (act)
		defer func() { freeStorage(gx) }()
		owned := backend.OwnsGrad(grad)
		grad, grads[2], gx = act.outputGrad(ops, back, x, grad, b, owned, bsum)
		owned = owned || gx != nil
		if !x.RequiresGrad() && !w.RequiresGrad() {
			return grads
		}
		s, err := ops.GraphSpMM(a, a.Weights != nil, true, grad)
		if owned {
			freeStorage(grad) // spent before the products are made
		}
		gx = nil
		t := devStorage(back, x, s, err, a.NumSrc(), out)
		if x.RequiresGrad() {
			s, err := ops.MatMul(t, w, false, true)
			grads[0] = devStorage(back, x, s, err, x.Shape()...)
		}
		if w.RequiresGrad() {
			s, err := ops.MatMul(x, t, true, false)
			grads[1] = devStorage(back, x, s, err, w.Shape()...)
		}
		freeStorage(t)
		return grads
	})
	act.keep(y)
	if !y.IsLeaf() && b.RequiresGrad() && HandOffBiasGrad && act == nil {
		bsum = wantBiasSum(y)
	}
	return y
}

// forwardReLUDropout is ForwardReLUDropout's fused GCNConv (actLayer).
func (c *GCNConv) forwardReLUDropout(g *graph.Graph, x *tensor.Tensor, p float32, r *tensor.RNG) *tensor.Tensor {
	if !onDevice(x, c.W, c.B) || !actOps(x) {
		return nil
	}
	return deviceGCNConv(c, g, x, &fusedAct{p: p, seed: dropoutSeed(r)})
}

// GCNAggregateFirst makes GCNConv on a device compute (Â·x)·W + B
// instead of Â·(x·W) + B when the layer widens its input (fewer input
// than output features): the propagation runs at the input's width, and
// the backward pass reads Â·x (kept, N×in) instead of propagating the
// output's gradient back through Âᵀ when x needs no gradient (a first
// layer over the features), or propagates G·Wᵀ at the input's width when
// it does. The values differ from the other order's by rounding only.
// Under Autocast too when AggregateFirstUnderAutocast is set. On by default since it
// ran on an H100 (2026-12-06, TestFastPathsOnDevice; with
// ReleaseSpentActivations and HandOffBiasGrad the arxiv-sized GCN epoch
// took 6.35 ms instead of 7.22); gnnbench's api part compares the two
// (-fastpaths-ab).
var GCNAggregateFirst = true

// AggregateFirstUnderAutocast makes GCNAggregateFirst apply under
// tensor.Autocast as well: a first layer of 128 features into 256 then
// propagates at 128 channels in 16 bits and keeps Â·x (N×128, 16-bit)
// for its weight gradient, and its backward pass makes no N×256
// propagation through Âᵀ (gnnlib/cuda's TestBF16EpochLaunches lists the
// bfloat16 epoch's kernels). On an H100 (2026-12-06) the arxiv-sized
// GCN epoch under Autocast(BFloat16) took 4.35 ms with it, 4.82 without.
// false keeps the other order under Autocast (Â·(x·W), which the
// device's 16-bit paths were first checked with); gnnbench -nnepoch-ab
// times the two.
var AggregateFirstUnderAutocast = true

// deviceGCNConvAggFirst is deviceGCNConv for in < out: Z = Â·x, then
// Z·W + B. The backward pass reads Z and W: dB = Σ_rows G, dW = Zᵀ·G,
// and when x needs its gradient dx = Âᵀ·(G·Wᵀ). Z is freed once the
// backward pass has read it (at once when nothing is recorded).
func deviceGCNConvAggFirst(start time.Time, ops backend.GraphBackend, a *graph.Graph, x, w, b *tensor.Tensor, act *fusedAct) *tensor.Tensor {
	const name = "GCNConv"
	in, out := w.Size(0), w.Size(1)
	s, err := ops.GraphSpMM(a, a.Weights != nil, false, x)
	z := devStorage(name, x, s, err, a.NumNodes(), in)
	s, err = ops.MatMul(z, w, false, false)
	zw := devStorage(name, x, s, err, a.NumNodes(), out)
	if act != nil {
		s, err = ops.(BiasActOps).BiasReLUDropout(zw, b, act.p, act.seed) // over zw
	} else {
		s, err = ops.Binary(backend.BinaryAdd, zw, b)
		freeStorage(zw)
	}
	y := devStorage(name, x, s, err, a.NumNodes(), out)
	f := &layerFrame{name: name, ops: ops, x: x, b: b, kept: z, act: act}
	return f.record(start, a.NumEdges(), y, []*tensor.Tensor{x, w, b}, 2, func(grad *tensor.Tensor, spend func(), grads []*tensor.Tensor) {
		const back = name + " backward"
		if w.RequiresGrad() {
			s, err := ops.MatMul(z, grad, true, false)
			grads[1] = devStorage(back, x, s, err, w.Shape()...)
		}
		if x.RequiresGrad() {
			s, err := ops.MatMul(grad, w, false, true)
			spend() // before Âᵀ·dz is made
			dz := devStorage(back, x, s, err, a.NumNodes(), in)
			s, err = ops.GraphSpMM(a, a.Weights != nil, true, dz)
			freeStorage(dz)
			grads[0] = devStorage(back, x, s, err, x.Shape()...)
		}
	})
}

// errBackwardTwice is the error of a second backward pass through a fused
// layer op, whose saved intermediates the first one freed.
var errBackwardTwice = errors.New("a second backward pass through the layer (its saved intermediates were freed by the first)")

// deviceGATv2Conv is GATv2Conv.Forward on a device for concatenated heads
// (or one): x·W_src, x·W_dst, the fused attention and the bias as the ops
// they stand for would compute them, the three intermediates freed by the
// layer's backward pass once it has read them (at once when nothing is
// recorded). g has its self-loops. Where the device's fused attention
// does not take the shape, the attention is composed from other device
// ops, as GATv2Attention composes it.
func deviceGATv2Conv(c *GATv2Conv, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	const name = "GATv2Conv"
	start := backend.OpStart()
	ops, dt := deviceOpsCast(name, x)
	ws, wd, att, b := c.WSrc, c.WDst, c.Att, c.B
	hf := ws.Size(1)
	if x.Size(1) != ws.Size(0) || !slices.Equal(ws.Shape(), wd.Shape()) {
		panic(&tensor.ShapeError{Op: "MatMul", A: x.Shape(), B: ws.Shape()})
	}
	if po, ok := ops.(GATv2PairOps); ok && GATv2OneProduct && hf%c.Heads == 0 && po.GATv2PairTakes(hf, c.Heads) {
		checkNodes("GATv2Attention", x, g.NumSrc())
		if att.Len() != hf {
			panic(&tensor.ShapeError{Op: "GATv2Attention", A: ws.Shape(), B: att.Shape(), Msg: "att must match the weights' width"})
		}
		p, seed := attentionDropout(c.Dropout, c.rng, c.Training())
		return deviceGATv2ConvPair(c, g, x, start, ops, dt, po, p, seed, nil)
	}
	s, err := ops.MatMul(x, ws, false, false)
	hs := devStorage(name, x, s, err, x.Size(0), hf)
	s, err = ops.MatMul(x, wd, false, false)
	hd := devStorage(name, x, s, err, x.Size(0), hf)
	checkGATv2("GATv2Attention", g, hs, hd, att, c.Heads)
	p, seed := attentionDropout(c.Dropout, c.rng, c.Training())
	oo, rebuilds := ops.(GATv2OutOps)
	rebuilds = rebuilds && RebuildGATv2Output && dt == tensor.Float32
	var s2 tensor.Storage
	var attBack func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error)
	if rebuilds {
		s2, attBack, err = oo.GATv2AttentionOut(g, hs, hd, att, c.Heads, c.NegativeSlope, p, seed)
	} else {
		var back func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error)
		s2, back, err = ops.GATv2Attention(g, hs, hd, att, c.Heads, c.NegativeSlope, p, seed)
		attBack = func(grad, _ *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
			return back(grad)
		}
	}
	if errors.Is(err, tensor.ErrNotOnDevice) {
		// Op by op, with the dropout seed already drawn, as
		// deviceGATv2 falls back.
		freeStorage(hs)
		freeStorage(hd)
		out := composedGATv2(g, x.MatMul(ws), x.MatMul(wd), att, c.Heads, c.NegativeSlope, p, c.rng, c.Training())
		return finishHeads(out, b, c.Heads, c.Out, c.Concat)
	}
	out := devStorage(name, x, s2, err, g.NumNodes(), hf)
	if b.Len() != hf {
		panic(&tensor.ShapeError{Op: "Add", A: out.Shape(), B: b.Shape()})
	}
	s, err = ops.Binary(backend.BinaryAdd, out, b)
	y := devStorage(name, x, s, err, g.NumNodes(), hf)
	saved := []*tensor.Tensor{hs, hd, out}
	if rebuilds {
		saved = saved[:2] // out is the keeper's
	}
	var keeper *outKeeper
	var bsum *biasSum
	done := false
	big := bigOutput(y)
	y = backend.NewGraphOpSince(start, name, g.NumEdges(), y, []*tensor.Tensor{x, ws, wd, att, b}, func(grad *tensor.Tensor) []*tensor.Tensor {
		const back = name + " backward"
		if done {
			deviceCheck(back, x, errBackwardTwice)
		}
		done = true
		defer collectAfterPass(x, big)
		grads := make([]*tensor.Tensor, 5)
		if b.RequiresGrad() {
			grads[4] = bsum.colSum(ops, back, x, grad, b)
		}
		var o *tensor.Tensor
		if keeper != nil {
			var rebuilt bool
			var err error
			o, rebuilt, err = keeper.output(oo, b, grad)
			deviceCheck(back, x, err)
			if o == nil {
				// Another op read the output too, so its gradient is
				// not zero where the activation is: compute the
				// attention output again (the kernels are
				// deterministic) rather than rebuild it.
				s, _, err := ops.GATv2Attention(g, hs, hd, att, c.Heads, c.NegativeSlope, p, seed)
				o = devStorage(back, x, s, err, g.NumNodes(), hf)
			}
			if !rebuilt {
				saved = append(saved, o)
			} else {
				defer freeStorage(o)
			}
		}
		sdhs, sdhd, sdatt, err := attBack(grad, o)
		deviceCheck(back, x, err)
		for _, t := range saved {
			freeStorage(t)
		}
		grads[3] = backend.FromStorage(sdatt, att.Shape()...)
		// Each side's share of x's gradient and its weight gradient, the
		// side's input gradient freed before the other's is read, so
		// that at most one of them is alive beside x's gradient.
		var dx *tensor.Tensor
		for i, side := range []struct {
			w *tensor.Tensor
			s tensor.Storage
		}{{ws, sdhs}, {wd, sdhd}} {
			dh := backend.FromStorage(side.s, hs.Shape()...)
			if side.w.RequiresGrad() {
				s, err := ops.MatMul(x, dh, true, false)
				grads[1+i] = devStorage(back, x, s, err, side.w.Shape()...)
			}
			if x.RequiresGrad() {
				s, err := ops.MatMul(dh, side.w, false, true)
				part := devStorage(back, x, s, err, x.Shape()...)
				if dx == nil {
					dx = part
				} else {
					deviceCheck(back, x, ops.AddTo(dx, part))
					freeStorage(part)
				}
			}
			freeStorage(dh)
		}
		grads[0] = dx
		return grads
	})
	if y.IsLeaf() { // nothing recorded: no backward pass will read them
		done = true
		for _, t := range append(saved, out) {
			freeStorage(t)
		}
	} else {
		if rebuilds {
			keeper = keepOutput(y, out)
		}
		if b.RequiresGrad() && HandOffBiasGrad {
			bsum = wantBiasSum(y)
		}
	}
	return y
}

// gatv2Fused reports whether GATv2Conv.Forward takes the fused device op.
func (c *GATv2Conv) gatv2Fused(g *graph.Graph, x *tensor.Tensor) bool {
	return (c.Concat || c.Heads == 1) && g.IsSquare() && onDevice(x, c.WSrc, c.WDst, c.Att, c.B)
}

// GATv2PairOps is an optional capability of a device with fused GATv2
// attention (gnnlib/cuda's and devicetest.Fake's have it): the attention
// of GATv2OutOps.GATv2AttentionOut over hlr = x·[W_src W_dst] (N x 2HF,
// x·W_src in the first HF columns), whose backward function returns the
// gradient of hlr as one N x 2HF block. GATv2Conv then makes one product
// x·[W_src W_dst] in its forward pass and one each for the weights'
// gradients (xᵀ·dhlr, then split) and x's (dhlr·[W_src W_dst]ᵀ), as
// gnnbench's hand-written epoch does, instead of two each and a sum. A
// shape the device refuses (an error wrapping tensor.ErrNotOnDevice: a
// head width its kernels pad, the bfloat16 kernels: GATv2PairTakes says
// so before any work) runs as two products.
type GATv2PairOps interface {
	GATv2OutOps
	// GATv2PairTakes reports whether GATv2AttentionPair takes heads of
	// hf/heads channels on the calling goroutine (whose Autocast scope
	// may choose other kernels).
	GATv2PairTakes(hf, heads int) bool
	// GATv2AttentionPair is the fused attention over hlr's halves. Its
	// backward function takes the output back, or with act set the
	// activation over it (backend.OutAct), and again, hlr made again
	// when the caller freed it after the forward pass
	// (RecomputeGATv2Product; nil when it kept hlr).
	GATv2AttentionPair(g *graph.Graph, hlr, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (out tensor.Storage, backward func(grad, out, again *tensor.Tensor, act *backend.OutAct) (dhlr, datt tensor.Storage, err error), err error)
}

// ActOutInAttention makes GATv2Conv's fused backward pass (one product,
// ReLU and dropout in its own op) hand its activation to the attention's
// backward function in place of the attention output (backend.OutAct),
// which rebuilds the output's values where it reads them, instead of
// storing a rebuilt copy of the output (ReLUDropoutGradUnbiasOps, or
// UnbiasAct): one N x HC tensor less at the backward pass's peak, in
// float32 and under Autocast. On by default since gnnlib/cuda's
// TestActOutInAttentionOnDevice passed on an H100 (2026-12-07, in
// float32: its "bfloat16" case ran float32 too, until devicetest's
// subtests opened the caller's Autocast scope), where the arxiv-sized
// GATv2 epoch's peak fell from 1.909 to 1.716 GiB at the same time
// (14.17 against 14.19 ms; gnnbench -actout-ab). Set it before a model
// runs; false stores the rebuilt copy.
var ActOutInAttention = true

// GATv2OneProduct turns on GATv2Conv's one product x·[W_src W_dst] on
// devices with GATv2PairOps (see there). On an H100 (2026-12-06)
// gnnlib/cuda's TestGATv2OneProductOnDevice passed (float32, and its
// "bfloat16" cases in float32 too: the Autocast scope did not reach
// devicetest's subtests then) and the arxiv-sized GATv2 epoch took 17.65
// ms against 18.22 with two products. Set it before a model runs; false
// runs the two products (gnnbench -nnepoch-ab compares the two).
var GATv2OneProduct = true

// RecomputeGATv2Product makes GATv2Conv's fused op (GATv2OneProduct) free
// its product hlr = x·[W_src W_dst] once the attention's forward pass has
// read it and compute it again in its backward pass, when its input
// needs no gradient (a model's first layer over its features, which stay
// on the device anyway) and the product holds at least
// RecomputeGATv2ProductMin bytes (64 MiB): its N x 2HC values are not
// held through the rest of the forward pass and the backward passes of
// the layers above, where a deep model's epoch peaks, for one more
// product x·[W_src W_dst] a training step, over the features (and under
// Autocast one more rounding of them). The product is made by the same
// kernels from the same operands, so the backward pass reads the values
// the forward pass read (devicetest.Fake checks it, bit for bit), except
// where the device's GEMM splits the sum over the features and adds the
// parts atomically (gnnlib/cuda: features 1,024 or more wide), whose
// last bits differ from run to run, as two runs of the forward pass's
// do; an input changed in place between the two passes would break it.
// Smaller layers (a Cora-sized model) keep their product. On by default
// (gnnlib/cuda's TestRecomputeGATv2ProductOnDevice passed on an H100,
// where the arxiv-sized epoch peaked at 1.551 GiB against 1.793 with it
// off, for 0.51 ms more an epoch); set it before a model runs.
var RecomputeGATv2Product = true

// RecomputeGATv2ProductMin is the smallest product, in bytes, that
// RecomputeGATv2Product makes again.
var RecomputeGATv2ProductMin int64 = 64 << 20

// deviceGATv2ConvPair is deviceGATv2Conv with one product: Wlr = [W_src
// W_dst] (in x 2HF, made each forward pass from the two parameters and
// kept for the backward pass), hlr = x·Wlr, the attention reading hlr's
// halves. The backward pass: dhlr from the attention, dWlr = xᵀ·dhlr
// split into the two weights' gradients, dx = dhlr·Wlrᵀ. p and seed are
// the attention dropout's, drawn by the caller; ops and dt are
// deviceOpsCast's.
func deviceGATv2ConvPair(c *GATv2Conv, g *graph.Graph, x *tensor.Tensor, start time.Time, ops backend.GraphBackend, dt tensor.DType, po GATv2PairOps, p float32, seed uint64, act *fusedAct) *tensor.Tensor {
	const name = "GATv2Conv"
	ws, wd, att, b := c.WSrc, c.WDst, c.Att, c.B
	hf := ws.Size(1)
	s, err := ops.Concat(1, []*tensor.Tensor{ws, wd})
	wlr := devStorage(name, x, s, err, ws.Size(0), 2*hf)
	s, err = ops.MatMul(x, wlr, false, false)
	hlr := devStorage(name, x, s, err, x.Size(0), 2*hf)
	s2, attBack, err := po.GATv2AttentionPair(g, hlr, att, c.Heads, c.NegativeSlope, p, seed)
	if err != nil {
		freeStorage(wlr)
		freeStorage(hlr)
	}
	out := devStorage(name, x, s2, err, g.NumNodes(), hf)
	// again: the backward pass makes hlr again (RecomputeGATv2Product).
	again := RecomputeGATv2Product && !x.RequiresGrad() && int64(hlr.Len())*int64(hlr.DType().Size()) >= RecomputeGATv2ProductMin
	if b.Len() != hf {
		panic(&tensor.ShapeError{Op: "Add", A: out.Shape(), B: b.Shape()})
	}
	var y *tensor.Tensor
	if act != nil {
		// The activation over the attention output, in place: the
		// backward pass rebuilds the output from it (UnbiasAct), as
		// gnnbench's hand-written epoch does.
		s, err = ops.(BiasActOps).BiasReLUDropout(out, b, act.p, act.seed)
	} else {
		s, err = ops.Binary(backend.BinaryAdd, out, b)
	}
	y = devStorage(name, x, s, err, g.NumNodes(), hf)
	rebuilds := RebuildGATv2Output && dt == tensor.Float32 && act == nil
	var saved *tensor.Tensor // the attention output, when no keeper holds it
	if !rebuilds && act == nil {
		saved = out
	}
	var keeper *outKeeper
	var bsum *biasSum
	done := false
	big := bigOutput(y)
	y = backend.NewGraphOpSince(start, name, g.NumEdges(), y, []*tensor.Tensor{x, ws, wd, att, b}, func(grad *tensor.Tensor) []*tensor.Tensor {
		const back = name + " backward"
		if done {
			deviceCheck(back, x, errBackwardTwice)
		}
		done = true
		defer collectAfterPass(x, big)
		defer freeStorage(wlr)
		grads := make([]*tensor.Tensor, 5)
		o := saved               // the attention output (or one rebuilt): the op's own
		var oact *backend.OutAct // o is not the output but the activation over it
		owned := backend.OwnsGrad(grad)
		switch {
		case act != nil && rebuildInActBackward(ops, dt, grad, act.y, b):
			// The three in one pass over the activation.
			gx, db, xo, err := ops.(ReLUDropoutGradUnbiasOps).ReLUDropoutGradColSumUnbias(grad, act.y, b, act.p)
			deviceCheck(back, x, err)
			if owned {
				freeStorage(grad)
			}
			shape := act.y.Shape()
			grad, owned = backend.FromStorage(gx, shape...), true
			grads[4], o = backend.FromStorage(db, b.Shape()...), backend.FromStorage(xo, shape...)
			act.y = nil // read: the caller's to drop
		case act != nil:
			// grad becomes the biased output's gradient, the op's own,
			// zero wherever the activation is, and freed once the
			// attention's backward pass has read it.
			gx, db := act.backward(ops, back, x, grad, act.y, b, b.RequiresGrad())
			if owned {
				freeStorage(grad)
			}
			grad, grads[4], owned = gx, db, true
			if ActOutInAttention {
				o, oact = act.y, &backend.OutAct{Bias: b, ReLU: true, P: act.p} // the attention reads the activation
			} else {
				s, err := po.UnbiasAct(act.y, b, true, act.p)
				o = devStorage(back, x, s, err, act.y.Shape()...)
			}
			act.y = nil // read: the caller's to drop
		case b.RequiresGrad():
			grads[4] = bsum.colSum(ops, back, x, grad, b)
		}
		var hlrAgain *tensor.Tensor
		if again {
			s, err := ops.MatMul(x, wlr, false, false)
			hlr = devStorage(back, x, s, err, hlr.Shape()...)
			hlrAgain = hlr
		}
		if keeper != nil {
			var err error
			o, _, err = keeper.output(po, b, grad)
			deviceCheck(back, x, err)
			if o == nil {
				// Another op read the output too: compute it again
				// (the kernels are deterministic), as deviceGATv2Conv
				// does.
				s, _, err := po.GATv2AttentionPair(g, hlr, att, c.Heads, c.NegativeSlope, p, seed)
				o = devStorage(back, x, s, err, g.NumNodes(), hf)
			}
		}
		sdhlr, sdatt, err := attBack(grad, o, hlrAgain, oact)
		deviceCheck(back, x, err)
		freeStorage(hlr)
		if oact == nil { // else o is the layer's output, the caller's
			freeStorage(o)
		}
		if owned {
			freeStorage(grad) // spent before the products
		}
		dhlr := backend.FromStorage(sdhlr, hlr.Shape()...)
		defer freeStorage(dhlr)
		grads[3] = backend.FromStorage(sdatt, att.Shape()...)
		if ws.RequiresGrad() || wd.RequiresGrad() {
			s, err := ops.MatMul(x, dhlr, true, false)
			dw := devStorage(back, x, s, err, wlr.Shape()...)
			for i, w := range []*tensor.Tensor{ws, wd} {
				if w.RequiresGrad() {
					s, err := ops.Narrow(dw, 1, i*hf, hf)
					grads[1+i] = devStorage(back, x, s, err, w.Shape()...)
				}
			}
			freeStorage(dw)
		}
		if x.RequiresGrad() {
			s, err := ops.MatMul(dhlr, wlr, false, true)
			grads[0] = devStorage(back, x, s, err, x.Shape()...)
		}
		return grads
	})
	act.keep(y)
	if y.IsLeaf() { // nothing recorded: no backward pass will read them
		done = true
		freeStorage(wlr)
		freeStorage(hlr)
		if act == nil { // else out's storage is y's
			freeStorage(out)
		}
		return y
	}
	if rebuilds {
		keeper = keepOutput(y, out)
	}
	if b.RequiresGrad() && HandOffBiasGrad && act == nil {
		bsum = wantBiasSum(y)
	}
	if again {
		freeStorage(hlr) // the backward pass makes it again
	}
	return y
}

// forwardReLUDropout is ForwardReLUDropout's fused GATv2Conv (actLayer):
// one product, on a device with GATv2PairOps and BiasActOps; float32
// only unless FuseLayerActivationUnderAutocast.
func (c *GATv2Conv) forwardReLUDropout(g *graph.Graph, x *tensor.Tensor, pd float32, r *tensor.RNG) *tensor.Tensor {
	const name = "GATv2Conv"
	g = withSelfLoops(g)
	if !c.gatv2Fused(g, x) || !actOps(x) || !GATv2OneProduct {
		return nil
	}
	start := backend.OpStart()
	ops, dt := deviceOpsCast(name, x)
	if !FuseLayerActivationUnderAutocast && (dt != tensor.Float32 || x.DType() != tensor.Float32) {
		return nil
	}
	po, ok := ops.(GATv2PairOps)
	hf := c.WSrc.Size(1)
	if !ok || hf%c.Heads != 0 || !po.GATv2PairTakes(hf, c.Heads) || !slices.Equal(c.WSrc.Shape(), c.WDst.Shape()) || x.Size(1) != c.WSrc.Size(0) {
		return nil // Forward's checks name the problem
	}
	checkNodes("GATv2Attention", x, g.NumSrc())
	if c.Att.Len() != hf {
		panic(&tensor.ShapeError{Op: "GATv2Attention", A: c.WSrc.Shape(), B: c.Att.Shape(), Msg: "att must match the weights' width"})
	}
	p, seed := attentionDropout(c.Dropout, c.rng, c.Training())
	return deviceGATv2ConvPair(c, g, x, start, ops, dt, po, p, seed, &fusedAct{p: pd, seed: dropoutSeed(r)})
}
