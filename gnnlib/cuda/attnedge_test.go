package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestGATv2EdgeCoefEmulated runs the edge-coefficient GATv2 backward
// (tune.GATv2EdgeCoef: gatv2.cu's gatv2_bwd_dd, gatv2_bwd_srce and
// gatv2_bwd_dste) on the CPU in float32, in the order its kernels sum
// (each lane group's channel sums in layout l, the edges of a row in
// order), from the scores and sign bits the forward pass stores, and
// checks what it computes against the float64 evaluation of the GATv2
// gradient (gatv2Exact): dxl and dxr within its rounding bound, and att's
// gradient, which the passes sum as two shares (Σ_u x_l[u] ⊙ Σ ds·m over
// u's out-edges plus Σ_v x_r[v] ⊙ Σ ds·m over v's in-edges) instead of Σ
// ds·lrelu(z), against that sum in float64. Several heads, attention
// dropout and a hub row; the device test of the kernels themselves is
// TestGATv2EdgeCoef.
func TestGATv2EdgeCoefEmulated(t *testing.T) {
	g := testGraph(t, 800, 8000, true)
	tg, emap := g.Transpose(), g.TransposeEdges()
	n, ne := g.NumNodes(), g.NumEdges()
	r := rand.New(rand.NewPCG(5, 6))
	const slope = 0.2
	for _, tc := range []struct {
		heads, c int
		drop     AttentionDropout
	}{{1, 256, AttentionDropout{}}, {2, 64, AttentionDropout{P: 0.3, Seed: 9}}, {4, 16, AttentionDropout{P: 0.1, Seed: 3}}} {
		t.Run(fmt.Sprintf("%dx%d/p%g", tc.heads, tc.c, tc.drop.P), func(t *testing.T) {
			H, C := tc.heads, tc.c
			hc := H * C
			k, _ := gatShape(C)
			l := gatv2Lanes{g: k.g, vpl: k.vpl}
			xl, xr, att, dout := randSlice(r, n*hc), randSlice(r, n*hc), randSlice(r, hc), randSlice(r, n*hc)
			// The output the backward reads: the exact one, in float32.
			o := make([]float32, n*hc)
			for i, v := range newGATv2Exact(g, H, C, slope, tc.drop, xl, xr, att, dout, o).out {
				o[i] = float32(v)
			}
			x := newGATv2Exact(g, H, C, slope, tc.drop, xl, xr, att, dout, o)
			row := func(m []float32, v, h int) []float32 { return m[v*hc+h*C : v*hc+h*C+C] }
			// What the forward stores (gatv2_fwde): scores and the signs of z.
			es, pos := make([]float32, ne*H), make([][]bool, ne*H)
			// D = dOut·out (gatv2_bwd_dd); the softmax's lse in float32.
			dd, lse := make([]float32, n*H), make([]float32, n*H)
			for v := range n {
				for h := range H {
					gov, ov := row(dout, v, h), row(o, v, h)
					dd[v*H+h] = l.sum(func(c int) float32 { return gov[c] * ov[c] })
					lse[v*H+h] = float32(x.lse[v*H+h])
					a, rv := att[h*C:h*C+C], row(xr, v, h)
					for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
						q := row(xl, g.Indices[e], h)
						es[e*H+h] = l.sum(func(c int) float32 { return a[c] * lrelu32(q[c]+rv[c], slope) })
						p := make([]bool, C)
						for c := range p {
							p[c] = q[c]+rv[c] > 0
						}
						pos[e*H+h] = p
					}
				}
			}
			m := func(t, c int) float32 {
				if pos[t][c] {
					return 1
				}
				return slope
			}
			// gatv2_bwd_srce over the transpose: ds per edge, dxl and
			// x_l's share of datt.
			dse, dxl, datt := make([]float32, ne*H), make([]float32, n*hc), make([]float32, hc)
			for u := range n {
				for h := range H {
					a, q := att[h*C:h*C+C], row(xl, u, h)
					dq, w := make([]float32, C), make([]float32, C)
					for p := tg.Indptr[u]; p < tg.Indptr[u+1]; p++ {
						v, e := tg.Indices[p], emap[p]
						t := e*H + h
						gov := row(dout, v, h)
						gq := l.sum(func(c int) float32 { return gov[c] * q[c] })
						kd := float32(dropKeep(tc.drop, e, h, H))
						al := exp32(es[t] - lse[v*H+h])
						ds := al * (kd*gq - dd[v*H+h])
						dse[t] = ds
						for c := range C {
							dq[c] += al * kd * gov[c]
							w[c] += ds * m(t, c)
						}
					}
					out := row(dxl, u, h)
					for c := range C {
						out[c] = dq[c] + a[c]*w[c]
						datt[h*C+c] += q[c] * w[c]
					}
				}
			}
			// gatv2_bwd_dste by destination: dxr and x_r's share.
			dxr := make([]float32, n*hc)
			for v := range n {
				for h := range H {
					a, rv := att[h*C:h*C+C], row(xr, v, h)
					w := make([]float32, C)
					for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
						for c := range C {
							w[c] += dse[e*H+h] * m(e*H+h, c)
						}
					}
					out := row(dxr, v, h)
					for c := range C {
						out[c] = a[c] * w[c]
						datt[h*C+c] += rv[c] * w[c]
					}
				}
			}
			checkExact(t, "dxl", dxl, x.dxl, x.bdxl, 0)
			checkExact(t, "dxr", dxr, x.dxr, x.bdxr, 0)
			// att's gradient Σ ds·lrelu(z) in float64 from the same
			// attention (x.lse) and output.
			want := make([]float32, hc)
			w64 := make([]float64, hc)
			for v := range n {
				for h := range H {
					a, rv, gov, ov := att[h*C:h*C+C], row(xr, v, h), row(dout, v, h), row(o, v, h)
					var D float64
					for c := range C {
						D += float64(gov[c]) * float64(ov[c])
					}
					for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
						q := row(xl, g.Indices[e], h)
						var s, gq float64
						for c := range C {
							s += float64(a[c]) * lrelu64(float64(q[c])+float64(rv[c]), slope)
							gq += float64(gov[c]) * float64(q[c])
						}
						kd := dropKeep(tc.drop, e, h, H)
						ds := math.Exp(s-x.lse[v*H+h]) * (kd*gq - D)
						for c := range C {
							w64[h*C+c] += ds * lrelu64(float64(q[c])+float64(rv[c]), slope)
						}
					}
				}
			}
			for i, v := range w64 {
				want[i] = float32(v)
			}
			checkRounded(t, "datt (two shares) against Σ ds·lrelu(z)", datt, want, 1e-4, 1e-5)
		})
	}
}

// TestGATv2EdgeCoefLayers runs GATv2Conv layers at the widths the
// edge-coefficient kernels take (1x64, 2x64, 1x256, 2x128 averaged,
// 1x512), and gnnlib/devicetest's GATv2 ops and shape sweep (widths that
// run the other passes), on the device with tune.GATv2EdgeCoef on,
// against the CPU (outputs and gradients, on a graph with a heavy row),
// in float32 and, for the first, under Autocast(BFloat16) with the
// bfloat16 kernels: the tensor API's path (GATv2Attention,
// GATv2AttentionOut, the one-product pair), which runs the source pass
// first.
func TestGATv2EdgeCoefLayers(t *testing.T) {
	d := defaultOrSkip(t).be
	defer func(on bool) { tune.GATv2EdgeCoef = on }(tune.GATv2EdgeCoef)
	tune.GATv2EdgeCoef = true
	const in = 20
	g := devicetest.HubGraph(t, 200, 900, true)
	var edge []devicetest.Case
	for _, s := range []struct {
		out, heads int
		concat     bool
	}{{64, 1, true}, {64, 2, true}, {256, 1, true}, {128, 2, false}, {512, 1, true}} {
		edge = append(edge, devicetest.Layer(fmt.Sprintf("GATv2Conv %dx%d concat=%t", s.heads, s.out, s.concat),
			func() nn.Module { return nn.NewGATv2Conv(in, s.out, s.heads, s.concat, 0) },
			func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.GraphLayer).Forward(g, x[0]) },
			tensor.Randn(1, 200, in)))
	}
	others := append([]devicetest.Case(nil), edge...)
	for _, c := range append(devicetest.OpCases(t), devicetest.ShapeCases(t)...) {
		if strings.HasPrefix(c.Name, "GATv2") {
			others = append(others, c)
		}
	}
	devicetest.CheckOps(t, d, others, 2e-4)
	if !d.hasBF16() {
		return
	}
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	BF16Attention = true
	t.Run("bfloat16", func(t *testing.T) {
		tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckOps(t, d, edge, 2e-2) })
	})
}
