package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// mustSquare panics unless g is square: the propagation layers below
// repeat Â·x, which needs as many sources as destinations.
func mustSquare(op string, g *graph.Graph) {
	if !g.IsSquare() {
		panic(&tensor.ShapeError{Op: op, A: []int{g.NumSrc(), g.NumNodes()}, Msg: "needs a square graph (sources = destinations), not a sampled block"})
	}
}

// propagate returns the weighted sum aggregation of x over g's structure
// with per-edge weights w (as SpMM with w in place of g's weights).
func propagate(op string, g *graph.Graph, w []float32, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() { // the backend takes a graph's own weights
		gw, err := g.WithWeights(w)
		if err != nil {
			panic(err)
		}
		return SpMM(gw, x)
	}
	return spmm(op, g, w, x)
}

// APPNP is the propagation of Klicpera et al.'s "Predict then Propagate"
// (personalised PageRank, approximated by power iteration):
//
//	Z⁽⁰⁾ = H,  Z⁽ᵏ⁺¹⁾ = (1−α)·Â·Z⁽ᵏ⁾ + α·H,  out = Z⁽ᴷ⁾
//
// with Â = D^-1/2 (A+I) D^-1/2 (the graph's cached GCNNorm). It has no
// parameters: the prediction H comes from any model (NewAPPNPNet uses an
// MLP). While training, Dropout drops each edge weight of Â (self-loops
// included) independently in every step and scales the others by
// 1/(1−Dropout), as PyG's APPNP(dropout=…) does. Each step is one SpMM
// and one scaled add, so the layer is K graph ops. The graph must be
// square.
type APPNP struct {
	Mode
	NoParams
	K       int
	Alpha   float32
	Dropout float32
	rng     *tensor.RNG
}

// NewAPPNP returns the propagation with k steps, teleport probability
// alpha and edge dropout dropout (0 for none).
func NewAPPNP(k int, alpha, dropout float32) *APPNP {
	if k < 0 || !(alpha >= 0 && alpha <= 1) || !(dropout >= 0 && dropout < 1) {
		panic(fmt.Sprintf("nn: NewAPPNP(k=%d, alpha=%g, dropout=%g): want k ≥ 0, alpha in [0, 1] and dropout in [0, 1)", k, alpha, dropout))
	}
	return &APPNP{K: k, Alpha: alpha, Dropout: dropout, rng: newLayerRNG()}
}

// Forward propagates the dense rows h [N, F] over g.
func (a *APPNP) Forward(g *graph.Graph, h *tensor.Tensor) *tensor.Tensor {
	mustSquare("APPNP", g)
	if h.IsSparse() {
		h = h.ToDense()
	}
	norm := g.GCNNorm()
	z := h
	for k := 0; k < a.K; k++ {
		w := norm.Weights
		if a.Training() && a.Dropout > 0 {
			w = dropMask(len(w), a.Dropout, a.rng)
			for e, x := range norm.Weights {
				w[e] *= x
			}
		}
		z = propagate("APPNP", norm, w, z).MulScalar(1 - a.Alpha).Add(h.MulScalar(a.Alpha))
	}
	return z
}

func (a *APPNP) String() string {
	return fmt.Sprintf("APPNP(K=%d, alpha=%g, dropout=%g)", a.K, a.Alpha, a.Dropout)
}

// APPNPNet is the APPNP model of Klicpera et al.: an MLP (dropout,
// Linear, ReLU, dropout, Linear) predicts per node, then APPNP
// propagates the logits.
type APPNPNet struct {
	gnnBase
	Lin1, Lin2 *Linear
	Prop       *APPNP
	// Dropout is the probability applied to the input and hidden
	// features (0.5).
	Dropout float32
}

// NewAPPNPNet returns an APPNP model from in features through hidden
// units to out classes, propagating k steps with teleport alpha (the
// paper's Cora model: NewAPPNPNet(1433, 64, 7, 10, 0.1)); dropout 0.5 on
// the features and, as in the paper, on the edges of the propagation
// (set Prop.Dropout to change it).
func NewAPPNPNet(in, hidden, out, k int, alpha float32) *APPNPNet {
	m := &APPNPNet{Lin1: NewLinear(in, hidden), Lin2: NewLinear(hidden, out), Prop: NewAPPNP(k, alpha, 0.5), Dropout: 0.5}
	m.modules = []Module{m.Lin1, m.Lin2, m.Prop}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *APPNPNet) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h := m.Lin1.Forward(m.drop(x, m.Dropout)).ReLU()
	h = m.Lin2.Forward(m.drop(h, m.Dropout))
	return m.Prop.Forward(g, h)
}

func (m *APPNPNet) String() string { return m.describe("APPNPNet") }

// SGConv is the simplified graph convolution of Wu et al. (SGC):
//
//	out = Â^K·x·W + B
//
// with Â = D^-1/2 (A+I) D^-1/2, a GCN without its nonlinearities: K
// propagation steps and one linear map, so that SGConv(in, classes, K)
// alone is the SGC model. With Cached the propagated features Â^K·x are
// computed once, on the first call, and reused while Forward sees the
// same graph and the same x tensor: training is then one matrix product
// per epoch. The cache is taken as data, so no gradient reaches x
// through it (PyG's cached=True has the same contract: transductive use
// only). Without the cache, x·W is taken first and propagated, which is
// the same product in the cheaper order. The graph must be square.
type SGConv struct {
	Mode
	W, B   *tensor.Tensor
	K      int
	Cached bool

	cacheG  *graph.Graph
	cacheX  *tensor.Tensor
	cacheAX *tensor.Tensor
}

// NewSGConv returns an SGC layer with k hops, weights initialised as
// PyTorch's Linear, caching the propagated features when cached.
func NewSGConv(in, out, k int, cached bool) *SGConv {
	if k < 0 {
		panic(fmt.Sprintf("nn: NewSGConv: k = %d, want k ≥ 0", k))
	}
	c := &SGConv{W: newWeight(LeCunUniform, in, out), B: param(tensor.Zeros(out)), K: k, Cached: cached}
	uniformWithFan(c.B, in)
	return c
}

// propagateK returns Â^K·x.
func propagateK(g *graph.Graph, x *tensor.Tensor, k int) *tensor.Tensor {
	norm := g.GCNNorm()
	for i := 0; i < k; i++ {
		x = SpMM(norm, x)
	}
	return x
}

// Forward computes the layer on g; x may be sparse.
func (c *SGConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	mustSquare("SGConv", g)
	if !c.Cached {
		return propagateK(g, x.MatMul(c.W), c.K).Add(c.B)
	}
	if c.cacheAX == nil || c.cacheG != g || c.cacheX != x {
		xd := x
		if xd.IsSparse() {
			xd = xd.ToDense()
		}
		var ax *tensor.Tensor
		tensor.NoGrad(func() { ax = propagateK(g, xd.Detach(), c.K) })
		if x.IsSparse() && !ax.IsOnDevice() {
			// Â^K·x of bag-of-words features is still mostly zeros
			// (Cora, K = 2: 19% non-zero): kept sparse, each epoch is
			// one sparse product.
			ax = tensor.SparseFromDense(ax)
		}
		c.cacheG, c.cacheX, c.cacheAX = g, x, ax
	}
	return c.cacheAX.MatMul(c.W).Add(c.B)
}

// Params returns W and B.
func (c *SGConv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.W, c.B} }

func (c *SGConv) String() string {
	s := c.W.Shape()
	return fmt.Sprintf("SGConv(%d, %d, K=%d, cached=%t)", s[0], s[1], c.K, c.Cached)
}
