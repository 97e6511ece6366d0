package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// tfRef is a float64 Graph Transformer attention on the CPU: out (N x HC)
// from q, k and val, with the device's attention dropout mask.
func tfRef(g *graph.Graph, q, k, val []float64, h, c int, scale float64, drop AttentionDropout) []float64 {
	n, hc := g.NumNodes(), h*c
	out := make([]float64, n*hc)
	for v := 0; v < n; v++ {
		nb := g.Neighbors(v)
		for hh := 0; hh < h; hh++ {
			s := make([]float64, len(nb))
			m := math.Inf(-1)
			for i, u := range nb {
				for j := 0; j < c; j++ {
					s[i] += q[v*hc+hh*c+j] * k[u*hc+hh*c+j]
				}
				s[i] *= scale
				m = math.Max(m, s[i])
			}
			var l float64
			for i := range s {
				s[i] = math.Exp(s[i] - m)
				l += s[i]
			}
			for i, u := range nb {
				kd := dropKeep(drop, g.Indptr[v]+i, hh, h)
				for j := 0; j < c; j++ {
					out[v*hc+hh*c+j] += kd * s[i] / l * val[u*hc+hh*c+j]
				}
			}
		}
	}
	return out
}

// TestTransformer checks the fused Graph Transformer attention against a
// float64 reference, its gradients against central differences of the
// reference at sampled entries, at exact and masked head widths, with and
// without attention dropout, on the graphs of TestGATv2 (multi-edges and a
// transpose in another order included).
func TestTransformer(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct{ n, m, h, c int }{{40, 200, 2, 8}, {30, 120, 1, 64}, {25, 100, 4, 16}, {20, 60, 1, 256},
		{12, 30, 2, 128}, {9, 20, 1, 512},
		{20, 80, 3, 12}, {16, 60, 1, 40}, {9, 24, 2, 300}, {6, 14, 1, 1024}} {
		graphs, g, multi := gatv2Graphs(t, d, tc.n, tc.m)
		hc := tc.h * tc.c
		scale := 1 / math.Sqrt(float64(tc.c))
		q, k, val := randSlice(r, tc.n*hc), randSlice(r, tc.n*hc), randSlice(r, tc.n*hc)
		rw := randSlice(r, tc.n*hc) // loss = Σ out ⊙ rw
		pick := r.Perm(tc.n * hc)
		if len(pick) > 96 {
			pick = pick[:96]
		}
		at := func(got []float32, want []float64) ([]float32, []float64) {
			gs, ws := make([]float32, len(pick)), make([]float64, len(pick))
			for j, i := range pick {
				gs[j], ws[j] = got[i], want[i]
			}
			return gs, ws
		}
		for _, drop := range []AttentionDropout{{}, {P: 0.3, Seed: 5}} {
			type ref struct{ out, dq, dk, dv []float64 }
			refs := map[*graph.Graph]ref{}
			for _, hg := range []*graph.Graph{g, multi} {
				q64, k64, v64 := f64(q), f64(k), f64(val)
				loss := func() float64 {
					o := tfRef(hg, q64, k64, v64, tc.h, tc.c, scale, drop)
					var s float64
					for i := range o {
						s += o[i] * float64(rw[i])
					}
					return s
				}
				diff := func(x []float64) []float64 {
					out := make([]float64, len(x))
					for _, i := range pick {
						const eps = 1e-6
						old := x[i]
						x[i] = old + eps
						lp := loss()
						x[i] = old - eps
						lm := loss()
						x[i] = old
						out[i] = (lp - lm) / (2 * eps)
					}
					return out
				}
				refs[hg] = ref{tfRef(hg, q64, k64, v64, tc.h, tc.c, scale, drop), diff(q64), diff(k64), diff(v64)}
			}
			for name, dg := range graphs {
				want := refs[g]
				if name == "multi-edges" {
					want = refs[multi]
				}
				what := fmt.Sprintf("H=%d, C=%d, %s, dropout %v", tc.h, tc.c, name, drop.P)
				dq, dk, dv := mustT(t, d, q, tc.n, hc), mustT(t, d, k, tc.n, hc), mustT(t, d, val, tc.n, hc)
				a, err := TransformerForward(dg, dq, dk, dv, tc.h, tc.c, float32(scale), drop)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(host(t, a.Out), want.out); e > 1e-5 {
					t.Errorf("TransformerForward(%s) relative error %.3g", what, e)
				}
				gq, gk, gv := poisoned(t, d, tc.n, hc), poisoned(t, d, tc.n, hc), poisoned(t, d, tc.n, hc)
				if err := a.Backward(dg, dq, dk, dv, mustT(t, d, rw, tc.n, hc), gq, gk, gv); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					name string
					got  *Tensor
					want []float64
				}{{"dq", gq, want.dq}, {"dk", gk, want.dk}, {"dv", gv, want.dv}} {
					if e := relErr(at(host(t, c.got), c.want)); e > 1e-4 {
						t.Errorf("Transformer.Backward(%s) %s relative error %.3g", what, c.name, e)
					}
				}
				a.Free()
				// The fused form: one N x 4HC input [q|k|v|skip], out =
				// attention + skip, gradients into one N x 3HC buffer.
				skip := randSlice(r, tc.n*hc)
				cat := make([]float32, 0, tc.n*4*hc)
				for v := 0; v < tc.n; v++ {
					for _, x := range [][]float32{q, k, val, skip} {
						cat = append(cat, x[v*hc:(v+1)*hc]...)
					}
				}
				wantOut := make([]float64, len(want.out))
				for i := range wantOut {
					wantOut[i] = want.out[i] + float64(skip[i])
				}
				qkvs := mustT(t, d, cat, tc.n, 4*hc)
				a, err = TransformerForwardFused(dg, qkvs, tc.h, tc.c, float32(scale), drop)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(host(t, a.Out), wantOut); e > 1e-5 {
					t.Errorf("TransformerForwardFused(%s) relative error %.3g", what, e)
				}
				if err := a.Backward(dg, dq, dk, dv, mustT(t, d, rw, tc.n, hc), gq, gk, gv); err == nil {
					t.Errorf("Backward after TransformerForwardFused(%s): no error", what)
				}
				dqkv := poisoned(t, d, tc.n, 3*hc)
				if err := a.BackwardFused(dg, qkvs, mustT(t, d, rw, tc.n, hc), dqkv); err != nil {
					t.Fatal(err)
				}
				all := host(t, dqkv)
				for b, c := range []struct {
					name string
					want []float64
				}{{"dq", want.dq}, {"dk", want.dk}, {"dv", want.dv}} {
					got := make([]float32, 0, tc.n*hc)
					for v := 0; v < tc.n; v++ {
						got = append(got, all[v*3*hc+b*hc:v*3*hc+(b+1)*hc]...)
					}
					if e := relErr(at(got, c.want)); e > 1e-4 {
						t.Errorf("Transformer.BackwardFused(%s) %s relative error %.3g", what, c.name, e)
					}
				}
				a.Free()
			}
		}
	}
}
