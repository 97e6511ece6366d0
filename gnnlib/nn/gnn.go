package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GCNConv is the graph convolution of Kipf and Welling:
// out = Â·(x·W) + B with Â = D^-1/2 (A+I) D^-1/2. Â is the graph's cached
// GCNNorm, computed once per *graph.Graph, not per epoch. x·W is taken
// first, so a sparse x (bag-of-words features) costs a sparse product and
// the propagation runs on the narrow result. On a device the layer is one
// recorded op that frees x·W and Â·x·W as soon as they are spent.
type GCNConv struct {
	Mode
	W, B *tensor.Tensor
}

// NewGCNConv returns a GCN layer with Glorot weights and a zero bias, as
// PyG's GCNConv.
func NewGCNConv(in, out int) *GCNConv {
	return &GCNConv{W: newWeight(XavierUniform, in, out), B: param(tensor.Zeros(out))}
}

// Forward propagates x [N, in] (dense or sparse) over g.
func (c *GCNConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	if onDevice(x, c.W, c.B) {
		return deviceGCNConv(c, g, x, nil)
	}
	return spmm("GCNPropagate", g.GCNNorm(), g.GCNNorm().Weights, x.MatMul(c.W)).Add(c.B)
}

// Params returns W and B.
func (c *GCNConv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.W, c.B} }

func (c *GCNConv) String() string {
	s := c.W.Shape()
	return fmt.Sprintf("GCNConv(%d, %d)", s[0], s[1])
}

// SAGEConv is GraphSAGE's layer (Hamilton et al.) as in PyG:
// out = agg(x)·WNeigh + B + x·WRoot, with agg the mean or the element-wise
// max over in-neighbours. For the mean, the product and the aggregation
// run in the cheaper order (the mean is linear): see SAGEAggregateFirst.
type SAGEConv struct {
	Mode
	WNeigh, B, WRoot *tensor.Tensor
	// Aggr is "mean" or "max".
	Aggr string
}

// NewSAGEConv returns a GraphSAGE layer; aggr is "mean" or "max". Weights
// are initialised as PyTorch's Linear.
func NewSAGEConv(in, out int, aggr string) *SAGEConv {
	if aggr != "mean" && aggr != "max" {
		panic(fmt.Sprintf("nn: NewSAGEConv: aggregation %q: want \"mean\" or \"max\"", aggr))
	}
	c := &SAGEConv{WNeigh: newWeight(LeCunUniform, in, out), B: param(tensor.Zeros(out)), Aggr: aggr}
	uniformWithFan(c.B, in)
	c.WRoot = newWeight(LeCunUniform, in, out)
	return c
}

// Forward computes the layer on g. x may be sparse for the mean
// aggregator; the max aggregator needs dense rows and densifies a sparse x.
// For a sampled block (a rectangular graph) the first NumNodes rows of x
// are the destinations, as graph.Block lays them out.
func (c *SAGEConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	if c.sageFusedOn(x) {
		return deviceSAGEConv(c, g, x, nil) // devsage.go
	}
	var neigh *tensor.Tensor
	if c.Aggr == "max" {
		xd := x
		if xd.IsSparse() {
			xd = xd.ToDense()
		}
		neigh = MaxAggregate(g, xd).MatMul(c.WNeigh)
	} else {
		neigh = c.meanNeigh(g, x)
	}
	sum := neigh.Add(c.B)
	root := blockRoots(g, x).MatMul(c.WRoot)
	out := sum.Add(root)
	if SAGEFreeSums && out.IsOnDevice() {
		// Add's backward pass reads neither operand: the three terms'
		// device memory goes back now, not when the collector finalises
		// them.
		freeStorage(neigh)
		freeStorage(sum)
		freeStorage(root)
	}
	return out
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Params returns WNeigh, B and WRoot.
func (c *SAGEConv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.WNeigh, c.B, c.WRoot} }

func (c *SAGEConv) String() string {
	s := c.WNeigh.Shape()
	return fmt.Sprintf("SAGEConv(%d, %d, aggr=%s)", s[0], s[1], c.Aggr)
}

// GATConv is the graph attention layer of Veličković et al. as in PyG:
// h = x·W split into Heads heads of Out features, attention logits
// LeakyReLU(<AttSrc_k, h_u,k> + <AttDst_k, h_v,k>) with slope
// NegativeSlope, softmax over each node's in-edges (self-loops added),
// Dropout on the attention weights while training, and the heads
// concatenated ([N, Heads·Out]) or averaged ([N, Out]); then the bias. The
// attention runs as one fused op (GATAttention) that stores only per-edge
// scalars.
type GATConv struct {
	Mode
	W, AttSrc, AttDst, B *tensor.Tensor
	Heads, Out           int
	Concat               bool
	NegativeSlope        float32
	Dropout              float32
	rng                  *tensor.RNG
}

// NewGATConv returns a GAT layer with heads heads of out features each,
// concatenated if concat (else averaged), and attention dropout dropout.
// Weights and attention vectors are Glorot-initialised, the bias zero.
func NewGATConv(in, out, heads int, concat bool, dropout float32) *GATConv {
	c := &GATConv{W: newWeight(XavierUniform, in, heads*out), Heads: heads, Out: out, Concat: concat,
		NegativeSlope: 0.2, Dropout: dropout, rng: newLayerRNG()}
	// PyG initialises the [1, heads, out] attention vectors with fans
	// (heads, out).
	c.AttSrc = newWeight(XavierUniform, heads, out)
	c.AttDst = newWeight(XavierUniform, heads, out)
	if concat {
		c.B = param(tensor.Zeros(heads * out))
	} else {
		c.B = param(tensor.Zeros(out))
	}
	return c
}

// headLogits returns Σ_j h[n,k,j]·att[k,j] as [N, heads].
func headLogits(h, att *tensor.Tensor, heads, f int) *tensor.Tensor {
	if h.IsOnDevice() {
		return deviceHeadDot(h, att, heads)
	}
	n := h.Size(0)
	return h.Reshape(n, heads, f).Mul(att.Reshape(1, heads, f)).SumAxis(2, false)
}

// Forward computes the layer on g, with self-loops added where missing
// (on a sampled block, destination v's loop from its own source row v).
func (c *GATConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	g = withSelfLoops(g)
	h := x.MatMul(c.W)
	aSrc := headLogits(h, c.AttSrc, c.Heads, c.Out)
	hDst := h
	if !g.IsSquare() {
		hDst = h.IndexSelect(seq(g.NumNodes()))
	}
	aDst := headLogits(hDst, c.AttDst, c.Heads, c.Out)
	out := GATAttention(g, h, aSrc, aDst, c.Heads, c.NegativeSlope, c.Dropout, c.rng, c.Training())
	return finishHeads(out, c.B, c.Heads, c.Out, c.Concat)
}

// finishHeads averages the heads unless concat, then adds the bias.
func finishHeads(out, b *tensor.Tensor, heads, f int, concat bool) *tensor.Tensor {
	if !concat && heads > 1 {
		out = out.Reshape(out.Size(0), heads, f).MeanAxis(1, false)
	}
	return out.Add(b)
}

// Params returns W, AttSrc, AttDst and B.
func (c *GATConv) Params() []*tensor.Tensor {
	return []*tensor.Tensor{c.W, c.AttSrc, c.AttDst, c.B}
}

func (c *GATConv) String() string {
	return fmt.Sprintf("GATConv(%d, %d, heads=%d, concat=%t, dropout=%g)", c.W.Size(0), c.Out, c.Heads, c.Concat, c.Dropout)
}

// GATv2Conv is the dynamic attention layer of Brody et al. as in PyG:
// sources are projected by WSrc and targets by WDst, the logit of u→v in
// head k is <Att_k, LeakyReLU(hs_u,k + hd_v,k)>, and the weighted sum runs
// over hs. The fused op (GATv2Attention) recomputes the per-edge sums in
// its backward pass instead of storing them. On a device, with the heads
// concatenated (or one) on a square graph, the layer is one recorded op
// that frees x·WSrc, x·WDst and the attention output once its backward
// pass has read them; the layer can then be backpropagated once.
type GATv2Conv struct {
	Mode
	WSrc, WDst, Att, B *tensor.Tensor
	Heads, Out         int
	Concat             bool
	NegativeSlope      float32
	Dropout            float32
	rng                *tensor.RNG
}

// NewGATv2Conv returns a GATv2 layer (see NewGATConv for the arguments).
func NewGATv2Conv(in, out, heads int, concat bool, dropout float32) *GATv2Conv {
	c := &GATv2Conv{WSrc: newWeight(XavierUniform, in, heads*out), Heads: heads, Out: out, Concat: concat,
		NegativeSlope: 0.2, Dropout: dropout, rng: newLayerRNG()}
	c.WDst = newWeight(XavierUniform, in, heads*out)
	c.Att = newWeight(XavierUniform, heads, out)
	if concat {
		c.B = param(tensor.Zeros(heads * out))
	} else {
		c.B = param(tensor.Zeros(out))
	}
	return c
}

// Forward computes the layer on g, with self-loops added where missing
// (on a sampled block, destination v's loop from its own source row v).
func (c *GATv2Conv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	g = withSelfLoops(g)
	if c.gatv2Fused(g, x) {
		return deviceGATv2Conv(c, g, x)
	}
	hs := x.MatMul(c.WSrc)
	xd := x
	if !g.IsSquare() {
		xd = x.IndexSelect(seq(g.NumNodes()))
	}
	hd := xd.MatMul(c.WDst)
	out := GATv2Attention(g, hs, hd, c.Att, c.Heads, c.NegativeSlope, c.Dropout, c.rng, c.Training())
	return finishHeads(out, c.B, c.Heads, c.Out, c.Concat)
}

// Params returns WSrc, WDst, Att and B.
func (c *GATv2Conv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.WSrc, c.WDst, c.Att, c.B} }

func (c *GATv2Conv) String() string {
	return fmt.Sprintf("GATv2Conv(%d, %d, heads=%d, concat=%t, dropout=%g)", c.WSrc.Size(0), c.Out, c.Heads, c.Concat, c.Dropout)
}

// GINConv is the graph isomorphism layer of Xu et al.:
// out = MLP((1+ε)·x + Σ_{u→v} x_u). ε is a fixed number unless
// NewGINConv was asked to train it, in which case Eps is a parameter.
type GINConv struct {
	Mode
	MLP Layer
	// Eps is ε as a one-element tensor.
	Eps      *tensor.Tensor
	trainEps bool
}

// NewGINConv returns a GIN layer around mlp with initial ε eps, trained
// when trainEps is true.
func NewGINConv(mlp Layer, eps float32, trainEps bool) *GINConv {
	e := tensor.FromSlice([]float32{eps}, 1)
	if trainEps {
		param(e)
	}
	return &GINConv{MLP: mlp, Eps: e, trainEps: trainEps}
}

// Forward computes the layer on g; x must be dense.
func (c *GINConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	if x.IsSparse() {
		x = x.ToDense()
	}
	self := x
	if !g.IsSquare() {
		self = x.IndexSelect(seq(g.NumNodes()))
	}
	var h *tensor.Tensor
	if c.trainEps {
		h = SumAggregate(g, x).Add(self.Mul(c.Eps.AddScalar(1)))
	} else { // a fixed ε is a number, wherever x lives
		h = SumAggregate(g, x).Add(self.MulScalar(1 + c.Eps.Item()))
	}
	return c.MLP.Forward(h)
}

// Params returns the MLP's parameters, then ε if it is trained.
func (c *GINConv) Params() []*tensor.Tensor {
	ps := c.MLP.Params()
	if c.trainEps {
		ps = append(ps, c.Eps)
	}
	return ps
}

// SetTraining sets the mode of the layer and its MLP.
func (c *GINConv) SetTraining(on bool) {
	c.Mode.SetTraining(on)
	c.MLP.SetTraining(on)
}

// Train switches to training mode.
func (c *GINConv) Train() { c.SetTraining(true) }

// Eval switches to evaluation mode.
func (c *GINConv) Eval() { c.SetTraining(false) }

func (c *GINConv) String() string { return fmt.Sprintf("GINConv(%v, eps=%g)", c.MLP, c.Eps.Item()) }
