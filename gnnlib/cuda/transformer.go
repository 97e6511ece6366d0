package cuda

import (
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Transformer holds what the fused Graph Transformer attention keeps
// between its forward and backward passes: the output and one log-sum-exp
// per (node, head). Nothing is stored per edge: the backward passes
// recompute each edge's attention from the log-sum-exp.
type Transformer struct {
	Heads, Channels int
	Scale           float32 // the scores' factor, 1/√C of the layer's width
	Out             *Tensor // N x H*C (attention + skip after TransformerForwardFused)
	LSE             *Tensor // N x H
	Dropout         AttentionDropout
	d               *Tensor // N x H, dOut·attention, between the two backward passes
	skip            bool    // Out includes the skip block of the fused input
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
	return transformerForward(g, qkv{matOf(q), k.ptr, val.ptr, 0}, q.buf.dev, heads, channels, scale, drop)
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
	return transformerForward(g, fusedQKV(qkvs, hc), qkvs.buf.dev, heads, channels, scale, drop)
}

// qkv names the query, key, value and (optional) skip blocks of a
// transformer's input, which share one row stride.
type qkv struct {
	q          mat
	k, v, skip uintptr
}

// fusedQKV splits an N x 4HC tensor into its four column blocks.
func fusedQKV(t *Tensor, hc int) qkv {
	b := uintptr(hc) * 4
	return qkv{mat{t.ptr, int64(t.Cols)}, t.ptr + b, t.ptr + 2*b, t.ptr + 3*b}
}

func transformerForward(g *Graph, in qkv, d *Device, heads, channels int, scale float32, drop AttentionDropout) (*Transformer, error) {
	const op = "TransformerForward"
	if err := drop.check(op); err != nil {
		return nil, err
	}
	kn, ok := gatShape(channels)
	if !ok || !g.IsSquare() {
		return nil, shapeErr(op, "channels per head %d (multiples of 4 up to %d), graph %d<-%d nodes", channels, maxGATv2Channels, g.n, g.nsrc)
	}
	out, _, lse, err := attnForward(d, g, "tf_fwd"+kn.suffix(), heads, channels, kn.g, false, in.skip, in.q.ld, func(out uintptr, lse *Tensor, n int, tiles bool) []any {
		// The tiles leave the skip block to the merge, which adds it once.
		skip := in.skip
		if tiles {
			skip = 0
		}
		return []any{in.q.ptr, in.k, in.v, in.q.ld, skip, out, lse, n, heads, scale, drop.P, drop.Seed, channels}
	})
	if err != nil {
		return nil, err
	}
	return &Transformer{Heads: heads, Channels: channels, Scale: scale, Out: out, LSE: lse, Dropout: drop, skip: in.skip != 0}, nil
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
	return a.backward(g, qkv{matOf(q), k.ptr, val.ptr, 0}, dout, qkv{matOf(dq), dk.ptr, dval.ptr, 0})
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
	b := uintptr(hc) * 4
	return a.backward(g, fusedQKV(qkvs, hc), dout, qkv{mat{dqkv.ptr, int64(dqkv.Cols)}, dqkv.ptr + b, dqkv.ptr + 2*b, 0})
}

func (a *Transformer) backward(g *Graph, in qkv, dout *Tensor, grads qkv) error {
	d := dout.buf.dev
	if dout.Rows != g.n || dout.Cols != a.Heads*a.Channels {
		return shapeErr("Transformer.Backward", "dout %dx%d", dout.Rows, dout.Cols)
	}
	kn, _ := gatShape(a.Channels)
	const block = 256
	launch := func(kernel string, n int, args []any) error {
		return d.launch(kernel+kn.suffix(), d.gridFor(int64(n)*int64(a.Heads)*int64(kn.g), block), block, args...)
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
		return []any{in.q.ptr, in.k, in.v, in.q.ld, skip, a.Out, a.LSE, dout, dq.ptr, dq.ld, dd, n, a.Heads, a.Scale, a.Dropout.P, a.Dropout.Seed, a.Channels}
	}
	pass := g.attnPass(false)
	if err := launch("tf_bwd_dst", g.n, pass.rowArgs(dst(grads.q, a.d.ptr, g.n)...)); err != nil {
		return err
	}
	if pass.split {
		err := splitSum(pass, []sumOut{{hc, grads.q.ptr, grads.q.ld, false}}, func(parts []*Tensor) error {
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
		return []any{tp, in.q.ptr, in.k, in.v, in.q.ld, a.LSE, a.d, dout, dk, dv, ld, n, a.Heads, a.Scale, a.Dropout.P, a.Dropout.Seed, a.Channels}
	}
	pass = g.attnPass(true)
	if err := launch("tf_bwd_src", g.n, pass.rowArgs(src(grads.k, grads.v, grads.q.ld, g.n)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, grads.k, grads.q.ld, false}, {hc, grads.v, grads.q.ld, false}}, func(parts []*Tensor) error {
		return launch("tf_bwd_src", pass.hv.ntiles, pass.tileArgs(src(parts[0].ptr, parts[1].ptr, int64(hc), pass.hv.ntiles)...))
	})
}

// Free releases the saved tensors.
func (a *Transformer) Free() {
	a.Out.Free()
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
	vs, c, cp, dg, err := d.attentionInputs("TransformerAttention", g, heads, false, q, k, val)
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

func (k *transformerOp) release() {
	k.fw.LSE.Free()
	if k.fw.d != nil {
		k.fw.d.Free()
	}
}
