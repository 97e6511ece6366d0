package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ChebConv is the Chebyshev spectral graph convolution of Defferrard et
// al. as PyG's ChebConv (normalization "sym"):
//
//	out = Σ_{k<K} T_k(L̃)·x·W_k + B,  L̃ = 2L/λmax − I,
//	T_0 = I, T_1 = L̃, T_k = 2·L̃·T_{k−1} − T_{k−2}
//
// with L = I − D^-1/2 A D^-1/2 the normalised Laplacian of the graph
// without self-loops (graph.ScaledLaplacian) and λmax = LambdaMax, 2 by
// default as in PyG, where L̃ = −D^-1/2 A D^-1/2. K counts the terms
// (PyG's K): K = 1 is a Linear layer. The sum is evaluated with
// Clenshaw's recurrence on the projected features y_k = x·W_k, so the
// K−1 graph products run at the output width and a sparse x costs K
// sparse products: b_k = y_k + 2·L̃·b_{k+1} − b_{k+2}, out = y_0 +
// L̃·b_1 − b_2 + B. The graph must be square.
type ChebConv struct {
	Mode
	// W holds the K weights [in, out], one per Chebyshev term.
	W []*tensor.Tensor
	B *tensor.Tensor
	// LambdaMax is the largest eigenvalue assumed for L (2).
	LambdaMax float64

	lapOf     *graph.Graph // the graph and λmax lap was computed for
	lapLambda float64
	lap       *graph.Graph
}

// NewChebConv returns a Chebyshev convolution with k terms (k ≥ 1),
// Glorot weights and a zero bias, as PyG's ChebConv.
func NewChebConv(in, out, k int) *ChebConv {
	if k < 1 {
		panic(fmt.Sprintf("nn: NewChebConv: k = %d, want k ≥ 1", k))
	}
	c := &ChebConv{B: param(tensor.Zeros(out)), LambdaMax: 2}
	for i := 0; i < k; i++ {
		c.W = append(c.W, newWeight(XavierUniform, in, out))
	}
	return c
}

// laplacian returns L̃ of g, kept for the last graph seen.
func (c *ChebConv) laplacian(g *graph.Graph) *graph.Graph {
	if c.lap == nil || c.lapOf != g || c.lapLambda != c.LambdaMax {
		c.lap, c.lapOf, c.lapLambda = g.ScaledLaplacian(c.LambdaMax), g, c.LambdaMax
	}
	return c.lap
}

// Forward computes the layer on g; x may be sparse.
func (c *ChebConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	mustSquare("ChebConv", g)
	k := len(c.W)
	if k == 1 {
		return x.MatMul(c.W[0]).Add(c.B)
	}
	lap := c.laplacian(g)
	var b1, b2 *tensor.Tensor // b_{k+1}, b_{k+2}
	for i := k - 1; i >= 1; i-- {
		b := x.MatMul(c.W[i])
		if b1 != nil {
			b = b.Add(SpMM(lap, b1).MulScalar(2))
		}
		if b2 != nil {
			b = b.Sub(b2)
		}
		b1, b2 = b, b1
	}
	out := x.MatMul(c.W[0]).Add(SpMM(lap, b1))
	if b2 != nil {
		out = out.Sub(b2)
	}
	return out.Add(c.B)
}

// Params returns W_0 … W_{K−1}, then B.
func (c *ChebConv) Params() []*tensor.Tensor {
	return append(append([]*tensor.Tensor(nil), c.W...), c.B)
}

func (c *ChebConv) String() string {
	s := c.W[0].Shape()
	return fmt.Sprintf("ChebConv(%d, %d, K=%d)", s[0], s[1], len(c.W))
}

// ChebNet is the two-layer Chebyshev network of Defferrard et al. on the
// recipe of Kipf and Welling's comparison: dropout, ChebConv, ReLU,
// dropout, ChebConv, dropout 0.5.
type ChebNet struct {
	gnnBase
	Conv1, Conv2 *ChebConv
	Dropout      float32
}

// NewChebNet returns a ChebNet with k Chebyshev terms per layer.
func NewChebNet(in, hidden, out, k int) *ChebNet {
	m := &ChebNet{Conv1: NewChebConv(in, hidden, k), Conv2: NewChebConv(hidden, out, k), Dropout: 0.5}
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *ChebNet) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h := m.Conv1.Forward(g, m.drop(x, m.Dropout)).ReLU()
	return m.Conv2.Forward(g, m.drop(h, m.Dropout))
}

func (m *ChebNet) String() string { return m.describe("ChebNet") }
