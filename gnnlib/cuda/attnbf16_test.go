package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// bf16Pair is one bfloat16 operand on the device and the float32 tensor
// of the same (rounded) values, which the float32 kernels take as the
// reference input.
type bf16Pair struct {
	h *BF16Tensor
	f *Tensor
	v []float32 // the values, on the host
}

func newBF16Pair(t *testing.T, d *Device, r *rand.Rand, rows, cols int) bf16Pair {
	t.Helper()
	_, bits := bf16Operand(r, rows*cols)
	h, err := d.BF16FromHost(bits, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	v := bf16Floats(bits)
	return bf16Pair{h, mustT(t, d, v, rows, cols), v}
}

func (p bf16Pair) free() {
	p.h.Free()
	p.f.Free()
}

func bf16Floats(bits []uint16) []float32 {
	out := make([]float32, len(bits))
	for i, b := range bits {
		out[i] = half.BF16(b).Float32()
	}
	return out
}

// host16 copies a bfloat16 tensor back as float32 values.
func host16(t *testing.T, x *BF16Tensor) []float32 {
	t.Helper()
	bits, err := x.Host()
	if err != nil {
		t.Fatal(err)
	}
	return bf16Floats(bits)
}

// poisoned16 is a bfloat16 tensor filled with NaN, so that a value a
// kernel did not write shows.
func poisoned16(t *testing.T, d *Device, rows, cols int) *BF16Tensor {
	t.Helper()
	bits := make([]uint16, rows*cols)
	for i := range bits {
		bits[i] = 0x7fc0
	}
	x, err := d.BF16FromHost(bits, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// checkRounded compares a bfloat16 kernel's result got with the float32
// kernel's want, computed from the same (rounded) inputs. Both kernels do
// the same float32 arithmetic in the same order (the bfloat16 loads widen
// exactly), so a value stored in bfloat16 is want rounded once:
// |got − want| ≤ eps·|want| with eps = 2⁻⁸ (half an ulp of 8 significant
// bits; 0 for a value kept in float32), plus slack abs·max|want| for
// instruction scheduling and for sums whose order is not fixed (atomics).
func checkRounded(t *testing.T, what string, got, want []float32, eps, abs float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var scale float64
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	bad, worst, at := 0, 0.0, -1
	for i := range got {
		e := math.Abs(float64(got[i]) - float64(want[i]))
		tol := eps*math.Abs(float64(want[i])) + abs*scale + 1e-30
		if !(e <= tol) {
			bad++
			if r := e / tol; at < 0 || r > worst || math.IsNaN(r) {
				worst, at = r, i
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values beyond the bfloat16 bound; [%d] = %v, float32 kernel %v (%.3g× the bound)", what, bad, len(got), at, got[at], want[at], worst)
	}
}

// TestGATv2BF16 checks the bfloat16 GATv2 kernels (GATv2ForwardBF16,
// BackwardDstBF16, BackwardSrcBF16) and the float32 kernels run on the
// same bfloat16-rounded inputs against the float64 evaluation of the
// kernels' formula (gatv2Exact): the output, dxr and dxl within the
// bound of float32 rounding on the sums of absolute terms, plus 2⁻⁸ of
// the value for a bfloat16 result, the log-sum-exp within its float32
// bound; att's gradient equal between the two kernels up to float32
// summation order. Both
// backward passes read the bfloat16 kernel's rounded output, so that
// both recompute the same attention. The cases cover a power-law graph
// whose heavy rows (over 128 edges) split into edge tiles merged in
// float32, one lane group per row, both backward modes, attention
// dropout, masked head widths, several heads and, at 256, 512 and 1024
// channels, both lane layouts (BF16WideLoads), whose scores and dot
// products sum the channels in different orders, and the destination
// passes' variants (tune.GATv2Variant) and the kernels without the
// edge-index prefetch (tune.AttnPrefetch).
//
// An earlier version compared the two kernels' results within 2⁻⁸ of
// the value: the wide layout's x_r gradients were up to 7.8× past that
// on an H100, which TestGATv2LayoutsEmulated shows to be the different
// summation order amplified by the cancellation in ds = α·(k·g − D),
// not a fault of the layout.
func TestGATv2BF16(t *testing.T) {
	testGATv2BF16(t, []gatv2BF16Case{
		{1, 256, GATv2Save, 0, ""}, {1, 256, GATv2Recompute, 0, ""}, {1, 256, GATv2Save, 0.3, ""},
		{2, 64, GATv2Recompute, 0, ""}, {4, 16, GATv2Save, 0.1, ""}, {8, 8, GATv2Auto, 0, ""},
		{2, 12, GATv2Recompute, 0, ""}, {1, 40, GATv2Save, 0.2, ""}, {1, 300, GATv2Save, 0, ""}, {1, 1024, GATv2Recompute, 0, ""},
		{1, 512, GATv2Save, 0.1, ""},
		// 129 to 252 channels: the masked (32,2) kernels, whose destination
		// passes take gatv2_score_lp as the exact ones do.
		{1, 200, GATv2Save, 0, ""}, {1, 200, GATv2Recompute, 0, ""},
		// The variants gnnbench times.
		{1, 256, GATv2Save, 0.3, "lb3"}, {1, 256, GATv2Recompute, 0, "lb3"}, {2, 64, GATv2Save, 0.1, "lb4"}, {2, 64, GATv2Recompute, 0, "lb3"},
		{1, 256, GATv2Save, 0, "nopf"}, {2, 64, GATv2Recompute, 0, "nopf"}, {2, 12, GATv2Save, 0.1, "nopf"},
	})
}

// TestGATv2EdgeCoef is TestGATv2BF16 for the edge-coefficient backward
// (tune.GATv2EdgeCoef) at the exact widths it runs, float32 and
// bfloat16, both lane layouts: the output, dxr and dxl against the
// float64 evaluation within its rounding bound, and att's gradient,
// whose two shares (x_l's over the transpose, x_r's by destination) it
// sums apart, against the saved-edge backward's up to float32 summation
// order.
func TestGATv2EdgeCoef(t *testing.T) {
	testGATv2BF16(t, []gatv2BF16Case{
		{1, 256, GATv2Auto, 0, "edge"}, {1, 256, GATv2Auto, 0.3, "edge"}, {2, 64, GATv2Auto, 0, "edge"}, {4, 16, GATv2Auto, 0.1, "edge"},
		{8, 8, GATv2Auto, 0, "edge"}, {1, 512, GATv2Auto, 0.1, "edge"}, {1, 1024, GATv2Auto, 0, "edge"},
		// The variants of the forward and source passes (tune.GATv2EdgeVariant).
		{1, 256, GATv2Auto, 0.3, "edge-lb3"}, {1, 256, GATv2Auto, 0, "edge-lb3"},
		{1, 256, GATv2Auto, 0.3, "edge-e1"}, {1, 256, GATv2Auto, 0, "edge-e1"},
		{1, 256, GATv2Auto, 0.3, "edge-bal"}, {1, 256, GATv2Auto, 0, "edge-bal"}, {2, 256, GATv2Auto, 0.1, "edge-bal"},
		{1, 256, GATv2Auto, 0.3, "edge-balcp"}, {1, 256, GATv2Auto, 0, "edge-balcp"}, {2, 256, GATv2Auto, 0.1, "edge-balcp"},
	})
}

// gatv2BF16Case is one head shape, backward mode, attention dropout and
// kernel variant of testGATv2BF16.
type gatv2BF16Case struct {
	heads, c int
	mode     GATv2Backward
	p        float32
	// tune.GATv2Variant, "nopf": tune.AttnPrefetch off, "edge":
	// tune.GATv2EdgeCoef on, "edge-lb3", "edge-e1", "edge-bal",
	// "edge-balcp": and that
	// tune.GATv2EdgeVariant; "red" or a "-red" suffix: tune.GATv2DattBlock
	// on.
	variant string
}

func testGATv2BF16(t *testing.T, cases []gatv2BF16Case) {
	d := openOrSkip(t)
	defer func(old GATv2Backward) { GATv2BackwardMode = old }(GATv2BackwardMode)
	defer func() { SplitHeavyRows = true }()
	r := rand.New(rand.NewPCG(41, 42))
	starHost, rndHost := devicetest.StarGraph(t, 6000, 30000), testGraph(t, 3000, 30000, true)
	star, err := NewGraph(d, starHost)
	if err != nil {
		t.Fatal(err)
	}
	defer star.Free()
	if star.hv.n == 0 || star.thv.n == 0 {
		t.Fatalf("star graph without heavy rows in both directions: %v", star)
	}
	rnd, err := NewGraph(d, rndHost)
	if err != nil {
		t.Fatal(err)
	}
	defer rnd.Free()
	defer func(on bool, v string) { tune.GATv2EdgeCoef, tune.GATv2EdgeVariant = on, v }(tune.GATv2EdgeCoef, tune.GATv2EdgeVariant)
	defer func(on bool) { tune.AttnPrefetch = on }(tune.AttnPrefetch)
	defer func(v string) { tune.GATv2Variant = v }(tune.GATv2Variant)
	defer func(w bool) { BF16WideLoads = w }(BF16WideLoads)
	defer func(on bool) { tune.GATv2DattBlock = on }(tune.GATv2DattBlock)
	for _, gc := range []struct {
		name  string
		g     *Graph
		host  *graph.Graph
		split bool
	}{{"star/split", star, starHost, true}, {"star/rows", star, starHost, false}, {"random", rnd, rndHost, true}} {
		for _, c := range cases {
			variant, red := strings.CutSuffix(c.variant, "red")
			variant = strings.TrimSuffix(variant, "-")
			for _, wide := range []bool{false, true} {
				if gc.name == "star/rows" && c.c != 256 {
					continue
				}
				if k, _ := gatShape(c.c); wide && (!k.wide() || (variant != "" && !strings.HasPrefix(variant, "edge"))) {
					continue
				}
				name := fmt.Sprintf("%s/%dx%d/mode%d/p%g/wide%t", gc.name, c.heads, c.c, c.mode, c.p, wide)
				if c.variant != "" {
					name += "/" + c.variant
				}
				t.Run(name, func(t *testing.T) {
					// "nopf" is tune.AttnPrefetch off.
					edge := strings.HasPrefix(variant, "edge")
					tune.GATv2Variant, tune.AttnPrefetch, tune.GATv2EdgeCoef = variant, variant != "nopf", edge
					tune.GATv2DattBlock = red
					tune.GATv2EdgeVariant, _ = strings.CutPrefix(variant, "edge-")
					if !edge {
						tune.GATv2EdgeVariant = ""
					}
					if variant == "nopf" || edge {
						tune.GATv2Variant = ""
					}
					SplitHeavyRows = gc.split
					BF16WideLoads = wide
					GATv2BackwardMode = c.mode
					g, n, hc := gc.g, gc.g.n, c.heads*c.c
					xl, xr, dout := newBF16Pair(t, d, r, n, hc), newBF16Pair(t, d, r, n, hc), newBF16Pair(t, d, r, n, hc)
					defer xl.free()
					defer xr.free()
					defer dout.free()
					att := mustT(t, d, randSlice(r, hc), 1, hc)
					defer att.Free()
					drop := AttentionDropout{P: c.p, Seed: 7}
					ref, err := GATv2ForwardLR(g, xl.f, xr.f, att, c.heads, c.c, 0.2, drop)
					if err != nil {
						t.Fatal(err)
					}
					defer ref.Free()
					got, err := GATv2ForwardBF16(g, xl.h, xr.h, att, c.heads, c.c, 0.2, drop)
					if err != nil {
						t.Fatal(err)
					}
					defer got.Free()
					o := host16(t, got.Out16)
					x := newGATv2Exact(gc.host, c.heads, c.c, 0.2, drop, xl.v, xr.v, host(t, att), dout.v, o)
					checkExact(t, "float32 output", host(t, ref.Out), x.out, x.bout, 0)
					checkExact(t, "output", o, x.out, x.bout, half.EpsBF16)
					checkExact(t, "float32 log-sum-exp", host(t, ref.LSE), x.lse, x.blse, 0)
					checkExact(t, "log-sum-exp", host(t, got.LSE), x.lse, x.blse, 0)
					// The float32 backward pass reads the rounded output.
					ref.Out.Free()
					if ref.Out, err = got.Out16.Float32(); err != nil {
						t.Fatal(err)
					}
					k, _ := gatShape(c.c)
					if ref.SourceFirst() != (edge && hasEdgeCoef(k, false, false)) || got.SourceFirst() != (edge && hasEdgeCoef(k, true, wide)) {
						t.Fatalf("SourceFirst %t (bfloat16 %t) with variant %q", ref.SourceFirst(), got.SourceFirst(), c.variant)
					}
					refEdge := ref.SourceFirst() // false once its backward spent the scores
					dxr, datt, dxl := poisoned(t, d, n, hc), poisoned(t, d, 1, hc), poisoned(t, d, n, hc)
					defer freeAll([]*Tensor{dxr, datt, dxl})
					dxr16, dxl16, datt16 := poisoned16(t, d, n, hc), poisoned16(t, d, n, hc), poisoned(t, d, 1, hc)
					defer dxr16.Free()
					defer dxl16.Free()
					defer datt16.Free()
					// The edge-coefficient backward runs its source pass
					// first.
					for _, p := range []struct {
						first    bool
						src, dst func() error
					}{
						{ref.SourceFirst(), func() error { return ref.BackwardSrc(g, xl.f, xr.f, att, dout.f, dxl) },
							func() error { return ref.BackwardDst(g, xl.f, xr.f, att, dout.f, dxr, datt) }},
						{got.SourceFirst(), func() error { return got.BackwardSrcBF16(g, xl.h, xr.h, att, dout.h, dxl16) },
							func() error { return got.BackwardDstBF16(g, xl.h, xr.h, att, dout.h, dxr16, datt16) }},
					} {
						first, second := p.dst, p.src
						if p.first {
							first, second = p.src, p.dst
						}
						if err := first(); err != nil {
							t.Fatal(err)
						}
						if err := second(); err != nil {
							t.Fatal(err)
						}
					}
					if refEdge {
						// att's gradient against the saved-edge float32
						// backward: the edge-coefficient one sums x_l's
						// and x_r's shares apart (Σ ds·m ⊙ x_l + Σ ds·m ⊙
						// x_r instead of Σ ds·m ⊙ (x_l + x_r)).
						tune.GATv2EdgeCoef = false
						base, err := GATv2ForwardLR(g, xl.f, xr.f, att, c.heads, c.c, 0.2, drop)
						if err != nil {
							t.Fatal(err)
						}
						defer base.Free()
						base.Out.Free()
						if base.Out, err = got.Out16.Float32(); err != nil {
							t.Fatal(err)
						}
						bdxr, bdatt := poisoned(t, d, n, hc), poisoned(t, d, 1, hc)
						defer freeAll([]*Tensor{bdxr, bdatt})
						if err := base.BackwardDst(g, xl.f, xr.f, att, dout.f, bdxr, bdatt); err != nil {
							t.Fatal(err)
						}
						checkRounded(t, "edge-coefficient datt against the saved-edge one", host(t, datt), host(t, bdatt), 1e-4, 1e-4)
					}
					if !wide {
						// The 8-byte layout sums in the float32 kernel's
						// order: how many values are not the float32 value
						// rounded (the device log's record of the orders).
						logUnrounded(t, "dxr", host16(t, dxr16), host(t, dxr))
						logUnrounded(t, "output", o, host(t, ref.Out))
					}
					checkExact(t, "float32 dxr", host(t, dxr), x.dxr, x.bdxr, 0)
					checkExact(t, "dxr", host16(t, dxr16), x.dxr, x.bdxr, half.EpsBF16)
					checkExact(t, "float32 dxl", host(t, dxl), x.dxl, x.bdxl, 0)
					checkExact(t, "dxl", host16(t, dxl16), x.dxl, x.bdxl, half.EpsBF16)
					// att's gradient is summed with atomics in both.
					checkRounded(t, "datt", host(t, datt16), host(t, datt), 0, 1e-4)
				})
			}
		}
	}
}

// logUnrounded logs how many of a bfloat16 kernel's values got differ
// from the float32 kernel's want rounded to bfloat16, and the largest
// difference.
func logUnrounded(t *testing.T, what string, got, want []float32) {
	t.Helper()
	n, worst, at := 0, 0.0, 0
	for i := range got {
		if r := half.RoundBF16(want[i]); got[i] != r && !(got[i] != got[i] && r != r) {
			n++
			if e := math.Abs(float64(got[i]) - float64(want[i])); e > worst {
				worst, at = e, i
			}
		}
	}
	if n > 0 {
		t.Logf("%s: %d of %d values not the float32 kernel's rounded; largest difference %.3g at [%d] (%v against %v)", what, n, len(got), worst, at, got[at], want[at])
	}
}

// TestTransformerBF16 checks the bfloat16 Transformer kernels, separate
// (TransformerForwardBF16, BackwardBF16) and fused with the skip block
// (TransformerForwardFusedBF16, BackwardFusedBF16), against the float32
// kernels run on the same bfloat16-rounded inputs, as TestGATv2BF16 does:
// the output (with the skip term, added in float32 before the one
// rounding) and the gradients of q, k and the values within checkRounded's
// bound, the log-sum-exp equal up to float32 order; heavy rows split
// and not, dropout, masked widths, several heads, both lane layouts
// where the width has two (BF16WideLoads), and the kernels loading their
// edge indices in the step (tune.AttnPrefetch off).
func TestTransformerBF16(t *testing.T) {
	d := openOrSkip(t)
	defer func() { SplitHeavyRows = true }()
	r := rand.New(rand.NewPCG(43, 44))
	star, err := NewGraph(d, devicetest.StarGraph(t, 6000, 30000))
	if err != nil {
		t.Fatal(err)
	}
	defer star.Free()
	rnd, err := NewGraph(d, testGraph(t, 3000, 30000, true))
	if err != nil {
		t.Fatal(err)
	}
	defer rnd.Free()
	type tcase struct {
		heads, c int
		p        float32
		fused    bool
		nopf     bool // tune.AttnPrefetch off
	}
	cases := []tcase{{4, 64, 0, true, false}, {4, 64, 0, false, false}, {1, 256, 0.2, true, false}, {2, 32, 0.1, false, false},
		{2, 12, 0, true, false}, {1, 40, 0.3, false, false}, {1, 300, 0, false, false}, {1, 512, 0, false, false},
		{4, 64, 0.1, false, true}, {4, 64, 0, true, true}, {2, 12, 0, true, true}}
	defer func(w bool) { BF16WideLoads = w }(BF16WideLoads)
	defer func(on bool) { tune.AttnPrefetch = on }(tune.AttnPrefetch)
	for _, gc := range []struct {
		name  string
		g     *Graph
		split bool
	}{{"star/split", star, true}, {"star/rows", star, false}, {"random", rnd, true}} {
		for _, c := range cases {
			for _, wide := range []bool{false, true} {
				if gc.name == "star/rows" && c.c != 64 {
					continue
				}
				if k, _ := gatShape(c.c); wide && !k.wide() {
					continue
				}
				if wide && c.nopf {
					continue
				}
				t.Run(fmt.Sprintf("%s/%dx%d/p%g/fused%t/wide%t/prefetch%t", gc.name, c.heads, c.c, c.p, c.fused, wide, !c.nopf), func(t *testing.T) {
					tune.AttnPrefetch = !c.nopf
					SplitHeavyRows = gc.split
					BF16WideLoads = wide
					g, n, hc := gc.g, gc.g.n, c.heads*c.c
					scale := float32(1 / math.Sqrt(float64(c.c)))
					drop := AttentionDropout{P: c.p, Seed: 5}
					dout := newBF16Pair(t, d, r, n, hc)
					defer dout.free()
					var ref, got *Transformer
					var ins []bf16Pair
					var err error
					if c.fused {
						ins = []bf16Pair{newBF16Pair(t, d, r, n, 4*hc)}
						ref, err = TransformerForwardFused(g, ins[0].f, c.heads, c.c, scale, drop)
						if err == nil {
							got, err = TransformerForwardFusedBF16(g, ins[0].h, c.heads, c.c, scale, drop)
						}
					} else {
						ins = []bf16Pair{newBF16Pair(t, d, r, n, hc), newBF16Pair(t, d, r, n, hc), newBF16Pair(t, d, r, n, hc)}
						ref, err = TransformerForward(g, ins[0].f, ins[1].f, ins[2].f, c.heads, c.c, scale, drop)
						if err == nil {
							got, err = TransformerForwardBF16(g, ins[0].h, ins[1].h, ins[2].h, c.heads, c.c, scale, drop)
						}
					}
					for _, p := range ins {
						defer p.free()
					}
					if err != nil {
						t.Fatal(err)
					}
					defer ref.Free()
					defer got.Free()
					checkRounded(t, "output", host16(t, got.Out16), host(t, ref.Out), half.EpsBF16, 1e-6)
					checkRounded(t, "log-sum-exp", host(t, got.LSE), host(t, ref.LSE), 0, 1e-6)
					ref.Out.Free()
					if ref.Out, err = got.Out16.Float32(); err != nil {
						t.Fatal(err)
					}
					if c.fused {
						want, gr := poisoned(t, d, n, 3*hc), poisoned16(t, d, n, 3*hc)
						defer want.Free()
						defer gr.Free()
						if err := ref.BackwardFused(g, ins[0].f, dout.f, want); err != nil {
							t.Fatal(err)
						}
						if err := got.BackwardFusedBF16(g, ins[0].h, dout.h, gr); err != nil {
							t.Fatal(err)
						}
						checkRounded(t, "dqkv", host16(t, gr), host(t, want), half.EpsBF16, 1e-6)
						return
					}
					want := []*Tensor{poisoned(t, d, n, hc), poisoned(t, d, n, hc), poisoned(t, d, n, hc)}
					defer freeAll(want)
					gr := []*BF16Tensor{poisoned16(t, d, n, hc), poisoned16(t, d, n, hc), poisoned16(t, d, n, hc)}
					defer func() {
						for _, x := range gr {
							x.Free()
						}
					}()
					if err := ref.Backward(g, ins[0].f, ins[1].f, ins[2].f, dout.f, want[0], want[1], want[2]); err != nil {
						t.Fatal(err)
					}
					if err := got.BackwardBF16(g, ins[0].h, ins[1].h, ins[2].h, dout.h, gr[0], gr[1], gr[2]); err != nil {
						t.Fatal(err)
					}
					for i, name := range []string{"dq", "dk", "dv"} {
						checkRounded(t, name, host16(t, gr[i]), host(t, want[i]), half.EpsBF16, 1e-6)
					}
				})
			}
		}
	}
}

// TestGATBF16 checks the bfloat16 GAT (v1) kernels (GATForwardBF16,
// BackwardBF16) against the float32 kernels run on the same
// bfloat16-rounded h and dOut (the scores as, ad float32), as
// TestGATv2BF16 does: the output and dh within checkRounded's bound, the
// log-sum-exp and the scores' gradients (float32 sums) equal up to
// summation order; heavy rows split and not, dropout, the two lane
// widths (F ≤ 256 and the _w kernels), widths that are not multiples of
// 4, several heads.
func TestGATBF16(t *testing.T) {
	d := openOrSkip(t)
	defer func() { SplitHeavyRows = true }()
	r := rand.New(rand.NewPCG(45, 46))
	star, err := NewGraph(d, devicetest.StarGraph(t, 6000, 30000))
	if err != nil {
		t.Fatal(err)
	}
	defer star.Free()
	rnd, err := NewGraph(d, testGraph(t, 3000, 30000, true))
	if err != nil {
		t.Fatal(err)
	}
	defer rnd.Free()
	type tcase struct {
		heads, c int
		p        float32
	}
	cases := []tcase{{1, 64, 0}, {4, 16, 0.2}, {2, 7, 0}, {1, 300, 0.1}, {1, 1024, 0}}
	for _, gc := range []struct {
		name  string
		g     *Graph
		split bool
	}{{"star/split", star, true}, {"star/rows", star, false}, {"random", rnd, true}} {
		for _, c := range cases {
			if gc.name == "star/rows" && c.c != 64 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%dx%d/p%g", gc.name, c.heads, c.c, c.p), func(t *testing.T) {
				SplitHeavyRows = gc.split
				g, n, hc := gc.g, gc.g.n, c.heads*c.c
				drop := AttentionDropout{P: c.p, Seed: 9}
				h, dout := newBF16Pair(t, d, r, n, hc), newBF16Pair(t, d, r, n, hc)
				defer h.free()
				defer dout.free()
				as, ad := mustT(t, d, randSlice(r, n*c.heads), n, c.heads), mustT(t, d, randSlice(r, n*c.heads), n, c.heads)
				defer as.Free()
				defer ad.Free()
				ref, err := GATForward(g, h.f, as, ad, c.heads, 0.2, drop)
				if err != nil {
					t.Fatal(err)
				}
				defer ref.Free()
				got, err := GATForwardBF16(g, h.h, as, ad, c.heads, 0.2, drop)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Free()
				checkRounded(t, "output", host16(t, got.Out16), host(t, ref.Out), half.EpsBF16, 1e-6)
				checkRounded(t, "log-sum-exp", host(t, got.LSE), host(t, ref.LSE), 0, 1e-6)
				ref.Out.Free()
				if ref.Out, err = got.Out16.Float32(); err != nil {
					t.Fatal(err)
				}
				dh, das, dad := poisoned(t, d, n, hc), poisoned(t, d, n, c.heads), poisoned(t, d, n, c.heads)
				defer freeAll([]*Tensor{dh, das, dad})
				if err := ref.Backward(g, h.f, as, ad, dout.f, dh, das, dad); err != nil {
					t.Fatal(err)
				}
				dh16, das16, dad16 := poisoned16(t, d, n, hc), poisoned(t, d, n, c.heads), poisoned(t, d, n, c.heads)
				defer dh16.Free()
				defer freeAll([]*Tensor{das16, dad16})
				if err := got.BackwardBF16(g, h.h, as, ad, dout.h, dh16, das16, dad16); err != nil {
					t.Fatal(err)
				}
				checkRounded(t, "dh", host16(t, dh16), host(t, dh), half.EpsBF16, 1e-6)
				checkRounded(t, "das", host(t, das16), host(t, das), 0, 1e-6)
				checkRounded(t, "dad", host(t, dad16), host(t, dad), 0, 1e-6)
			})
		}
	}
}

// TestAttentionBF16Lifecycle runs the backend's GATv2Attention,
// TransformerAttention and GATAttention (what nn's GATv2Attention,
// TransformerAttention and GATAttention call) under Autocast(BFloat16),
// BF16Attention on, on a recording driver that says it is
// an sm_90 GPU (no values: the launches and the storage the ops hand
// back), with the features in bfloat16 storage (read as they are) and in
// float32 (read through rounded copies), dOut in both: an op launches
// only _bf16 attention kernels and widens nothing (no bf16_to_f32), hands
// back a bfloat16 output, bfloat16 gradients of its features in their
// shapes (GATv2's att and GAT's scores: float32, in theirs), and refuses
// a second backward pass. That is with BF16Attention on; off (the
// default), the ops launch no bfloat16 attention kernel.
func TestAttentionBF16Lifecycle(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	d, drv := openRecorder(t)
	d.desc = "record (sm_90, no GPU)"
	be := d.be
	const n, heads, c = 300, 2, 16
	g := testGraph(t, n, 3000, false)
	type back = func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error)
	for _, op := range []struct {
		name     string
		features int // the first inputs, N x heads·c
		last     [2]int
		run      func(xs []*tensor.Tensor) (tensor.Storage, back, error)
	}{
		{"GATv2Attention", 2, [2]int{heads, c}, func(xs []*tensor.Tensor) (tensor.Storage, back, error) {
			return be.GATv2Attention(g, xs[0], xs[1], xs[2], heads, 0.2, 0.1, 3)
		}},
		{"TransformerAttention", 3, [2]int{n, heads * c}, func(xs []*tensor.Tensor) (tensor.Storage, back, error) {
			return be.TransformerAttention(g, xs[0], xs[1], xs[2], heads, 0.1, 3)
		}},
		{"GATAttention", 1, [2]int{n, heads}, func(xs []*tensor.Tensor) (tensor.Storage, back, error) {
			return be.GATAttention(g, xs[0], xs[1], xs[2], heads, 0.2, 0.1, 3)
		}},
	} {
		t.Run(op.name+"/off", func(t *testing.T) {
			BF16Attention = false
			xs := []*tensor.Tensor{randn(4, n, heads*c).To(be), randn(5, n, heads*c).To(be), randn(6, op.last[0], op.last[1]).To(be)}
			if op.features == 1 {
				xs[1] = randn(5, op.last[0], op.last[1]).To(be)
			}
			drv.launches = nil
			var (
				bw  back
				err error
			)
			tensor.Autocast(tensor.BFloat16, func() { _, bw, err = op.run(xs) })
			if err == nil {
				_, _, _, err = bw(randn(7, n, heads*c).To(be))
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range drv.launches {
				if strings.HasSuffix(l.kernel, "_bf16") && strings.Contains(l.kernel, "_fwd") || strings.HasSuffix(l.kernel, "_bf16w") {
					t.Errorf("BF16Attention off: launched %s", l.kernel)
				}
			}
		})
		for _, stored := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/bf16 storage %t", op.name, stored), func(t *testing.T) {
				BF16Attention = true
				second := [2]int{n, heads * c}
				if op.features == 1 {
					second = op.last // GAT's two score inputs
				}
				xs := []*tensor.Tensor{randn(4, n, heads*c).To(be), randn(5, second[0], second[1]).To(be), randn(6, op.last[0], op.last[1]).To(be)}
				grad := randn(7, n, heads*c).To(be)
				if stored {
					for _, x := range []**tensor.Tensor{&xs[0], &xs[1], &xs[2], &grad} {
						if x == &xs[2] && op.features < 3 || x == &xs[1] && op.features < 2 {
							continue
						}
						s, err := be.ToHalf(*x, tensor.BFloat16)
						if err != nil {
							t.Fatal(err)
						}
						*x = tbackend.FromStorage(s, (*x).Shape()...)
					}
				}
				drv.launches = nil
				var (
					out tensor.Storage
					bw  back
					err error
				)
				tensor.Autocast(tensor.BFloat16, func() { out, bw, err = op.run(xs) })
				if err != nil {
					t.Fatal(err)
				}
				if h, ok := out.(*BF16Tensor); !ok || h.Rows != n || h.Cols != heads*c {
					t.Fatalf("output %v, want a %dx%d BF16Tensor", out, n, heads*c)
				}
				var gs [3]tensor.Storage
				tensor.Autocast(tensor.BFloat16, func() { gs[0], gs[1], gs[2], err = bw(grad) })
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range drv.launches {
					switch {
					case l.kernel == "transpose_perm" || strings.TrimSuffix(l.kernel, "_v8") == "f32_to_bf16" && !stored:
					case !strings.HasSuffix(l.kernel, "_bf16"):
						t.Errorf("launched %s", l.kernel)
					}
				}
				for i, x := range xs {
					rows, cols := matrixShape(x.Shape())
					var r, c int
					switch s := gs[i].(type) {
					case *BF16Tensor:
						if i >= op.features {
							t.Errorf("gradient of input %d (float32 in the kernels) in bfloat16", i)
						}
						r, c = s.Rows, s.Cols
					case *Tensor:
						if i < op.features {
							t.Errorf("gradient of feature %d in float32", i)
						}
						r, c = s.Rows, s.Cols
					default:
						t.Fatalf("gradient of input %d: %T", i, gs[i])
					}
					if r != rows || c != cols {
						t.Errorf("gradient of input %d is %dx%d, want %dx%d", i, r, c, rows, cols)
					}
				}
				if _, _, _, err := bw(grad); err == nil {
					t.Errorf("a second backward pass succeeded")
				}
			})
		}
	}
}

// TestGATv2ConvRebuildsOutputBF16 is TestGATv2ConvRebuildsOutput under
// Autocast(BFloat16) with BF16Attention, where GATv2Conv runs the
// bfloat16 kernels: the
// rebuilt output is bfloat16 (unbias_act_bf16), read by the backward
// passes as it is. The activations must be equal bit for bit, and the
// gradients with the output rebuilt within 2⁻⁶ (relative, as a whole) of
// those with it kept: the rebuilt bfloat16 output differs from the kept
// one by a rounding of the bias subtraction (2⁻⁸ relative a value), which
// reaches the gradients through D = dOut·out.
func TestGATv2ConvRebuildsOutputBF16(t *testing.T) {
	defer func(on bool) { nn.RebuildGATv2Output = on }(nn.RebuildGATv2Output)
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	nn.RebuildGATv2Output, BF16Attention = true, true
	dev := defaultOrSkip(t)
	if !dev.hasBF16() {
		t.Skipf("%v has no bfloat16 tensor cores", dev)
	}
	d := dev.be
	g := testGraph(t, 400, 3000, true)
	for _, c := range []struct {
		heads, ch int
		p         float32
	}{{1, 16, 0}, {2, 16, 0.3}, {1, 64, 0.1}} {
		run := func(fused bool) (out []float32, grads [][]float32) {
			nn.Seed(9)
			conv := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
			drop := nn.NewDropout(0.4)
			nn.To(conv, d)
			x := tensor.Randn(3, 400, 24).To(d).SetRequiresGrad(true)
			w := tensor.Randn(4, 400, c.heads*c.ch).To(d)
			var h, loss *tensor.Tensor
			tensor.Autocast(tensor.BFloat16, func() {
				y := conv.Forward(g, x)
				if y.DType() != tensor.BFloat16 {
					t.Errorf("%+v: GATv2Conv output in %v under Autocast(BFloat16)", c, y.DType())
				}
				if fused {
					h = nn.ReLUDropout(y, drop)
				} else {
					h = drop.Forward(y.ReLU())
				}
				loss = h.Mul(w).Sum()
			})
			loss.Backward()
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
			if e := relErr(g1[i], f64(g0[i])); !(e <= 1.0/64) {
				t.Errorf("%+v: gradient %d with the bfloat16 output rebuilt is %.3g from the one with it kept", c, i, e)
			}
		}
	}
}

// TestGATv2AttentionOutBF16Lifecycle runs GATv2AttentionOut, UnbiasAct
// and the backward pass as nn's GATv2OutOps do under Autocast(BFloat16)
// with BF16Attention,
// on the recording driver of TestAttentionBF16Lifecycle: the rebuilt
// output is bfloat16 (unbias_act_bf16), and nothing is widened or
// rounded on the way (no bf16_to_f32, no f32_to_bf16).
func TestGATv2AttentionOutBF16Lifecycle(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	BF16Attention = true
	d, drv := openRecorder(t)
	d.desc = "record (sm_90, no GPU)"
	be := d.be
	const n, heads, c = 300, 2, 16
	g := testGraph(t, n, 3000, false)
	half := func(x *tensor.Tensor) *tensor.Tensor {
		s, err := be.ToHalf(x, tensor.BFloat16)
		if err != nil {
			t.Fatal(err)
		}
		return tbackend.FromStorage(s, x.Shape()...)
	}
	xl, xr, att := half(randn(4, n, heads*c).To(be)), half(randn(5, n, heads*c).To(be)), randn(6, heads, c).To(be)
	grad, bias := half(randn(7, n, heads*c).To(be)), randn(8, heads*c).To(be)
	drv.launches = nil
	var (
		out  tensor.Storage
		back func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error)
		err  error
	)
	tensor.Autocast(tensor.BFloat16, func() { out, back, err = be.GATv2AttentionOut(g, xl, xr, att, heads, 0.2, 0, 1) })
	if err != nil {
		t.Fatal(err)
	}
	y := tbackend.FromStorage(out, n, heads*c) // stands for the activation
	x, err := be.UnbiasAct(y, bias, true, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := x.(*BF16Tensor); !ok {
		t.Fatalf("UnbiasAct of bfloat16 storage gave %T, want *BF16Tensor", x)
	}
	gs := [3]tensor.Storage{}
	gs[0], gs[1], gs[2], err = back(grad, tbackend.FromStorage(x, n, heads*c))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"*cuda.BF16Tensor", "*cuda.BF16Tensor", "*cuda.Tensor"} {
		if got := fmt.Sprintf("%T", gs[i]); got != want {
			t.Errorf("gradient %d: %s, want %s", i, got, want)
		}
	}
	for _, l := range drv.launches {
		if l.kernel == "bf16_to_f32" || strings.TrimSuffix(l.kernel, "_v8") == "f32_to_bf16" || strings.HasPrefix(l.kernel, "gatv2_") && !strings.HasSuffix(l.kernel, "_bf16") {
			t.Errorf("launched %s", l.kernel)
		}
	}
}

// TestDeviceAutocastBF16Attention is TestDeviceAutocast with
// BF16Attention on: the GAT and GATv2 models' attention runs its bfloat16
// kernels under Autocast(BFloat16), against the CPU emulation within the
// same 1e-2.
func TestDeviceAutocastBF16Attention(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	BF16Attention = true
	devicetest.CheckAutocast(t, defaultOrSkip(t).be, 1e-2)
}

// TestDeviceCoraAutocastBF16Attention is TestDeviceCoraAutocast with
// BF16Attention on: GCN and GAT trained on Cora over 10 seeds under
// Autocast(BFloat16), GAT's attention in its bfloat16 kernels, within the
// 0.5-point rule of float32. It needs GNNLAB_DATA with Planetoid's Cora
// files and skips without them.
func TestDeviceCoraAutocastBF16Attention(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	be := defaultOrSkip(t).be
	ds, err := data.Planetoid("cora")
	if err != nil {
		t.Skipf("Cora not available (set GNNLAB_DATA): %v", err)
	}
	ds.NormalizeFeatures()
	BF16Attention = true
	devicetest.CheckCoraAutocast(t, be, ds, 10)
}
