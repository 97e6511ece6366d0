package devicetest

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CheckGATv2OneProduct runs a GATv2Conv layer on dev with
// nn.GATv2OneProduct on (one product x·[W_src W_dst], the attention
// reading its halves, nn.GATv2PairOps) and off (two products), from the
// same weights and dropout draws, and checks that the outputs and the
// gradients of x and of every parameter agree within tol (RelErr: the
// one product sums x's gradient over both halves at once, so the
// rounding differs): heads the kernels take as they are and ones they
// pad (7 channels, which a device may run as two products anyway),
// attention dropout, nn.ReLUDropout or a ReLU and a Dropout layer after
// the layer, and the output read by another op as well (h + y). g is a
// square graph of n nodes.
func CheckGATv2OneProduct(t *testing.T, dev tensor.Backend, g *graph.Graph, tol float64) {
	defer func(on bool) { nn.GATv2OneProduct = on }(nn.GATv2OneProduct)
	n := g.NumNodes()
	for _, c := range []struct {
		heads, ch int
		p         float32
		fused     bool
		residual  bool
	}{{1, 16, 0, true, false}, {1, 16, 0, false, false}, {2, 7, 0, true, false}, {2, 16, 0.3, true, false}, {2, 16, 0.3, true, true}, {4, 8, 0.2, false, true}} {
		subtest(t, fmt.Sprintf("%dx%d,p=%g,ReLUDropout=%v,residual=%v", c.heads, c.ch, c.p, c.fused, c.residual), func(t *testing.T) {
			run := func(one bool) []*tensor.Tensor {
				nn.GATv2OneProduct = one
				nn.Seed(9)
				conv := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
				drop := nn.NewDropout(0.4)
				nn.To(conv, dev)
				x := tensor.Randn(3, n, 24).To(dev).SetRequiresGrad(true)
				w := tensor.Randn(4, n, c.heads*c.ch).To(dev)
				y := conv.Forward(g, x)
				var h *tensor.Tensor
				if c.fused {
					h = nn.ReLUDropout(y, drop)
				} else {
					h = drop.Forward(y.ReLU())
				}
				if c.residual {
					h = h.Add(y)
				}
				h.Mul(w).Sum().Backward()
				return outAndGrads(t, fmt.Sprintf("one product %v", one), h, x, conv.Params())
			}
			two, one := run(false), run(true)
			names := []string{"output", "x", "W_src", "W_dst", "att", "bias"}
			compareRuns(t, one, two, func(i int) string { return names[i] }, "one product", "two products'", tol)
		})
	}
}
