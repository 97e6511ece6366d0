package devicetest

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CheckForwardReLUDropout runs hidden layers on dev through
// nn.ForwardReLUDropout with nn.FuseLayerActivation on (the layer's fused
// op applies the bias, ReLU and dropout) and off (the layer, then
// nn.ReLUDropout), from the same weights and dropout draws, and checks
// that the activations and the gradients of x and of every parameter
// agree within tol (RelErr): GCNConv narrowing (the activation in the
// propagation's pass) and widening (aggregate-first: over Z·W), and
// GATv2Conv with one head and two concatenated (over the attention
// output, rebuilt for its backward pass), with attention dropout. A
// second use of the activation (h + h·w) checks that its gradient is
// summed before the layer reads it. g is a square graph.
func CheckForwardReLUDropout(t *testing.T, dev tensor.Backend, g *graph.Graph, tol float64) {
	defer func(on bool) { nn.FuseLayerActivation = on }(nn.FuseLayerActivation)
	n := g.NumNodes()
	for _, c := range []struct {
		kind    string
		in, out int
		heads   int
		p       float32
	}{{"gcn", 32, 16, 1, 0}, {"gcn", 16, 32, 1, 0}, {"gatv2", 24, 16, 1, 0}, {"gatv2", 24, 16, 2, 0.3}} {
		t.Run(fmt.Sprintf("%s,%d->%d,heads=%d,p=%g", c.kind, c.in, c.out, c.heads, c.p), func(t *testing.T) {
			run := func(fused bool) []*tensor.Tensor {
				nn.FuseLayerActivation = fused
				nn.Seed(11)
				var layer nn.GraphLayer
				switch c.kind {
				case "gcn":
					layer = nn.NewGCNConv(c.in, c.out)
				case "gatv2":
					layer = nn.NewGATv2Conv(c.in, c.out/c.heads, c.heads, true, c.p)
				}
				drop := nn.NewDropout(0.4)
				nn.To(layer, dev)
				x := tensor.Randn(3, n, c.in).To(dev).SetRequiresGrad(true)
				w := tensor.Randn(4, n, c.out).To(dev)
				h := nn.ForwardReLUDropout(layer, g, x, drop)
				h.Add(h.Mul(w)).Sum().Backward()
				out := []*tensor.Tensor{h.CPU()}
				for _, p := range append([]*tensor.Tensor{x}, layer.Params()...) {
					if p.Grad() == nil {
						t.Fatalf("fused %v: no gradient for a %v parameter", fused, p.Shape())
					}
					out = append(out, p.Grad().CPU())
				}
				return out
			}
			two, one := run(false), run(true)
			for i := range two {
				what := "the activation"
				if i > 0 {
					what = fmt.Sprintf("gradient %d (x, then the parameters)", i-1)
				}
				if e := RelErr(one[i], two[i]); e > tol {
					t.Errorf("%s with the activation fused is %.3g from the two ops' (tolerance %g)", what, e, tol)
				}
			}
		})
	}
}
