package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// deviceTransformer is TransformerAttention on a device, fused where the
// device has the backend.TransformerOps capability and a kernel for the
// shape, and composed otherwise.
func deviceTransformer(g *graph.Graph, q, key, value *tensor.Tensor, heads int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const name = "TransformerAttention"
	start := backend.OpStart()
	if !q.IsOnDevice() || key.Device() != q.Device() || value.Device() != q.Device() {
		panic(&tensor.DeviceError{Op: name, Device: q.Device().String(), Err: fmt.Errorf("operands on different devices; move them with To")})
	}
	ops, ok := q.Device().(backend.TransformerOps)
	if !ok {
		return composedTransformer(g, q, key, value, heads, p, rng, training)
	}
	dp, seed := attentionDropout(p, rng, training)
	s, backward, err := ops.TransformerAttention(g, q, key, value, heads, dp, seed)
	if errors.Is(err, tensor.ErrNotOnDevice) {
		return composedTransformer(g, q, key, value, heads, p, rng, training)
	}
	deviceCheck(name, q, err)
	return backend.NewOpSince(start, name, backend.FromStorage(s, g.NumNodes(), q.Size(1)), []*tensor.Tensor{q, key, value}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dq, dk, dv, err := backward(grad)
		deviceCheck(name+" backward", q, err)
		return []*tensor.Tensor{backend.FromStorage(dq, q.Shape()...), backend.FromStorage(dk, key.Shape()...), backend.FromStorage(dv, value.Shape()...)}
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
