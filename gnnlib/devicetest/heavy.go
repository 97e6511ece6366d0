package devicetest

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// StarGraph is a power-law extreme of n nodes: m random edges (seed 11)
// and a self-loop per node, every node an in-neighbour of node 0 (an
// in-degree of n) and node 1 an in-neighbour of every node (an out-degree
// of n). At n = 16000 both rows are longer than a 15k-degree hub of an
// R-MAT graph at scale 17: what degree-aware kernels split over edge tiles
// in the forward pass and in the backward pass over the transpose.
func StarGraph(tb testing.TB, n, m int) *graph.Graph {
	tb.Helper()
	g, err := graph.ErdosRenyiM(n, m, 11)
	if err != nil {
		tb.Fatal(err)
	}
	src, dst := g.Edges()
	for u := range n {
		src, dst = append(src, u, 1), append(dst, 0, u)
	}
	if g, err = graph.FromEdges(n, src, dst); err != nil {
		tb.Fatal(err)
	}
	return g.AddSelfLoops()
}

// HeavyCases are the attention layers and ops on StarGraph(16000, 48000),
// outputs and gradients against the CPU: GATv2Conv (one head of 64, four
// of 16, one of 7 padded), GATConv, TransformerConv (all gradients but
// the key bias's) and the three fused attention ops on their own.
func HeavyCases(tb testing.TB) []Case {
	const n, in = 16000, 16
	g := StarGraph(tb, n, 48000)
	on := func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.GraphLayer).Forward(g, x[0]) }
	type T = *tensor.Tensor
	return []Case{
		Layer("GATv2Conv 1x64", func() nn.Module { return nn.NewGATv2Conv(in, 64, 1, true, 0) }, on, randn(1, n, in)),
		Layer("GATv2Conv 4x16", func() nn.Module { return nn.NewGATv2Conv(in, 16, 4, true, 0) }, on, randn(2, n, in)),
		Layer("GATv2Conv 1x7", func() nn.Module { return nn.NewGATv2Conv(in, 7, 1, true, 0) }, on, randn(3, n, in)),
		Layer("GATConv 2x40", func() nn.Module { return nn.NewGATConv(in, 40, 2, true, 0) }, on, randn(4, n, in)),
		// The key bias's gradient is zero in exact arithmetic (the
		// softmax does not see a shift of every key's score): its
		// relative error is rounding noise (4.1e-4 on the H100, every
		// other gradient within tolerance), so it is left out.
		{"TransformerConv 2x32", []*tensor.Tensor{randn(5, n, in)}, func(x []*tensor.Tensor, dev tensor.Backend) (*tensor.Tensor, []*tensor.Tensor) {
			nn.Seed(3)
			m := nn.NewTransformerConv(in, 32, 2, true, false, 0)
			nn.To(m, dev)
			var ps []*tensor.Tensor
			for _, p := range m.Params() {
				if p != m.BK {
					ps = append(ps, p)
				}
			}
			return m.Forward(g, x[0]), ps
		}},
		Op("GATv2Attention 2x32", func(x []T) T { return nn.GATv2Attention(g, x[0], x[1], x[2], 2, 0.2, 0, nil, true) },
			randn(6, n, 64), randn(7, n, 64), randn(8, 2, 32)),
		Op("GATAttention 1x256", func(x []T) T { return nn.GATAttention(g, x[0], x[1], x[2], 1, 0.2, 0, nil, true) },
			randn(9, n, 256), randn(10, n, 1), randn(11, n, 1)),
		Op("TransformerAttention 4x8", func(x []T) T { return nn.TransformerAttention(g, x[0], x[1], x[2], 4, 0, nil, true) },
			randn(12, n, 32), randn(13, n, 32), randn(14, n, 32)),
	}
}

// CheckHeavyRows runs HeavyCases on dev against the CPU, within tol but
// no tighter than 2e-4: a parameter's gradient sums over 16k-edge rows in
// float32 in an order the CPU does not share.
func CheckHeavyRows(t *testing.T, dev tensor.Backend, tol float64) {
	CheckOps(t, dev, HeavyCases(t), max(tol, 2e-4))
}
