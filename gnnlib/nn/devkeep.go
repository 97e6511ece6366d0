package nn

import (
	"runtime"
	"sync"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// GATv2OutOps is an optional capability of a device with fused GATv2
// attention (gnnlib/cuda's has it): the attention of
// backend.GraphOps.GATv2Attention whose backward function takes the
// attention output from the caller instead of keeping it, and the op
// that rebuilds that output from what a layer keeps anyway.
//
// The fused backward pass reads the output only through D = Σ_c
// dOut[v,h,c]·out[v,h,c] per node and head, so the output it is given
// needs to be right only where dOut is not zero. When a ReLUDropout
// consumes GATv2Conv's output, the layer frees its attention output at
// once and its backward pass rebuilds it from the activation, which the
// next layer keeps anyway: the layer keeps x·W_src and x·W_dst beside
// the activation, as gnnlib/cuda/bench/gnnbench's hand-written epoch
// does, not the attention output too. When another op read the layer's
// output as well (a residual h + y), the output's gradient is not zero
// where the activation is, and the backward pass computes the attention
// output again with GATv2Attention instead.
//
// The hand-off is on by default (RebuildGATv2Output).
type GATv2OutOps interface {
	// GATv2AttentionOut is GATv2Attention whose output the caller may
	// free after the call; backward takes the output back (rebuilt).
	GATv2AttentionOut(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (out tensor.Storage, backward func(grad, out *tensor.Tensor) (dhs, dhd, datt tensor.Storage, err error), err error)
	// UnbiasAct returns x rebuilt from y = dropout(relu(x + b)): y·(1-p)
	// - b where y is not zero and 0 where it is (ReLUDropout's gradient is
	// zero there); with relu false and p 0, y - b everywhere. Both up to
	// rounding.
	UnbiasAct(y, b *tensor.Tensor, relu bool, p float32) (tensor.Storage, error)
}

// RebuildGATv2Output turns on GATv2Conv's hand-off of its attention
// output to a ReLUDropout on devices with GATv2OutOps (see there). On by
// default since gnnlib/cuda's side ran on an H100 (2026-12-06:
// TestGATv2ConvRebuildsOutput, the rebuilt output's gradients against the
// kept one's). Set it before a model runs.
var RebuildGATv2Output = true

// ReLUDropoutGradUnbiasOps is an optional capability of a device with
// GATv2OutOps and ReLUDropoutColSumOps (gnnlib/cuda's and
// devicetest.Fake's have it): ReLUDropoutGradColSum(g, y, p) and
// UnbiasAct(y, b, true, p) in one pass over y, with the values of the
// two, float32 storage only. A GATv2Conv whose ReLU and dropout run in
// its own op (ForwardReLUDropout) then reads its activation once in its
// backward pass, for its output's gradient, its bias gradient and its
// rebuilt attention output, where gnnbench's hand-written epoch reads it
// twice (act_backward_colsum, then unbias_act).
type ReLUDropoutGradUnbiasOps interface {
	ReLUDropoutGradColSumUnbias(g, y, b *tensor.Tensor, p float32) (gx, colSum, x tensor.Storage, err error)
}

// RebuildInActBackward turns on ReLUDropoutGradUnbiasOps in GATv2Conv's
// fused backward pass (float32, bias with a gradient). On an H100
// (2026-12-06, gnnlib/cuda's TestRebuildInActBackwardOnDevice passed) the
// arxiv-sized GATv2 epoch took 15.60 ms with it against 15.90 without
// (gnnbench -nngatv2-ab; the hand-written epoch 15.48 in the same run),
// and its kernel, act_backward_colsum_unbias, 0.746 ms an epoch against
// 1.145 for the two it replaces (TestNNGATv2EpochKernelTimes). On by
// default; false makes the two calls. With ActOutInAttention (on by
// default) no output is rebuilt, and it does not apply.
var RebuildInActBackward = true

// rebuildInActBackward reports whether GATv2Conv's fused backward pass
// makes its output's gradient, its bias gradient and its rebuilt
// attention output in one ReLUDropoutGradUnbiasOps call: with
// RebuildInActBackward and not ActOutInAttention (which rebuilds no
// output), float32 storage and a bias that needs a gradient, outside
// Autocast (dt, the format the op's forward pass fixed).
func rebuildInActBackward(ops backend.GraphBackend, dt tensor.DType, grad, y, b *tensor.Tensor) bool {
	_, ok := ops.(ReLUDropoutGradUnbiasOps)
	return ok && RebuildInActBackward && !ActOutInAttention && b.RequiresGrad() && dt == tensor.Float32 &&
		grad.DType() == tensor.Float32 && y.DType() == tensor.Float32 && b.DType() == tensor.Float32
}

// CollectAfterBackward makes a fused layer op on a device (GCNConv,
// GATv2Conv) whose input needs no gradient, a model's first layer over
// its features and so the last backward function of the pass, start a
// garbage collection on another goroutine as its backward function
// returns, when its output holds at least 64 MiB. The pass has then let go
// of the model's activations, which only the collector gives back to the
// device (see the BUG note); collected while the device still runs the
// step's kernels, they are back before the next step allocates, where
// otherwise the next step's allocations start the collection, too late
// for that step's peak. On gnnlib/cuda's recording driver with 15 ms of
// device time a step, 6 of 10 arxiv-sized GATv2 epochs in a row peaked at
// 2.361 GiB without it, the previous epoch's two hidden activations and
// logits still held, and all 10 at 1.996 with it
// (TestCollectAfterBackward checks it on 70,000 nodes). On an H100
// (2026-12-06, gnnbench -nngatv2-ab, the other switches off) the
// arxiv-sized epoch's peak over 10 epochs was 1.940 GiB with it against
// 1.971 without: there the allocator's own collections mostly came in
// time. Smaller layers (a Cora-sized step) start none. On by default.
var CollectAfterBackward = true

// collectMin is the smallest output, in bytes, of a layer op that starts
// a collection (CollectAfterBackward).
const collectMin = 64 << 20

// bigOutput reports whether a layer op's output y is large enough to
// start CollectAfterBackward's collection (the op's backward function
// keeps this, not y, which it must not keep alive).
func bigOutput(y *tensor.Tensor) bool {
	return int64(y.Len())*int64(y.DType().Size()) >= collectMin
}

// collectAfterPass starts CollectAfterBackward's collection for the
// fused layer op with input x whose output was big.
func collectAfterPass(x *tensor.Tensor, big bool) {
	if CollectAfterBackward && big && !x.RequiresGrad() {
		go runtime.GC()
	}
}

// outKeeper holds a fused layer op's pre-bias output for its backward
// pass: the output itself (out, which only the op sees) until a
// ReLUDropout consumes the layer's biased output, then the activation
// that ReLUDropout made of it (act; relu and p say how), which the next
// layer keeps anyway, and from which the backward pass rebuilds the
// output. The output's memory goes back at that hand-off.
type outKeeper struct {
	mu  sync.Mutex
	out *tensor.Tensor
	act *tensor.Tensor
	p   float32
	// actGrad is the gradient ReLUDropout's backward pass returned for
	// the layer's output. The output's gradient is zero where act is
	// only when that is all of it; when another op read the output too
	// (h + y), the pass sums the gradients into a new tensor, and the
	// output must be computed again instead of rebuilt.
	actGrad *tensor.Tensor
}

// keepers maps a fused layer's output (weakly) to its op's outKeeper
// (weakly: the op's backward function holds it), so that ReLUDropout can
// hand the op its activation.
var keepers sync.Map // weak.Pointer[tensor.Tensor] -> weak.Pointer[outKeeper]

// keepOutput registers y, the biased output of a fused layer op, and
// returns the op's outKeeper holding out, its pre-bias output.
func keepOutput(y, out *tensor.Tensor) *outKeeper {
	k := &outKeeper{out: out}
	key := weak.Make(y)
	keepers.Store(key, weak.Make(k))
	runtime.AddCleanup(k, func(key weak.Pointer[tensor.Tensor]) { keepers.Delete(key) }, key)
	return k
}

// handOff tells the fused layer op whose output x is (if any) that act =
// dropout(relu(x)) with probability p was made of it: the op frees its
// pre-bias output and keeps act instead. 16-bit storage is not handed
// off: the output rebuilt from it would be off by its rounding.
// It returns the op's keeper, to be told the gradient ReLUDropout's
// backward pass returns (gradFor), or nil.
func handOff(x, act *tensor.Tensor, p float32) *outKeeper {
	v, ok := keepers.LoadAndDelete(weak.Make(x))
	if !ok {
		return nil
	}
	k := v.(weak.Pointer[outKeeper]).Value()
	if k == nil || x.DType() != tensor.Float32 || act.DType() != tensor.Float32 {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.out == nil || k.act != nil {
		return nil
	}
	freeStorage(k.out)
	k.out, k.act, k.p = nil, act, p
	return k
}

// gradFor records g, the gradient ReLUDropout's backward pass returned
// for the output k stands for.
func (k *outKeeper) gradFor(g *tensor.Tensor) {
	k.mu.Lock()
	k.actGrad = g
	k.mu.Unlock()
}

// output returns the pre-bias output for the backward pass whose
// upstream gradient is grad, through ops (b the layer's bias), and
// whether the caller frees it (rebuilt). When the output was handed
// off but grad is not the gradient ReLUDropout returned (another op read
// the output too), it returns nil: the caller computes it again.
func (k *outKeeper) output(ops GATv2OutOps, b, grad *tensor.Tensor) (out *tensor.Tensor, rebuilt bool, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.act == nil {
		out, k.out = k.out, nil
		return out, false, nil
	}
	act, only := k.act, grad == k.actGrad
	k.act, k.actGrad = nil, nil
	if !only {
		return nil, true, nil
	}
	s, err := ops.UnbiasAct(act, b, true, k.p)
	if err != nil {
		return nil, false, err
	}
	return backend.FromStorage(s, act.Shape()...), true, nil
}

// ReLUDropoutColSumOps is an optional capability of a device with
// ReLUDropoutOps: ReLUDropoutGrad and the column sums of its result in
// one pass (gnnlib/cuda's act_backward_colsum), which is the bias
// gradient of the layer op whose output the ReLUDropout read, as
// gnnbench's hand-written epoch computes it. The column sums are those
// of backend.GraphOps.ColSum over gx.
type ReLUDropoutColSumOps interface {
	ReLUDropoutGradColSum(g, y *tensor.Tensor, p float32) (gx, colSum tensor.Storage, err error)
}

// HandOffBiasGrad turns on the hand-off of a layer's bias gradient from
// a ReLUDropout over its output (ReLUDropoutColSumOps, biasSum): one
// pass over the gradient less per hidden layer. On by default since it
// ran on an H100 (2026-12-06, TestFastPathsOnDevice and
// TestReLUDropoutGradColSum); set it before a model runs.
var HandOffBiasGrad = true

// biasSum hands a fused layer op (GCNConv, GATv2Conv) the column sums
// of its output's gradient, which a ReLUDropout that read the output
// computed in the pass that made that gradient, so that the layer's
// backward pass does not read the gradient again for its bias (ColSum).
// The sums stand for the bias gradient only when the gradient the layer
// gets is the one ReLUDropout returned: when another op read the output
// too, the pass sums the gradients into a new tensor and the layer sums
// its columns itself.
type biasSum struct {
	mu   sync.Mutex
	grad *tensor.Tensor // the gradient ReLUDropout returned
	sum  *tensor.Tensor // its column sums
}

// biasSums maps a fused layer op's output (weakly) to its biasSum
// (weakly: the op's backward function holds it).
var biasSums sync.Map // weak.Pointer[tensor.Tensor] -> weak.Pointer[biasSum]

// wantBiasSum registers y, the biased output of a fused layer op whose
// bias needs a gradient, and returns the biasSum a ReLUDropout of y
// fills.
func wantBiasSum(y *tensor.Tensor) *biasSum {
	k := &biasSum{}
	key := weak.Make(y)
	biasSums.Store(key, weak.Make(k))
	runtime.AddCleanup(k, func(key weak.Pointer[tensor.Tensor]) { biasSums.Delete(key) }, key)
	return k
}

// takeBiasSum returns the biasSum of the fused layer op whose output x
// is, if any, for ReLUDropout to fill; one consumer takes it.
func takeBiasSum(x *tensor.Tensor) *biasSum {
	v, ok := biasSums.LoadAndDelete(weak.Make(x))
	if !ok {
		return nil
	}
	return v.(weak.Pointer[biasSum]).Value()
}

// set records the gradient ReLUDropout's backward pass returned and its
// column sums.
func (k *biasSum) set(grad, sum *tensor.Tensor) {
	k.mu.Lock()
	k.grad, k.sum = grad, sum
	k.mu.Unlock()
}

// colSum returns the column sums of grad, the layer's upstream gradient,
// shaped like the bias b: those ReLUDropout handed over when grad is its
// gradient, else ops.ColSum's (k may be nil).
func (k *biasSum) colSum(ops backend.GraphBackend, op string, x, grad, b *tensor.Tensor) *tensor.Tensor {
	if k != nil {
		k.mu.Lock()
		g, sum := k.grad, k.sum
		k.grad, k.sum = nil, nil
		k.mu.Unlock()
		if sum != nil && g == grad {
			return backend.FromStorage(sum.Storage(), b.Shape()...)
		}
		freeStorage(sum)
	}
	s, err := ops.ColSum(grad)
	return devStorage(op, x, s, err, b.Shape()...)
}
