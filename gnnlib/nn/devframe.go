package nn

import (
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// layerFrame is what the forward pass of a fused layer op whose output
// is a product plus a bias (GCNConv aggregating first, SAGEConv) shares
// with its backward function: the input x, the bias b, the tensor the
// pass reads and then frees (kept; nil for none), the fused activation
// (act; nil for none) and the bias gradient's hand-off to a ReLUDropout.
type layerFrame struct {
	name    string
	ops     backend.GraphBackend
	x, b    *tensor.Tensor
	kept    *tensor.Tensor
	act     *fusedAct
	done    bool // a backward pass ran, or none will
	big     bool // the output is big enough to collect after the pass
	biasSum *biasSum
}

// layerBody is a fused layer op's own backward work: grad is the
// gradient of its biased output, spend frees it where the pass owns it
// (call it once grad is read; it is not called otherwise), and grads
// receives one gradient per input (the bias's is set already).
type layerBody func(grad *tensor.Tensor, spend func(), grads []*tensor.Tensor)

// record records y, made from inputs (the bias at index bias), as the
// op, with body as its backward work. The backward function refuses a
// second pass (its intermediates are gone), starts with the gradient
// through the fused activation and the bias gradient in one pass
// (fusedAct.outputGrad), runs body, frees kept and starts the garbage
// collection after a big output's pass. When nothing is recorded, kept
// is freed at once.
func (f *layerFrame) record(start time.Time, edges int, y *tensor.Tensor, inputs []*tensor.Tensor, bias int, body layerBody) *tensor.Tensor {
	f.big = bigOutput(y)
	y = backend.NewGraphOpSince(start, f.name, edges, y, inputs, func(grad *tensor.Tensor) []*tensor.Tensor {
		back := f.name + " backward"
		if f.done {
			deviceCheck(back, f.x, errBackwardTwice)
		}
		f.done = true
		defer collectAfterPass(f.x, f.big)
		defer freeStorage(f.kept)
		grads := make([]*tensor.Tensor, len(inputs))
		var gx *tensor.Tensor // the biased output's gradient, the op's own (act)
		defer func() { freeStorage(gx) }()
		owned := backend.OwnsGrad(grad)
		grad, grads[bias], gx = f.act.outputGrad(f.ops, back, f.x, grad, f.b, owned, f.biasSum)
		owned = owned || gx != nil
		spent := false
		body(grad, func() {
			if !spent {
				spent = true
				if owned {
					freeStorage(grad)
				}
				gx = nil
			}
		}, grads)
		return grads
	})
	f.act.keep(y)
	if y.IsLeaf() { // nothing recorded: no backward pass will read kept
		f.done = true
		freeStorage(f.kept)
	} else if f.b.RequiresGrad() && HandOffBiasGrad && f.act == nil {
		f.biasSum = wantBiasSum(y)
	}
	return y
}
