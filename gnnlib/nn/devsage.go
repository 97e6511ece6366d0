package nn

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// PrefixMatMulOps is an optional capability of a device (gnnlib/cuda's
// and devicetest.Fake's have it): products whose first operand is a row
// prefix of a tensor, one of them added in place into the first rows of a
// tensor the caller owns. A sampled block's destinations are the first
// rows of its sources, so SAGEConv's device op uses it for its root term:
// x's destination rows are neither copied out (Narrow) nor their product
// made apart and then added, and in the backward pass the root term's
// input gradient is added into the aggregation's in place.
type PrefixMatMulOps interface {
	// MatMulPrefix returns op(a[:aRows])·op(b) in new storage.
	MatMulPrefix(a, b *tensor.Tensor, aRows int, transA, transB bool) (tensor.Storage, error)
	// MatMulPrefixAdd adds op(a[:aRows])·op(b) into dst[:m], m the
	// product's rows (aRows, or a's columns with transA), in place.
	MatMulPrefixAdd(dst, a, b *tensor.Tensor, aRows int, transA, transB bool) error
}

// SAGEFused makes SAGEConv with the mean aggregator run as one op on a
// device with PrefixMatMulOps (float32, outside Autocast; dense x): its
// forward pass makes the mean term's product and adds the root term's
// into it in place (MatMulPrefixAdd over x's first rows), then the bias (with
// ForwardReLUDropout, the bias, ReLU and dropout in one pass over it);
// its backward pass adds the root term's input gradient into the
// aggregation's in place and takes the bias gradient with the
// activation's. The composed ops it stands for copy the destination rows
// out (Narrow), add the two products and then the bias in two more
// passes, and in the backward pass spread the root gradient into a
// zeroed tensor of every source row and add it to the aggregation's:
// on an H200 (2026-12-07, TestSampledStepKernelTimes) the products-sized
// sampled GraphSAGE step spent 0.41 ms of its 3.75 in those adds, 0.32 in
// copies of columns and 0.18 in the gradient sum. The values differ from
// the composed ops' by rounding only (the products' sum in another
// order). On by default: TestSAGEFusedOnDevice and the whole device suite
// with it on passed on an H100 (2026-12-07, 07:12), where the step's
// device time went from 4.13 to 3.11 ms with tune.ColSumVec4 and
// tune.PostFillCopy (TestSampledStepKernelTimes), and gnnbench's step from
// 4.65 to 3.41 ms a batch (-sampled-fused-ab).
var SAGEFused = true

// sageFusedOn reports whether SAGEConv c takes deviceSAGEConv for x.
func (c *SAGEConv) sageFusedOn(x *tensor.Tensor) bool {
	if !SAGEFused || c.Aggr != "mean" || !onDevice(x, c.WNeigh, c.WRoot, c.B) {
		return false
	}
	if _, ok := x.Device().(PrefixMatMulOps); !ok {
		return false
	}
	return x.DType() == tensor.Float32 && tensor.AutocastDType() == tensor.Float32
}

// forwardReLUDropout is ForwardReLUDropout's fused SAGEConv (actLayer).
func (c *SAGEConv) forwardReLUDropout(g *graph.Graph, x *tensor.Tensor, p float32, r *tensor.RNG) *tensor.Tensor {
	if !c.sageFusedOn(x) || !actOps(x) {
		return nil
	}
	return deviceSAGEConv(c, g, x, &fusedAct{p: p, seed: dropoutSeed(r)})
}

// deviceSAGEConv is SAGEConv.Forward with the mean aggregator on a
// device (SAGEFused): y = mean(x)·WNeigh + x[:n]·WRoot + B over g's n
// destinations, the mean term in the order sageAggregateFirst picks:
//
//	aggregate first: Z = mean(x), y = Z·WNeigh; backward dWNeigh = Zᵀ·G,
//	                 dx = meanᵀ(G·WNeighᵀ);
//	product first:   P = x·WNeigh, y = mean(P); backward T = meanᵀ(G),
//	                 dWNeigh = xᵀ·T, dx = T·WNeighᵀ;
//
// then y[:n] += x[:n]·WRoot in place, and dx[:n] += G·WRootᵀ, dWRoot =
// x[:n]ᵀ·G. Z (kept for the backward pass) and P are freed as soon as
// they are spent. With act the output is dropout(relu(y + B)) in place
// over y (ForwardReLUDropout), and the backward pass starts with the
// activation's gradient and the bias gradient in one pass.
func deviceSAGEConv(c *SAGEConv, g *graph.Graph, x *tensor.Tensor, act *fusedAct) *tensor.Tensor {
	const name = "SAGEConv"
	start := backend.OpStart()
	ops := deviceOps(name, x)
	pm := x.Device().(PrefixMatMulOps)
	wn, wr, b := c.WNeigh, c.WRoot, c.B
	in, out := wn.Size(0), wn.Size(1)
	f := checkNodes(name, x, g.NumSrc())
	n := g.NumNodes()
	if f != in || wr.Size(0) != in || wr.Size(1) != out {
		panic(&tensor.ShapeError{Op: "MatMul", A: x.Shape(), B: wn.Shape()})
	}
	if b.Len() != out {
		panic(&tensor.ShapeError{Op: "Add", A: []int{n, out}, B: b.Shape()})
	}
	if n > x.Size(0) {
		panic(&tensor.ShapeError{Op: name, A: x.Shape(), Msg: "fewer source rows than destinations"})
	}
	aggFirst := SAGEAggregateFirst && sageAggregateFirst(g, in, out)
	var z *tensor.Tensor // aggregate first: mean(x), kept for dWNeigh
	var y *tensor.Tensor
	if aggFirst {
		s, err := ops.GraphMeanSpMM(g, false, x)
		z = devStorage(name, x, s, err, n, in)
		s, err = ops.MatMul(z, wn, false, false)
		y = devStorage(name, x, s, err, n, out)
	} else {
		s, err := ops.MatMul(x, wn, false, false)
		p := devStorage(name, x, s, err, x.Size(0), out)
		s, err = ops.GraphMeanSpMM(g, false, p)
		freeStorage(p)
		y = devStorage(name, x, s, err, n, out)
	}
	deviceCheck(name, x, pm.MatMulPrefixAdd(y, x, wr, n, false, false))
	if act != nil {
		s, err := ops.(BiasActOps).BiasReLUDropout(y, b, act.p, act.seed) // over y
		y = devStorage(name, x, s, err, n, out)
	} else {
		s, err := ops.Binary(backend.BinaryAdd, y, b)
		freeStorage(y)
		y = devStorage(name, x, s, err, n, out)
	}
	frame := &layerFrame{name: name, ops: ops, x: x, b: b, kept: z, act: act}
	return frame.record(start, g.NumEdges(), y, []*tensor.Tensor{x, wn, b, wr}, 2, func(grad *tensor.Tensor, spend func(), grads []*tensor.Tensor) {
		const back = name + " backward"
		if wr.RequiresGrad() {
			s, err := pm.MatMulPrefix(x, grad, n, true, false)
			grads[3] = devStorage(back, x, s, err, in, out)
		}
		var dx *tensor.Tensor
		if aggFirst {
			if wn.RequiresGrad() {
				s, err := ops.MatMul(z, grad, true, false)
				grads[1] = devStorage(back, x, s, err, in, out)
			}
			if x.RequiresGrad() {
				s, err := ops.MatMul(grad, wn, false, true)
				dz := devStorage(back, x, s, err, n, in)
				s, err = ops.GraphMeanSpMM(g, true, dz)
				freeStorage(dz)
				dx = devStorage(back, x, s, err, x.Shape()...)
			}
		} else if wn.RequiresGrad() || x.RequiresGrad() {
			s, err := ops.GraphMeanSpMM(g, true, grad)
			t := devStorage(back, x, s, err, x.Size(0), out)
			if wn.RequiresGrad() {
				s, err := ops.MatMul(x, t, true, false)
				grads[1] = devStorage(back, x, s, err, in, out)
			}
			if x.RequiresGrad() {
				s, err := ops.MatMul(t, wn, false, true)
				dx = devStorage(back, x, s, err, x.Shape()...)
			}
			freeStorage(t)
		}
		if dx != nil {
			deviceCheck(back, x, pm.MatMulPrefixAdd(dx, grad, wr, grad.Size(0), false, true))
			grads[0] = dx
		}
		spend()
	})
}
