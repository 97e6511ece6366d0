package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// transformerOps is what a device implements to run TransformerAttention
// fused (gnnlib/cuda does): the output and a function computing the
// gradients of q, k and v from the output's. A device without it runs the
// composed version.
type transformerOps interface {
	TransformerAttention(g *graph.Graph, q, k, v *tensor.Tensor, heads int, p float32, seed uint64) (out tensor.Storage, backward func(grad *tensor.Tensor) (dq, dk, dv tensor.Storage, err error), err error)
}

// TransformerAttention is the attention of the Graph Transformer (Shi et
// al. 2021, PyG's TransformerConv) without its projections: for each edge
// u→v and head k,
//
//	α[e,k] = softmax over v's in-edges of q[v,k,:]·key[u,k,:] / √f,
//	out[v,k,:] = Σ_{u→v} α[e,k]·value[u,k,:],
//
// with α dropped out with probability p while training (rng draws the
// mask). q is [NumNodes, heads·f], key and value [NumSrc, heads·f]; the
// result is [NumNodes, heads·f]. On the CPU it stores the per-edge weights
// (E × heads). On a device it runs the backend's fused kernel, which
// stores one log-sum-exp per node and head and recomputes the weights in
// the backward pass, or, where that kernel refuses the shape, the same
// arithmetic composed of device ops.
func TransformerAttention(g *graph.Graph, q, key, value *tensor.Tensor, heads int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const name = "TransformerAttention"
	hf := checkTransformer(name, g, q, key, value, heads)
	f := hf / heads
	if q.IsOnDevice() {
		return deviceTransformer(g, q, key, value, heads, p, rng, training)
	}
	start := tensor.OpStart()
	scale := float32(1 / math.Sqrt(float64(f)))
	n := g.NumNodes()
	qd, kd, vd := q.Data(), key.Data(), value.Data()
	scores := make([]float32, g.NumEdges()*heads)
	g.SDDMM(scores, kd, qd, heads, f)
	for i := range scores {
		scores[i] *= scale
	}
	a := &attention{g: g, heads: heads, f: f}
	out := a.softmaxAndAggregate(scores, vd, p, rng, training)
	return tensor.NewOpSince(start, name, tensor.Wrap(out, n, hf), []*tensor.Tensor{q, key, value}, func(grad *tensor.Tensor) []*tensor.Tensor {
		ds, dv := a.backwardScores(grad.Data(), vd, true)
		for i := range ds {
			ds[i] *= scale
		}
		dq := make([]float32, n*hf)
		g.AttentionAggregate(dq, kd, ds, heads, f)
		dk := make([]float32, g.NumSrc()*hf)
		g.AttentionAggregateT(dk, qd, ds, heads, f)
		return []*tensor.Tensor{tensor.Wrap(dq, n, hf), tensor.Wrap(dk, g.NumSrc(), hf), tensor.Wrap(dv, g.NumSrc(), hf)}
	})
}

// checkTransformer checks the operands of TransformerAttention and returns
// the width.
func checkTransformer(op string, g *graph.Graph, q, key, value *tensor.Tensor, heads int) int {
	hf := checkNodes(op, q, g.NumNodes())
	if heads < 1 || hf%heads != 0 {
		panic(&tensor.ShapeError{Op: op, A: q.Shape(), Msg: fmt.Sprintf("width not divisible by %d heads", heads)})
	}
	if checkNodes(op, key, g.NumSrc()) != hf || checkNodes(op, value, g.NumSrc()) != hf {
		panic(&tensor.ShapeError{Op: op, A: key.Shape(), B: value.Shape(), Msg: "keys and values must match the queries' width"})
	}
	return hf
}

// deviceTransformer is TransformerAttention on a device, fused where the
// device has a kernel for the shape and composed otherwise.
func deviceTransformer(g *graph.Graph, q, key, value *tensor.Tensor, heads int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const name = "TransformerAttention"
	start := tensor.OpStart()
	if key.Device() != q.Device() || value.Device() != q.Device() {
		panic(&tensor.DeviceError{Op: name, Device: q.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
	}
	ops, ok := q.Device().(transformerOps)
	if !ok {
		return composedTransformer(g, q, key, value, heads, p, rng, training)
	}
	dp, seed := attentionDropout(p, rng, training)
	s, backward, err := ops.TransformerAttention(g, q, key, value, heads, dp, seed)
	if errors.Is(err, tensor.ErrNotOnDevice) {
		return composedTransformer(g, q, key, value, heads, p, rng, training)
	}
	deviceCheck(name, q, err)
	return tensor.NewOpSince(start, name, tensor.FromStorage(s, g.NumNodes(), q.Size(1)), []*tensor.Tensor{q, key, value}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dq, dk, dv, err := backward(grad)
		deviceCheck(name+" backward", q, err)
		return []*tensor.Tensor{tensor.FromStorage(dq, q.Shape()...), tensor.FromStorage(dk, key.Shape()...), tensor.FromStorage(dv, value.Shape()...)}
	})
}

// composedTransformer is TransformerAttention from composed device ops:
// the per-edge products of queries and keys summed per head (HeadDot with
// 1/√f), then the softmax and weighted sum of composedAggregate.
func composedTransformer(g *graph.Graph, q, key, value *tensor.Tensor, heads int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	ev := edgesOf(g)
	f := q.Size(1) / heads
	scale := tensor.Full(float32(1/math.Sqrt(float64(f))), heads, f).To(q.Device())
	scores := deviceHeadDot(q.IndexSelect(ev.dst).Mul(key.IndexSelect(ev.src)), scale, heads)
	return composedAggregate(ev, scores, value, heads, f, p, rng, training)
}
