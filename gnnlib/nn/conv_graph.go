package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GraphConv is the graph convolution of Morris et al. ("Weisfeiler and
// Leman go neural", k-GNN with k = 1) as PyG's GraphConv with sum
// aggregation:
//
//	out_v = x_v·WRoot + (Σ_{u→v} w_uv·x_u)·WRel + B
//
// with w_uv the graph's edge weights (1 on an unweighted graph). x is
// projected before the sum (the sum is linear), so a sparse x costs one
// sparse product and the graph pass runs at the output width. It accepts
// a sampled block, whose first rows of x are the destinations.
type GraphConv struct {
	Mode
	WRel, B, WRoot *tensor.Tensor
}

// NewGraphConv returns a GraphConv layer with weights initialised as
// PyTorch's Linear (the bias belongs to the neighbour term, as in PyG).
func NewGraphConv(in, out int) *GraphConv {
	c := &GraphConv{WRel: newWeight(LeCunUniform, in, out), B: param(tensor.Zeros(out)), WRoot: newWeight(LeCunUniform, in, out)}
	uniformWithFan(c.B, in)
	return c
}

// Forward computes the layer on g; x may be sparse.
func (c *GraphConv) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	root := x
	if !g.IsSquare() {
		root = x.IndexSelect(seq(g.NumNodes()))
	}
	return SpMM(g, x.MatMul(c.WRel)).Add(c.B).Add(root.MatMul(c.WRoot))
}

// Params returns WRel, B and WRoot.
func (c *GraphConv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.WRel, c.B, c.WRoot} }

func (c *GraphConv) String() string {
	s := c.WRel.Shape()
	return fmt.Sprintf("GraphConv(%d, %d)", s[0], s[1])
}
