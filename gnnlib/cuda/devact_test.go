package cuda

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestReLUDropoutOnDevice checks the device's ReLUDropoutOps through
// nn.ReLUDropout against Dropout(ReLU(x)) with a Dropout seeded alike: the
// same output and input gradient bit for bit (bias_act's mask is the
// Dropout kernel's; act_backward's factor dropout_bwd's).
func TestReLUDropoutOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	x := tensor.Randn(1, 300, 48)
	w := tensor.Rand(2, 300, 48)
	run := func(fused bool) (out, grad []float32) {
		nn.Seed(5)
		drop := nn.NewDropout(0.3)
		xi := x.Clone().To(d).SetRequiresGrad(true)
		var y *tensor.Tensor
		if fused {
			y = nn.ReLUDropout(xi, drop)
		} else {
			y = drop.Forward(xi.ReLU())
		}
		y.Mul(w.To(d)).Sum().Backward()
		return y.CPU().Data(), xi.Grad().CPU().Data()
	}
	y1, g1 := run(true)
	y2, g2 := run(false)
	if !slices.Equal(y1, y2) || !slices.Equal(g1, g2) {
		t.Errorf("nn.ReLUDropout on the device differs from Dropout(ReLU(x)): outputs equal %t, gradients equal %t", slices.Equal(y1, y2), slices.Equal(g1, g2))
	}
}

var _ nn.GATv2PairOps = (*backend)(nil)

// TestGATv2ConvRebuildsOutput checks GATv2OutOps through gnnlib/nn: a
// GATv2Conv followed by nn.ReLUDropout frees its attention output and its
// backward pass rebuilds it from the activation (UnbiasAct), where with
// ReLU and a Dropout layer after it the layer keeps the output. The two
// must give the same forward values and gradients up to the rebuilt
// output's rounding, at a head width the kernels take as it is (16) and
// at one they pad (7 → 8), with attention dropout too, and with the
// output read by another op as well (h + y: the layer computes the
// attention output again instead of rebuilding it).
func TestGATv2ConvRebuildsOutput(t *testing.T) {
	defer func(on bool) { nn.RebuildGATv2Output = on }(nn.RebuildGATv2Output)
	nn.RebuildGATv2Output = true
	d := defaultOrSkip(t).be
	g := testGraph(t, 400, 3000, true)
	for _, c := range []struct {
		heads, ch int
		p         float32
		residual  bool
	}{{1, 16, 0, false}, {2, 7, 0, false}, {2, 16, 0.3, false}, {2, 16, 0.3, true}} {
		run := func(fused bool) (out []float32, grads [][]float32) {
			nn.Seed(9)
			conv := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
			drop := nn.NewDropout(0.4)
			nn.To(conv, d)
			x := tensor.Randn(3, 400, 24).To(d).SetRequiresGrad(true)
			w := tensor.Randn(4, 400, c.heads*c.ch).To(d)
			y := conv.Forward(g, x)
			var h *tensor.Tensor
			if fused {
				h = nn.ReLUDropout(y, drop)
			} else {
				h = drop.Forward(y.ReLU())
			}
			if c.residual {
				h = h.Add(y)
			}
			h.Mul(w).Sum().Backward()
			for _, p := range append([]*tensor.Tensor{x}, conv.Params()...) {
				grads = append(grads, p.Grad().CPU().Data())
			}
			return h.CPU().Data(), grads
		}
		h0, g0 := run(false)
		h1, g1 := run(true)
		if !slices.Equal(h0, h1) {
			t.Errorf("%+v: the activation differs between ReLUDropout and ReLU, Dropout", c)
		}
		for i := range g0 {
			want := make([]float64, len(g0[i]))
			for j, v := range g0[i] {
				want[j] = float64(v)
			}
			if e := relErr(g1[i], want); e > 1e-5 {
				t.Errorf("%+v: gradient %d with the output rebuilt is %.3g from the one with the output kept", c, i, e)
			}
		}
	}
}

var _ nn.ReLUDropoutColSumOps = (*backend)(nil)

// TestReLUDropoutGradColSum checks the fused pass that hands a layer its
// bias gradient (nn.ReLUDropoutColSumOps): its gradient equals
// ReLUDropoutGrad's bit for bit, and its column sums ColSum's of that
// gradient up to the order of the atomic additions.
func TestReLUDropoutGradColSum(t *testing.T) {
	d := defaultOrSkip(t).be
	const n, c, p = 3000, 256, 0.5
	x := tensor.Randn(1, n, c).To(d)
	g := tensor.Randn(2, n, c).To(d)
	ys, err := d.ReLUDropout(x, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	y := tbackend.FromStorage(ys, n, c)
	gx, sum, err := d.ReLUDropoutGradColSum(g, y, p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := d.ReLUDropoutGrad(g, y, p)
	if err != nil {
		t.Fatal(err)
	}
	wantSum, err := d.ColSum(tbackend.FromStorage(want, n, c))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tbackend.FromStorage(gx, n, c).CPU().Data(), tbackend.FromStorage(want, n, c).CPU().Data()) {
		t.Error("ReLUDropoutGradColSum's gradient differs from ReLUDropoutGrad's")
	}
	got, ws := tbackend.FromStorage(sum, c).CPU().Data(), tbackend.FromStorage(wantSum, c).CPU().Data()
	for i := range ws {
		if math.Abs(float64(got[i]-ws[i])) > 1e-4*math.Max(1, math.Abs(float64(ws[i]))) {
			t.Fatalf("column %d: sum %g, ColSum %g", i, got[i], ws[i])
		}
	}
}

// TestFastPathsOnDevice trains a widening GCN (16 features into 32
// hidden, so that GCNConv aggregates first) and GATv2 through gnnlib/nn
// with nn.ReLUDropout between the layers, with tensor.ReleaseSpentActivations,
// nn.GCNAggregateFirst and nn.HandOffBiasGrad off (the default) and on,
// from the same weights and dropout draws: the losses of every epoch and
// the trained weights must agree up to the other order's rounding.
func TestFastPathsOnDevice(t *testing.T) {
	d := defaultOrSkip(t)
	hg := testGraph(t, 600, 3600, false)
	const in, hidden, classes, epochs = 16, 32, 8, 8
	xs := tensor.Randn(11, hg.NumNodes(), in)
	labels := make([]int, hg.NumNodes())
	for i := range labels {
		labels[i] = i % classes
	}
	train := func(kind string, on bool) ([]float32, [][]float32) {
		defer func(r, a, h bool) {
			tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad = r, a, h
		}(tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad)
		tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad = on, on, on
		nn.Seed(26)
		m := newReplayNet(kind, in, hidden, classes)
		nn.To(m, d.Backend())
		x := xs.To(d.Backend())
		opt := nn.NewAdam(m.Params(), 0.01, 0)
		var losses []float32
		for range epochs {
			opt.ZeroGrad()
			loss := nn.CrossEntropy(m.Forward(hg, x), labels, nil)
			loss.Backward()
			opt.Step()
			losses = append(losses, loss.Item())
		}
		var ps [][]float32
		for _, p := range m.Params() {
			ps = append(ps, p.CPU().Data())
		}
		return losses, ps
	}
	for _, kind := range []string{"gcn", "gatv2"} {
		t.Run(kind, func(t *testing.T) {
			want, wantP := train(kind, false)
			got, gotP := train(kind, true)
			t.Logf("losses off %v, on %v", want, got)
			for i := range want {
				if diff := math.Abs(float64(got[i] - want[i])); diff > 1e-4*math.Max(1, math.Abs(float64(want[i]))) {
					t.Errorf("epoch %d: loss %v with the fast paths, %v without", i, got[i], want[i])
				}
			}
			for i := range wantP {
				for j := range wantP[i] {
					if diff := math.Abs(float64(gotP[i][j] - wantP[i][j])); diff > 1e-4 {
						t.Fatalf("parameter %d[%d] = %v with the fast paths, %v without", i, j, gotP[i][j], wantP[i][j])
					}
				}
			}
		})
	}
}

// TestGATv2OneProductOnDevice runs devicetest.CheckGATv2OneProduct on
// the device: GATv2Conv with one product x·[W_src W_dst]
// (GATv2AttentionPair reading its halves in place) against two
// products, in float32, and the same under Autocast(BFloat16), where
// the product is stored in bfloat16 and the attention widens it, and
// with BF16Attention, where the bfloat16 kernels read its halves in
// place (the bound allows bfloat16 rounding of x's gradient, summed in
// another order).
func TestGATv2OneProductOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	g := testGraph(t, 400, 3000, true)
	devicetest.CheckGATv2OneProduct(t, d, g, 1e-5)
	if !d.hasBF16() {
		return
	}
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	for _, kernels := range []bool{false, true} {
		BF16Attention = kernels
		t.Run(fmt.Sprintf("bfloat16,BF16Attention=%v", kernels), func(t *testing.T) {
			tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckGATv2OneProduct(t, d, g, 2e-2) })
		})
	}
}

var _ nn.BiasActOps = (*backend)(nil)

// TestForwardReLUDropoutOnDevice runs devicetest.CheckForwardReLUDropout
// on the device: the layers' fused bias, ReLU and dropout (SpMMBiasAct's
// epilogue, BiasAct in place, the GATv2 output rebuilt by UnbiasAct)
// against the layer and then nn.ReLUDropout, and the same under
// Autocast(BFloat16) for the GCN layers (GATv2Conv keeps the two ops
// there).
func TestForwardReLUDropoutOnDevice(t *testing.T) {
	checkBothFormats(t, testGraph(t, 400, 3000, true), devicetest.CheckForwardReLUDropout)
}

// checkBothFormats runs check on the device over g in float32 (tolerance
// 1e-5) and, where the device has bfloat16 kernels, in a "bfloat16"
// subtest under Autocast(BFloat16) (tolerance 2e-2).
func checkBothFormats(t *testing.T, g *graph.Graph, check func(*testing.T, tensor.Backend, *graph.Graph, float64)) {
	d := defaultOrSkip(t).be
	check(t, d, g, 1e-5)
	if d.hasBF16() {
		t.Run("bfloat16", func(t *testing.T) {
			tensor.Autocast(tensor.BFloat16, func() { check(t, d, g, 2e-2) })
		})
	}
}

// TestSAGEFusedOnDevice runs devicetest.CheckSAGEFused on the device:
// SAGEConv as one op (nn.SAGEFused: the root term's product added in
// place over x's first rows by MatMulPrefixAdd, its weight gradient by
// MatMulPrefix) against the composed ops, over sampled blocks and a
// square graph, both orders of the mean term; under Autocast(BFloat16)
// the layer runs the composed ops.
func TestSAGEFusedOnDevice(t *testing.T) {
	checkBothFormats(t, testGraph(t, 600, 6000, true), devicetest.CheckSAGEFused)
}
