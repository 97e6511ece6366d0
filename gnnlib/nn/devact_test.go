package nn_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestReLUDropoutFused checks nn.ReLUDropout against the two ops it fuses,
// d.Forward(x.ReLU()) with a Dropout seeded alike, on the CPU and on a
// device with ReLUDropoutOps (devicetest.Fake): the same outputs and input
// gradients bit for bit, and on the device one recorded op instead of two.
func TestReLUDropoutFused(t *testing.T) {
	for _, dev := range []tensor.Backend{nil, &devicetest.Fake{}} {
		name := "cpu"
		if dev != nil {
			name = dev.String()
		}
		t.Run(name, func(t *testing.T) {
			x := tensor.Randn(1, 40, 24)
			w := tensor.Rand(2, 40, 24)
			run := func(fused bool) (out, grad []float32, ops []string) {
				nn.Seed(5)
				d := nn.NewDropout(0.4)
				xi := x.Clone().To(dev).SetRequiresGrad(true)
				restore := backend.SetOpHook(func(e tensor.OpEvent) {
					if !e.Backward {
						ops = append(ops, e.Name)
					}
				})
				var y *tensor.Tensor
				if fused {
					y = nn.ReLUDropout(xi, d)
				} else {
					y = d.Forward(xi.ReLU())
				}
				restore()
				y.Mul(w.To(dev)).Sum().Backward()
				return y.CPU().Data(), xi.Grad().CPU().Data(), ops
			}
			y1, g1, ops1 := run(true)
			y2, g2, ops2 := run(false)
			if !slices.Equal(y1, y2) {
				t.Errorf("ReLUDropout output differs from Dropout(ReLU(x))")
			}
			if !slices.Equal(g1, g2) {
				t.Errorf("ReLUDropout input gradient differs from Dropout(ReLU(x))'s")
			}
			zeros := 0
			for _, v := range y1 {
				if v == 0 {
					zeros++
				}
			}
			if zeros < len(y1)/2 || zeros == len(y1) {
				t.Errorf("ReLUDropout(p=0.4) zeroed %d of %d outputs: want about 70%%", zeros, len(y1))
			}
			if dev != nil && (!slices.Equal(ops1, []string{"ReLUDropout"}) || !slices.Contains(ops2, "Dropout")) {
				t.Errorf("recorded ops: fused %v, unfused %v; want [ReLUDropout], and ReLU and Dropout", ops1, ops2)
			}
		})
	}
}

// TestBiasSumHandOff checks that, with nn.HandOffBiasGrad on, a GCNConv
// (both orders) or GATv2Conv followed by nn.ReLUDropout gets its bias
// gradient from ReLUDropout's backward pass (one fused pass,
// ReLUDropoutGradColSum, and no ColSum of its own) and that it is the
// column sums of the output's gradient; and that when another op reads
// the output too (a residual), the layer sums the columns of the whole
// gradient itself.
func TestBiasSumHandOff(t *testing.T) {
	defer func(rebuild, agg, hand bool) {
		nn.RebuildGATv2Output, nn.GCNAggregateFirst, nn.HandOffBiasGrad = rebuild, agg, hand
	}(nn.RebuildGATv2Output, nn.GCNAggregateFirst, nn.HandOffBiasGrad)
	nn.RebuildGATv2Output, nn.GCNAggregateFirst, nn.HandOffBiasGrad = true, true, true
	g := memGraph(t, 200)
	const p = 0.5
	for _, kind := range []string{"gcn", "gcn_widening", "gatv2"} {
		for _, residual := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/residual=%v", kind, residual), func(t *testing.T) {
				dev := &devicetest.Fake{}
				var layer nn.GraphLayer
				var b *tensor.Tensor
				in := 16
				switch kind {
				case "gcn":
					c := nn.NewGCNConv(16, 16)
					layer, b = c, c.B
				case "gcn_widening":
					c := nn.NewGCNConv(8, 16)
					layer, b, in = c, c.B, 8
				case "gatv2":
					c := nn.NewGATv2Conv(16, 16, 1, true, 0)
					layer, b = c, c.B
				}
				nn.To(layer, dev)
				x := tensor.Randn(1, 200, in).To(dev)
				w, w2 := tensor.Randn(2, 200, 16), tensor.Randn(3, 200, 16)
				y := layer.Forward(g, x)
				h := nn.ReLUDropout(y, nn.NewDropout(p))
				loss := h.Mul(w.To(dev)).Sum()
				if residual {
					loss = loss.Add(y.Mul(w2.To(dev)).Sum())
				}
				loss.Backward()
				// dL/dy = w/(1-p) where h is not zero (+ w2), summed
				// over the rows.
				hv, wv, w2v := h.CPU().Data(), w.Data(), w2.Data()
				want := make([]float64, 16)
				for i, v := range hv {
					gy := 0.0
					if v != 0 {
						gy = float64(wv[i]) / (1 - p)
					}
					if residual {
						gy += float64(w2v[i])
					}
					want[i%16] += gy
				}
				got := b.Grad().CPU().Data()
				for c := range want {
					if math.Abs(float64(got[c])-want[c]) > 1e-4*math.Max(1, math.Abs(want[c])) {
						t.Fatalf("bias gradient[%d] = %g, want %g", c, got[c], want[c])
					}
				}
				fused, own := dev.Calls("ReLUDropoutGradColSum"), dev.Calls("ColSum")
				wantOwn := 0
				if residual {
					wantOwn = 1
				}
				if fused != 1 || own != wantOwn {
					t.Errorf("ReLUDropoutGradColSum ran %d times and ColSum %d, want 1 and %d", fused, own, wantOwn)
				}
			})
		}
	}
}
