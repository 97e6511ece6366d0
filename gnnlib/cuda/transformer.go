package cuda

import (
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Transformer holds what the fused Graph Transformer attention keeps
// between its forward and backward passes: the output and one log-sum-exp
// per (node, head). Nothing is stored per edge: the backward passes
// recompute each edge's attention from the log-sum-exp.
//
// TransformerForwardBF16 and TransformerForwardFusedBF16 run the same
// passes over bfloat16 features (the kernels' _bf16 versions): Out16
// holds the output instead of Out, and BackwardBF16 and
// BackwardFusedBF16 take bfloat16 dOut and write bfloat16 gradients. The
// log-sum-exp, D and the sums over edges stay float32; each bfloat16 row
// is rounded once, when it is stored.
type Transformer struct {
	Heads, Channels int
	Scale           float32     // the scores' factor, 1/√C of the layer's width
	Out             *Tensor     // N x H*C (attention + skip after TransformerForwardFused)
	Out16           *BF16Tensor // the same in bfloat16 (bfloat16 kernels)
	LSE             *Tensor     // N x H
	Dropout         AttentionDropout
	d               *Tensor // N x H, dOut·attention, between the two backward passes
	skip            bool    // Out includes the skip block of the fused input
	wide            bool    // BF16WideLoads when the forward pass ran
}

// TransformerForward computes the attention of a TransformerConv layer
// (Shi et al. 2021; PyG's TransformerConv without its projections, root
// weight or gate): for an edge u→v and head h, the score is scale·q[v,h]·
// k[u,h], the weights are its softmax over v's in-edges (dropped out by
// drop), and out[v,h] = Σ_u α·val[u,h]. q, k and val are N x heads·
// channels; channels is a width the fused kernels take (gatShape). One
// pass per destination with an online softmax.
func TransformerForward(g *Graph, q, k, val *Tensor, heads, channels int, scale float32, drop AttentionDropout) (*Transformer, error) {
	hc := heads * channels
	for _, x := range []*Tensor{q, k, val} {
		if x.Rows != g.n || x.Cols != hc {
			return nil, shapeErr("TransformerForward", "q, k and values must be %dx%d (graph %d nodes, heads %d x %d), got %dx%d", g.n, hc, g.n, heads, channels, x.Rows, x.Cols)
		}
	}
	return transformerForward(g, qkv{matOf(q), k.ptr, val.ptr, 0}, q.buf.dev, heads, channels, scale, drop, false)
}

// TransformerForwardBF16 is TransformerForward over bfloat16 q, k and
// val: the _bf16 kernels read them 4 channels (8 bytes) a lane, keep the
// online softmax and the weighted sum in float32 and store the output in
// bfloat16 (Out16).
func TransformerForwardBF16(g *Graph, q, k, val *BF16Tensor, heads, channels int, scale float32, drop AttentionDropout) (*Transformer, error) {
	hc := heads * channels
	for _, x := range []*BF16Tensor{q, k, val} {
		if x.Rows != g.n || x.Cols != hc {
			return nil, shapeErr("TransformerForwardBF16", "q, k and values must be %dx%d (graph %d nodes, heads %d x %d), got %dx%d", g.n, hc, g.n, heads, channels, x.Rows, x.Cols)
		}
	}
	return transformerForward(g, qkv{matOf16(q), k.ptr, val.ptr, 0}, q.buf.dev, heads, channels, scale, drop, true)
}

// TransformerForwardFused is TransformerForward from one N x 4·heads·
// channels product x·[W_q W_k W_v W_skip] (the four projections of a
// TransformerConv layer with its root weight, as one GEMM): q, k and val
// are its first three column blocks, and Out is the attention plus the
// fourth block, added as each row is stored.
func TransformerForwardFused(g *Graph, qkvs *Tensor, heads, channels int, scale float32, drop AttentionDropout) (*Transformer, error) {
	hc := heads * channels
	if qkvs.Rows != g.n || qkvs.Cols != 4*hc {
		return nil, shapeErr("TransformerForwardFused", "qkvs %dx%d, want %dx%d (graph %d nodes, heads %d x %d)", qkvs.Rows, qkvs.Cols, g.n, 4*hc, g.n, heads, channels)
	}
	return transformerForward(g, fusedQKV(qkvs.ptr, qkvs.Cols, hc, 4), qkvs.buf.dev, heads, channels, scale, drop, false)
}

// TransformerForwardFusedBF16 is TransformerForwardFused over a bfloat16
// product x·[W_q W_k W_v W_skip]; Out16 is the attention plus the skip
// block, summed in float32 and rounded once.
func TransformerForwardFusedBF16(g *Graph, qkvs *BF16Tensor, heads, channels int, scale float32, drop AttentionDropout) (*Transformer, error) {
	hc := heads * channels
	if qkvs.Rows != g.n || qkvs.Cols != 4*hc {
		return nil, shapeErr("TransformerForwardFusedBF16", "qkvs %dx%d, want %dx%d (graph %d nodes, heads %d x %d)", qkvs.Rows, qkvs.Cols, g.n, 4*hc, g.n, heads, channels)
	}
	return transformerForward(g, fusedQKV(qkvs.ptr, qkvs.Cols, hc, 2), qkvs.buf.dev, heads, channels, scale, drop, true)
}

// bf16 reports whether a ran the bfloat16 kernels.
func (a *Transformer) bf16() bool { return a.Out16 != nil }

// outPtr is the output the backward kernels read.
func (a *Transformer) outPtr() uintptr {
	if a.Out16 != nil {
		return a.Out16.ptr
	}
	if a.Out == nil {
		return 0
	}
	return a.Out.ptr
}

// qkv names the query, key, value and (optional) skip blocks of a
// transformer's input, which share one row stride.
type qkv struct {
	q          mat
	k, v, skip uintptr
}

// fusedQKV splits an N x 4HC matrix at ptr (cols wide, size bytes a
// value) into its four column blocks.
func fusedQKV(ptr uintptr, cols, hc, size int) qkv {
	b := uintptr(hc * size)
	return qkv{mat{ptr, int64(cols)}, ptr + b, ptr + 2*b, ptr + 3*b}
}

func transformerForward(g *Graph, in qkv, d *Device, heads, channels int, scale float32, drop AttentionDropout, bf16 bool) (*Transformer, error) {
	const op = "TransformerForward"
	if err := drop.check(op); err != nil {
		return nil, err
	}
	kn, ok := gatShape(channels)
	if !ok || !g.IsSquare() {
		return nil, shapeErr(op, "channels per head %d (multiples of 4 up to %d), graph %d<-%d nodes", channels, maxGATv2Channels, g.n, g.nsrc)
	}
	wide := BF16WideLoads
	out, out16, lse, err := attnForward(d, g, "tf_fwd"+attnSuffix(kn, bf16, wide), heads, channels, kn.g, bf16, in.skip, in.q.ld, func(out uintptr, lse *Tensor, n int, tiles bool) []any {
		// The tiles leave the skip block to the merge, which adds it once.
		skip := in.skip
		if tiles {
			skip = 0
		}
		return []any{in.q.ptr, in.k, in.v, in.q.ld, skip, out, lse, n, heads, scale, drop.P, drop.Seed, channels, tune.AttnPrefetch}
	})
	if err != nil {
		return nil, err
	}
	return &Transformer{Heads: heads, Channels: channels, Scale: scale, Out: out, Out16: out16, LSE: lse, Dropout: drop, skip: in.skip != 0, wide: wide}, nil
}

// Backward writes the gradients of q, k and val (each N x heads·channels)
// given dout = dL/dOut: a pass over the in-edges for dq, then one over the
// cached transposed CSR for dk and dval.
func (a *Transformer) Backward(g *Graph, q, k, val, dout, dq, dk, dval *Tensor) error {
	hc := a.Heads * a.Channels
	for _, x := range []*Tensor{q, k, val, dout, dq, dk, dval} {
		if x.Rows != g.n || x.Cols != hc {
			return shapeErr("Transformer.Backward", "operands must be %dx%d, got %dx%d", g.n, hc, x.Rows, x.Cols)
		}
	}
	if a.skip {
		return shapeErr("Transformer.Backward", "the attention ran fused with its skip block: use BackwardFused")
	}
	if a.bf16() {
		return shapeErr("Transformer.Backward", "float32 operands after a bfloat16 forward pass: use BackwardBF16")
	}
	return a.backward(g, qkv{matOf(q), k.ptr, val.ptr, 0}, dout.ptr, qkv{matOf(dq), dk.ptr, dval.ptr, 0})
}

// BackwardBF16 is Backward after TransformerForwardBF16: every operand
// bfloat16.
func (a *Transformer) BackwardBF16(g *Graph, q, k, val, dout, dq, dk, dval *BF16Tensor) error {
	hc := a.Heads * a.Channels
	for _, x := range []*BF16Tensor{q, k, val, dout, dq, dk, dval} {
		if x.Rows != g.n || x.Cols != hc {
			return shapeErr("Transformer.BackwardBF16", "operands must be %dx%d, got %dx%d", g.n, hc, x.Rows, x.Cols)
		}
	}
	if a.skip {
		return shapeErr("Transformer.BackwardBF16", "the attention ran fused with its skip block: use BackwardFusedBF16")
	}
	if !a.bf16() {
		return shapeErr("Transformer.BackwardBF16", "bfloat16 operands after a float32 forward pass: use Backward")
	}
	return a.backward(g, qkv{matOf16(q), k.ptr, val.ptr, 0}, dout.ptr, qkv{matOf16(dq), dk.ptr, dval.ptr, 0})
}

// BackwardFused is Backward after TransformerForwardFused: from the same
// qkvs it writes the gradients of q, k and val as the three column blocks
// of dqkv (N x 3·heads·channels), so that one GEMM xᵀ·dqkv gives the three
// weights' gradients; the skip block's gradient is dout itself.
func (a *Transformer) BackwardFused(g *Graph, qkvs, dout, dqkv *Tensor) error {
	hc := a.Heads * a.Channels
	if qkvs.Rows != g.n || qkvs.Cols != 4*hc || dout.Rows != g.n || dout.Cols != hc || dqkv.Rows != g.n || dqkv.Cols != 3*hc {
		return shapeErr("Transformer.BackwardFused", "qkvs %dx%d, dout %dx%d, dqkv %dx%d for %d nodes, heads %d x %d", qkvs.Rows, qkvs.Cols, dout.Rows, dout.Cols, dqkv.Rows, dqkv.Cols, g.n, a.Heads, a.Channels)
	}
	if a.bf16() {
		return shapeErr("Transformer.BackwardFused", "float32 operands after a bfloat16 forward pass: use BackwardFusedBF16")
	}
	g3 := fusedQKV(dqkv.ptr, dqkv.Cols, hc, 4)
	g3.skip = 0
	return a.backward(g, fusedQKV(qkvs.ptr, qkvs.Cols, hc, 4), dout.ptr, g3)
}

// BackwardFusedBF16 is BackwardFused after TransformerForwardFusedBF16:
// qkvs, dout and dqkv bfloat16.
func (a *Transformer) BackwardFusedBF16(g *Graph, qkvs, dout, dqkv *BF16Tensor) error {
	hc := a.Heads * a.Channels
	if qkvs.Rows != g.n || qkvs.Cols != 4*hc || dout.Rows != g.n || dout.Cols != hc || dqkv.Rows != g.n || dqkv.Cols != 3*hc {
		return shapeErr("Transformer.BackwardFusedBF16", "qkvs %dx%d, dout %dx%d, dqkv %dx%d for %d nodes, heads %d x %d", qkvs.Rows, qkvs.Cols, dout.Rows, dout.Cols, dqkv.Rows, dqkv.Cols, g.n, a.Heads, a.Channels)
	}
	if !a.bf16() {
		return shapeErr("Transformer.BackwardFusedBF16", "bfloat16 operands after a float32 forward pass: use BackwardFused")
	}
	g3 := fusedQKV(dqkv.ptr, dqkv.Cols, hc, 2)
	g3.skip = 0
	return a.backward(g, fusedQKV(qkvs.ptr, qkvs.Cols, hc, 2), dout.ptr, g3)
}

func (a *Transformer) backward(g *Graph, in qkv, dout uintptr, grads qkv) error {
	d := a.LSE.buf.dev
	kn, _ := gatShape(a.Channels)
	const block = 256
	sfx := attnSuffix(kn, a.bf16(), a.wide)
	launch := func(kernel string, n int, args []any) error {
		return d.launch(kernel+sfx, d.gridFor(int64(n)*int64(a.Heads)*int64(kn.g), block), block, args...)
	}
	hc := a.Heads * a.Channels
	if a.d == nil {
		var err error
		if a.d, err = d.Empty(g.n, a.Heads); err != nil {
			return err
		}
	}
	var skip uintptr
	if a.skip {
		skip = in.skip
	}
	// D per (row, head) goes to a.d from the row pass only.
	dst := func(dq mat, dd uintptr, n int) []any {
		return []any{in.q.ptr, in.k, in.v, in.q.ld, skip, a.outPtr(), a.LSE, dout, dq.ptr, dq.ld, dd, n, a.Heads, a.Scale, a.Dropout.P, a.Dropout.Seed, a.Channels, tune.AttnPrefetch}
	}
	pass := g.attnPass(false)
	if err := launch("tf_bwd_dst", g.n, pass.rowArgs(dst(grads.q, a.d.ptr, g.n)...)); err != nil {
		return err
	}
	if pass.split {
		err := splitSum(pass, []sumOut{{hc, grads.q.ptr, grads.q.ld, a.bf16()}}, func(parts []*Tensor) error {
			return launch("tf_bwd_dst", pass.hv.ntiles, pass.tileArgs(dst(matOf(parts[0]), 0, pass.hv.ntiles)...))
		})
		if err != nil {
			return err
		}
	}
	// The dropout factors are a function of the CSR edge: the source pass
	// finds it through the transpose's permutation, needed only then.
	var tp uintptr
	if a.Dropout.P > 0 {
		tperm, err := g.transposePerm()
		if err != nil {
			return err
		}
		tp = tperm.ptr
	}
	src := func(dk, dv uintptr, ld int64, n int) []any {
		return []any{tp, in.q.ptr, in.k, in.v, in.q.ld, a.LSE, a.d, dout, dk, dv, ld, n, a.Heads, a.Scale, a.Dropout.P, a.Dropout.Seed, a.Channels, tune.AttnPrefetch}
	}
	pass = g.attnPass(true)
	if err := launch("tf_bwd_src", g.n, pass.rowArgs(src(grads.k, grads.v, grads.q.ld, g.n)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, grads.k, grads.q.ld, a.bf16()}, {hc, grads.v, grads.q.ld, a.bf16()}}, func(parts []*Tensor) error {
		return launch("tf_bwd_src", pass.hv.ntiles, pass.tileArgs(src(parts[0].ptr, parts[1].ptr, int64(hc), pass.hv.ntiles)...))
	})
}

// Free releases the saved tensors.
func (a *Transformer) Free() {
	a.Out.Free()
	a.Out16.Free()
	a.LSE.Free()
	if a.d != nil {
		a.d.Free()
	}
}

// TransformerAttention runs the fused Graph Transformer attention for
// gnnlib/nn: q [NumNodes, heads·c], k and val [NumSrc, heads·c], scores
// scaled by 1/√c, attention dropout p drawn from seed. Heads whose width
// is not a multiple of 4 run padded with zero channels (padHeads), which
// change no score, output or gradient; widths between 512 and 1024 run at
// 1024 as GATv2Attention's do. Wider heads and rectangular graphs are
// refused with an error wrapping tensor.ErrNotOnDevice, which gnnlib/nn
// answers with composed device ops.
func (d *backend) TransformerAttention(g *graph.Graph, q, k, val *tensor.Tensor, heads int, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	vs, c, cp, dg, err := d.attentionInputs("TransformerAttention", g, heads, q, k, val)
	if err != nil {
		return nil, nil, err
	}
	scale := float32(1 / math.Sqrt(float64(c)))
	return d.runAttention(heads, c, cp, []*tensor.Tensor{q, k, val}, vs, &transformerOp{d: d, g: dg, heads: heads, cp: cp, scale: scale, drop: AttentionDropout{P: p, Seed: seed}})
}

// transformerOp is TransformerAttention's kernels for fusedAttention:
// inputs q, k and values.
type transformerOp struct {
	d         *backend
	g         *Graph
	heads, cp int
	scale     float32
	drop      AttentionDropout
	fw        *Transformer
}

func (k *transformerOp) forward(ins []*Tensor) (*Tensor, error) {
	var err error
	if k.fw, err = TransformerForward(k.g, ins[0], ins[1], ins[2], k.heads, k.cp, k.scale, k.drop); err != nil {
		return nil, err
	}
	return k.fw.Out, nil
}

func (k *transformerOp) backward(ins []*Tensor, out, dout *Tensor) ([]*Tensor, error) {
	k.fw.Out = out
	gs := make([]*Tensor, 3)
	for i := range gs {
		var err error
		if gs[i], err = k.d.Empty(k.g.n, k.heads*k.cp); err != nil {
			freeAll(gs)
			return nil, err
		}
	}
	if err := k.fw.Backward(k.g, ins[0], ins[1], ins[2], dout, gs[0], gs[1], gs[2]); err != nil {
		freeAll(gs)
		return nil, err
	}
	return gs, nil
}

func (k *transformerOp) feature(int) bool { return true } // q, k and the values

func (k *transformerOp) forward16(ins16 []*BF16Tensor, _ []*Tensor) (*BF16Tensor, error) {
	var err error
	if k.fw, err = TransformerForwardBF16(k.g, ins16[0], ins16[1], ins16[2], k.heads, k.cp, k.scale, k.drop); err != nil {
		return nil, err
	}
	return k.fw.Out16, nil
}

func (k *transformerOp) backward16(ins16 []*BF16Tensor, _ []*Tensor, out, dout *BF16Tensor) ([]tensor.Storage, error) {
	k.fw.Out16 = out
	gs := make([]*BF16Tensor, 3)
	fail := func(err error) ([]tensor.Storage, error) {
		for _, g := range gs {
			g.Free()
		}
		return nil, err
	}
	for i := range gs {
		var err error
		if gs[i], err = k.d.EmptyBF16(k.g.n, k.heads*k.cp); err != nil {
			return fail(err)
		}
	}
	if err := k.fw.BackwardBF16(k.g, ins16[0], ins16[1], ins16[2], dout, gs[0], gs[1], gs[2]); err != nil {
		return fail(err)
	}
	return []tensor.Storage{gs[0], gs[1], gs[2]}, nil
}

func (k *transformerOp) release() {
	k.fw.LSE.Free()
	if k.fw.d != nil {
		k.fw.d.Free()
	}
}
