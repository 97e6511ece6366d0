package nn

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TransformerAttention is the fused multi-head scaled dot-product
// attention over in-neighbours of TransformerConv (Shi et al.): for each
// edge u→v and head k the score <q[v,k,:], key[u,k,:]>/sqrt(f) is
// normalised by a softmax over v's in-edges, dropped out with probability
// p while training, and weights the sum of value[u,k,:] into row v. q is
// [NumNodes, heads·f], key and value [NumSrc, heads·f]; the result is
// [NumNodes, heads·f], zero for a node without in-edges. Only per-edge
// scalars per head are stored (the attention weights and the dropout
// mask): no edge×feature tensor is built. rng draws the dropout mask. On
// a device it runs the backend's fused kernel, which stores one
// log-sum-exp per node and head instead and recomputes the weights in the
// backward pass (gnnlib/cuda), or, for a shape or graph that kernel
// refuses, the same arithmetic composed of device ops.
func TransformerAttention(g *graph.Graph, q, key, value *tensor.Tensor, heads int, p float32, rng *tensor.RNG, training bool) *tensor.Tensor {
	const op = "TransformerAttention"
	hf := checkNodes(op, key, g.NumSrc())
	if heads < 1 || hf%heads != 0 {
		panic(&tensor.ShapeError{Op: op, A: key.Shape(), Msg: fmt.Sprintf("width not divisible by %d heads", heads)})
	}
	if checkNodes(op, value, g.NumSrc()) != hf || checkNodes(op, q, g.NumNodes()) != hf {
		panic(&tensor.ShapeError{Op: op, A: q.Shape(), B: value.Shape(), Msg: "queries, keys and values must have the same width"})
	}
	if q.IsOnDevice() || key.IsOnDevice() || value.IsOnDevice() {
		return deviceTransformer(g, q, key, value, heads, p, rng, training)
	}
	start := backend.OpStart()
	f := hf / heads
	scale := float32(1 / math.Sqrt(float64(f)))
	a := &attention{g: g, heads: heads, f: f}
	qd, kd, vd := q.Data(), key.Data(), value.Data()
	scores := make([]float32, g.NumEdges()*heads)
	kernels.SDDMM(g, scores, kd, qd, heads, f)
	for i := range scores {
		scores[i] *= scale
	}
	out := a.softmaxAndAggregate(scores, vd, p, rng, training)
	n := g.NumNodes()
	return backend.NewOpSince(start, op, tensor.Wrap(out, n, hf), []*tensor.Tensor{q, key, value}, func(grad *tensor.Tensor) []*tensor.Tensor {
		d, dv := a.backwardScores(grad.Data(), vd, value.RequiresGrad())
		for i := range d {
			d[i] *= scale
		}
		// score_e = <q_v, k_u>: dq_v = Σ_e d_e·k_u (an aggregation with
		// the score gradients as weights), dk_u = Σ_e d_e·q_v (its
		// transpose).
		var dq, dk, dvT *tensor.Tensor
		if q.RequiresGrad() {
			buf := make([]float32, n*hf)
			kernels.AttentionAggregate(g, buf, kd, d, heads, f)
			dq = tensor.Wrap(buf, n, hf)
		}
		if key.RequiresGrad() {
			buf := make([]float32, g.NumSrc()*hf)
			kernels.AttentionAggregateT(g, buf, qd, d, heads, f)
			dk = tensor.Wrap(buf, g.NumSrc(), hf)
		}
		if dv != nil {
			dvT = tensor.Wrap(dv, g.NumSrc(), hf)
		}
		return []*tensor.Tensor{dq, dk, dvT}
	})
}

// TransformerConv is the graph transformer layer of Shi et al. ("Masked
// label prediction", UniMP) with PyG's semantics:
//
//	q_v = x_v·WQ + BQ,  k_u = x_u·WK + BK,  m_u = x_u·WV + BV  (Heads×Out each)
//	α_uv = softmax_{u→v}(<q_v, k_u> / sqrt(Out))   per head
//	h_v  = Σ_{u→v} α_uv·m_u, heads concatenated or averaged
//	r_v  = x_v·WSkip + BSkip                       (root weight)
//	out_v = h_v + r_v, or with the beta gate
//	β_v  = sigmoid([h_v, r_v, h_v − r_v]·WBeta),  out_v = β_v·r_v + (1−β_v)·h_v
//
// with dropout on α while training. No self-loops are added (as in PyG):
// a node without in-edges gets only its root term. It accepts a sampled
// block, whose first rows of x are the destinations.
//
// The forward pass is a chain of ops with these boundaries, so that a
// device backend can take any of them over: the three projections
// (MatMul, Add), TransformerAttention (scores, edge softmax, dropout and
// aggregation fused, per-edge scalars only), the head mean (Reshape,
// MeanAxis), the root projection, and the gate (Concat, MatMul, Sigmoid,
// Sub, Mul, Add).
type TransformerConv struct {
	Mode
	WQ, BQ, WK, BK, WV, BV *tensor.Tensor
	// WSkip and BSkip project the root; nil after NoRootWeight.
	WSkip, BSkip *tensor.Tensor
	// WBeta is the gate's weight [3·width, 1]; nil without the gate.
	WBeta      *tensor.Tensor
	Heads, Out int
	Concat     bool
	Dropout    float32
	rng        *tensor.RNG
}

// NewTransformerConv returns a graph transformer layer with heads heads
// of out features each, concatenated if concat (else averaged), the beta
// gate if beta, and attention dropout dropout; the root weight is on (PyG's
// default, see NoRootWeight). Weights are initialised as PyTorch's Linear.
func NewTransformerConv(in, out, heads int, concat, beta bool, dropout float32) *TransformerConv {
	if in < 1 || out < 1 || heads < 1 || !(dropout >= 0 && dropout < 1) {
		panic(fmt.Sprintf("nn: NewTransformerConv(in=%d, out=%d, heads=%d, dropout=%g): want positive sizes and dropout in [0, 1)", in, out, heads, dropout))
	}
	hf := heads * out
	c := &TransformerConv{Heads: heads, Out: out, Concat: concat, Dropout: dropout, rng: newLayerRNG()}
	lin := func() (*tensor.Tensor, *tensor.Tensor) {
		l := NewLinear(in, hf)
		return l.W, l.B
	}
	c.WQ, c.BQ = lin()
	c.WK, c.BK = lin()
	c.WV, c.BV = lin()
	width := out
	if concat {
		width = hf
	}
	skip := NewLinear(in, width)
	c.WSkip, c.BSkip = skip.W, skip.B
	if beta {
		c.WBeta = newWeight(LeCunUniform, 3*width, 1)
	}
	return c
}

// NoRootWeight removes the root projection (and the gate, which needs
// it) and returns c: out_v = h_v.
func (c *TransformerConv) NoRootWeight() *TransformerConv {
	c.WSkip, c.BSkip, c.WBeta = nil, nil, nil
	return c
}

// Forward computes the layer on g; x may be sparse.
func (c *TransformerConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	xd := x
	if !g.IsSquare() {
		xd = x.IndexSelect(seq(g.NumNodes()))
	}
	q := xd.MatMul(c.WQ).Add(c.BQ)
	k := x.MatMul(c.WK).Add(c.BK)
	v := x.MatMul(c.WV).Add(c.BV)
	h := TransformerAttention(g, q, k, v, c.Heads, c.Dropout, c.rng, c.Training())
	if !c.Concat && c.Heads > 1 {
		h = h.Reshape(h.Size(0), c.Heads, c.Out).MeanAxis(1, false)
	}
	if c.WSkip == nil {
		return h
	}
	r := xd.MatMul(c.WSkip).Add(c.BSkip)
	if c.WBeta == nil {
		return h.Add(r)
	}
	beta := tensor.Concat(1, h, r, h.Sub(r)).MatMul(c.WBeta).Sigmoid()
	return h.Add(beta.Mul(r.Sub(h)))
}

// Params returns WQ, BQ, WK, BK, WV, BV, then WSkip and BSkip and WBeta
// when present.
func (c *TransformerConv) Params() []*tensor.Tensor {
	ps := []*tensor.Tensor{c.WQ, c.BQ, c.WK, c.BK, c.WV, c.BV}
	if c.WSkip != nil {
		ps = append(ps, c.WSkip, c.BSkip)
	}
	if c.WBeta != nil {
		ps = append(ps, c.WBeta)
	}
	return ps
}

func (c *TransformerConv) String() string {
	return fmt.Sprintf("TransformerConv(%d, %d, heads=%d, concat=%t, beta=%t, root=%t, dropout=%g)",
		c.WQ.Size(0), c.Out, c.Heads, c.Concat, c.WBeta != nil, c.WSkip != nil, c.Dropout)
}

// GraphTransformer is a two-layer node classifier of TransformerConv
// layers: dropout, TransformerConv with several concatenated heads, ELU,
// dropout, TransformerConv with one head averaged; feature and attention
// dropout Dropout (0.5 and the given attention dropout).
type GraphTransformer struct {
	gnnBase
	Conv1, Conv2 *TransformerConv
	Dropout      float32
}

// NewGraphTransformer returns a GraphTransformer with heads heads of
// hidden features in its first layer and attention dropout attnDropout.
func NewGraphTransformer(in, hidden, heads, out int, attnDropout float32) *GraphTransformer {
	m := &GraphTransformer{Conv1: NewTransformerConv(in, hidden, heads, true, false, attnDropout),
		Conv2: NewTransformerConv(hidden*heads, out, 1, false, false, attnDropout), Dropout: 0.5}
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *GraphTransformer) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h := m.Conv1.Forward(g, m.drop(x, m.Dropout)).ELU(1)
	return m.Conv2.Forward(g, m.drop(h, m.Dropout))
}

func (m *GraphTransformer) String() string { return m.describe("GraphTransformer") }
