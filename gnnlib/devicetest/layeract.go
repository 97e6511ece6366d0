package devicetest

import (
	"fmt"
	"runtime"
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
		subtest(t, fmt.Sprintf("%s,%d->%d,heads=%d,p=%g", c.kind, c.in, c.out, c.heads, c.p), func(t *testing.T) {
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
				return outAndGrads(t, fmt.Sprintf("fused %v", fused), h, x, layer.Params())
			}
			two, one := run(false), run(true)
			compareRuns(t, one, two, func(i int) string {
				if i == 0 {
					return "the activation"
				}
				return fmt.Sprintf("gradient %d (x, then the parameters)", i-1)
			}, "the activation fused", "the two ops'", tol)
		})
	}
}

// CheckActOutInAttention runs a hidden GATv2Conv on dev through
// nn.ForwardReLUDropout (the fused ReLU and dropout) with
// nn.ActOutInAttention off (the attention's backward pass given the
// attention output rebuilt in a copy) and on (given the activation, from
// which it rebuilds the output where it reads it), from the same weights
// and draws, and checks that the activations agree bit for bit and the
// gradients of x and of every parameter within tol (RelErr): one head and
// two, with attention dropout, and with a second use of the activation
// (h + h·h·w), whose gradient needs the activation unchanged after the
// layer's backward pass. g is a square graph.
func CheckActOutInAttention(t *testing.T, dev tensor.Backend, g *graph.Graph, tol float64) {
	defer func(on bool) { nn.ActOutInAttention = on }(nn.ActOutInAttention)
	n := g.NumNodes()
	for _, c := range []struct {
		heads, ch int
		p         float32
		residual  bool
	}{{1, 32, 0, false}, {2, 16, 0.3, false}, {2, 16, 0, true}} {
		subtest(t, fmt.Sprintf("heads=%d,p=%g,residual=%v", c.heads, c.p, c.residual), func(t *testing.T) {
			run := func(on bool) []*tensor.Tensor {
				nn.ActOutInAttention = on
				nn.Seed(17)
				conv := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
				drop := nn.NewDropout(0.4)
				nn.To(conv, dev)
				x := tensor.Randn(3, n, 24).To(dev).SetRequiresGrad(true)
				w := tensor.Randn(4, n, c.heads*c.ch).To(dev)
				h := nn.ForwardReLUDropout(conv, g, x, drop)
				loss := h.Mul(w)
				if c.residual {
					loss = loss.Add(h.Mul(h).Mul(w))
				}
				loss.Sum().Backward()
				return outAndGrads(t, fmt.Sprintf("nn.ActOutInAttention %v", on), h, x, conv.Params())
			}
			off, on := run(false), run(true)
			for i, v := range on[0].Data() {
				if v != off[0].Data()[i] {
					t.Fatalf("activation[%d] = %g with nn.ActOutInAttention, %g without", i, v, off[0].Data()[i])
				}
			}
			compareRuns(t, on[1:], off[1:], func(i int) string {
				return fmt.Sprintf("gradient %d (x, then the parameters)", i)
			}, "nn.ActOutInAttention", "the rebuilt copy's", tol)
		})
	}
}

// compareRuns checks that got and want, the values two runs of one check
// return (outAndGrads), agree within tol (RelErr), naming value i by
// name(i), got's run by how and want's by base.
func compareRuns(t *testing.T, got, want []*tensor.Tensor, name func(i int) string, how, base string, tol float64) {
	t.Helper()
	for i := range want {
		if e := RelErr(got[i], want[i]); e > tol {
			t.Errorf("%s with %s is %.3g from %s (tolerance %g)", name(i), how, e, base, tol)
		}
	}
}

// outAndGrads returns h and the gradients of x and of params, on the
// CPU, failing t (the run named by what) where one has no gradient.
func outAndGrads(t *testing.T, what string, h, x *tensor.Tensor, params []*tensor.Tensor) []*tensor.Tensor {
	out := []*tensor.Tensor{h.CPU()}
	for _, p := range append([]*tensor.Tensor{x}, params...) {
		if p.Grad() == nil {
			t.Fatalf("%s: no gradient for a %v parameter", what, p.Shape())
		}
		out = append(out, p.Grad().CPU())
	}
	return out
}

// CheckRecomputeGATv2Product trains a two-layer GATv2 model on dev (the
// first layer over features that need no gradient, through
// nn.ForwardReLUDropout) with nn.RecomputeGATv2Product off and on (every
// product made again: nn.RecomputeGATv2ProductMin 0), from the same
// weights and draws, and checks that the outputs agree bit for bit and
// the gradients of every parameter within tol (RelErr): one head, and two
// with attention dropout. On a device that reports its memory it logs how
// much the forward pass added to the bytes in use (once collected), and
// on a Fake checks that making the product again added at least the first
// layer's product (N x 2HC, two bytes a value or more) less. g is a
// square graph.
func CheckRecomputeGATv2Product(t *testing.T, dev tensor.Backend, g *graph.Graph, tol float64) {
	defer func(on bool, min int64) {
		nn.RecomputeGATv2Product, nn.RecomputeGATv2ProductMin = on, min
	}(nn.RecomputeGATv2Product, nn.RecomputeGATv2ProductMin)
	nn.RecomputeGATv2ProductMin = 0
	n := g.NumNodes()
	for _, c := range []struct {
		heads, ch int
		p         float32
	}{{1, 32, 0}, {2, 16, 0.3}} {
		subtest(t, fmt.Sprintf("heads=%d,p=%g", c.heads, c.p), func(t *testing.T) {
			run := func(on bool) ([]*tensor.Tensor, int64) {
				nn.RecomputeGATv2Product = on
				nn.Seed(23)
				first := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
				second := nn.NewGATv2Conv(c.heads*c.ch, 8, 1, true, 0)
				drop := nn.NewDropout(0.4)
				nn.To(first, dev)
				nn.To(second, dev)
				x := tensor.Randn(3, n, 24).To(dev)
				w := tensor.Randn(4, n, 8).To(dev)
				m, _ := dev.(tensor.MemoryReporter)
				inUse := func() int64 {
					if m == nil {
						return -1
					}
					runtime.GC()
					s, err := m.Memory()
					if err != nil {
						return -1
					}
					return s.InUse
				}
				before := inUse()
				out := second.Forward(g, nn.ForwardReLUDropout(first, g, x, drop))
				grew := inUse() - before
				out.Mul(w).Sum().Backward()
				res := []*tensor.Tensor{out.CPU()}
				for _, p := range append(first.Params(), second.Params()...) {
					if p.Grad() == nil {
						t.Fatalf("nn.RecomputeGATv2Product %v: no gradient for a %v parameter", on, p.Shape())
					}
					res = append(res, p.Grad().CPU())
				}
				return res, grew
			}
			kept, _ := run(false) // the first run uploads the graph
			again, againUse := run(true)
			_, keptUse := run(false)
			for i, v := range again[0].Data() {
				if v != kept[0].Data()[i] {
					t.Fatalf("output[%d] = %g with nn.RecomputeGATv2Product, %g without", i, v, kept[0].Data()[i])
				}
			}
			compareRuns(t, again[1:], kept[1:], func(i int) string {
				return fmt.Sprintf("gradient of parameter %d", i)
			}, "nn.RecomputeGATv2Product", "the kept product's", tol)
			if m, ok := dev.(tensor.MemoryReporter); !ok || m == nil {
				return
			}
			t.Logf("the forward pass took %d bytes more in use keeping the product, %d making it again", keptUse, againUse)
			if _, fake := dev.(*Fake); fake {
				if product := int64(n) * int64(2*c.heads*c.ch) * 2; keptUse-againUse < product {
					t.Errorf("making the product again left %d bytes fewer in use after the forward pass, want at least %d", keptUse-againUse, product)
				}
			}
		})
	}
}
