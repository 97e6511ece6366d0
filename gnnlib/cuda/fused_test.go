package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// TestSpMMBiasAct checks the fused SpMM epilogue against SpMM followed by
// BiasAct, value for value (the dropout mask included), on a graph without
// heavy rows (the fused path), one with a hub (the unfused fallback) and
// widths that are and are not multiples of 4.
func TestSpMMBiasAct(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, hub := range []bool{false, true} {
		hg := testGraph(t, 400, 3000, hub)
		g, err := NewGraph(d, hg)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []int{4, 48, 100, 6} {
			x := mustT(t, d, randSlice(r, 400*f), 400, f)
			b := mustT(t, d, randSlice(r, f), 1, f)
			for _, c := range []struct {
				bias bool
				relu bool
				p    float32
			}{{false, false, 0}, {true, false, 0}, {true, true, 0}, {true, true, 0.5}, {false, true, 0.3}} {
				what := fmt.Sprintf("hub %v, F=%d, bias %v, relu %v, p %v", hub, f, c.bias, c.relu, c.p)
				var bt *Tensor
				if c.bias {
					bt = b
				}
				want := poisoned(t, d, 400, f)
				if err := SpMM(want, g, x, SpMMAuto); err != nil {
					t.Fatal(err)
				}
				if err := BiasAct(want, want, bt, c.relu, c.p, 99); err != nil {
					t.Fatal(err)
				}
				got := poisoned(t, d, 400, f)
				if err := SpMMBiasAct(got, g, x, bt, c.relu, c.p, 99); err != nil {
					t.Fatalf("SpMMBiasAct(%s) = %v", what, err)
				}
				w, h := host(t, want), host(t, got)
				zeros := 0
				for i := range w {
					// The hub's edge tiles are summed by atomics, in no
					// fixed order: there the two runs may differ in the
					// last bits, elsewhere they are the same sums.
					if h[i] != w[i] && !hub {
						t.Fatalf("SpMMBiasAct(%s)[%d] = %v, SpMM+BiasAct gives %v", what, i, h[i], w[i])
					}
					if w[i] == 0 {
						zeros++
					}
				}
				if e := relErr(h, f64(w)); e > 1e-5 {
					t.Errorf("SpMMBiasAct(%s) relative error %.3g against SpMM+BiasAct", what, e)
				}
				if c.p > 0 && zeros < len(w)/10 {
					t.Errorf("SpMMBiasAct(%s): %d zeros of %d, dropout did not drop", what, zeros, len(w))
				}
			}
		}
		g.Free()
	}
}

// TestActBackwardColSum checks the fused activation and bias gradients
// against ActBackward followed by ColSum, also in place.
func TestActBackwardColSum(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(7, 6))
	for _, sh := range [][2]int{{1, 1}, {1000, 48}, {1500, 130}, {3, 256}} {
		n, f := sh[0], sh[1]
		x := mustT(t, d, randSlice(r, n*f), n, f)
		for _, c := range []struct {
			relu bool
			p    float32
		}{{true, 0}, {true, 0.5}, {false, 0.2}} {
			what := fmt.Sprintf("%dx%d, relu %v, p %v", n, f, c.relu, c.p)
			y := poisoned(t, d, n, f)
			if err := BiasAct(y, x, nil, c.relu, c.p, 3); err != nil {
				t.Fatal(err)
			}
			gs := randSlice(r, n*f)
			g := mustT(t, d, gs, n, f)
			want, wantDB := poisoned(t, d, n, f), poisoned(t, d, 1, f)
			if err := ActBackward(want, y, g, c.relu, c.p); err != nil {
				t.Fatal(err)
			}
			if err := ColSum(wantDB, want); err != nil {
				t.Fatal(err)
			}
			got, db := poisoned(t, d, n, f), poisoned(t, d, 1, f)
			if err := ActBackwardColSum(got, db, y, g, c.relu, c.p); err != nil {
				t.Fatalf("ActBackwardColSum(%s) = %v", what, err)
			}
			w, h := host(t, want), host(t, got)
			for i := range w {
				if h[i] != w[i] {
					t.Fatalf("ActBackwardColSum(%s) dx[%d] = %v, want %v", what, i, h[i], w[i])
				}
			}
			if e := relErr(host(t, db), f64(host(t, wantDB))); e > 1e-5 {
				t.Errorf("ActBackwardColSum(%s) db relative error %.3g", what, e)
			}
			// In place: dx = g.
			if err := ActBackwardColSum(g, db, y, g, c.relu, c.p); err != nil {
				t.Fatal(err)
			}
			h = host(t, g)
			for i := range w {
				if h[i] != w[i] {
					t.Fatalf("ActBackwardColSum(%s) in place dx[%d] = %v, want %v", what, i, h[i], w[i])
				}
			}
		}
	}
}

// gat1Ref is a float64 GAT (v1) attention on the CPU with the device's
// attention dropout mask: out[v,k,:] = Σ_u α_vuk·keep(e,k)·h[u,k,:].
func gat1Ref(g *graph.Graph, h, as, ad []float64, heads, c int, slope float64, drop AttentionDropout) []float64 {
	n, hc := g.NumNodes(), heads*c
	out := make([]float64, n*hc)
	for v := 0; v < n; v++ {
		lo, hi := g.Indptr[v], g.Indptr[v+1]
		for k := 0; k < heads; k++ {
			z := make([]float64, hi-lo)
			m := math.Inf(-1)
			for e := lo; e < hi; e++ {
				x := as[g.Indices[e]*heads+k] + ad[v*heads+k]
				if x < 0 {
					x *= slope
				}
				z[e-lo] = x
				m = math.Max(m, x)
			}
			var l float64
			for i := range z {
				z[i] = math.Exp(z[i] - m)
				l += z[i]
			}
			for e := lo; e < hi; e++ {
				w := z[e-lo] / l * dropKeep(drop, e, k, heads)
				u := g.Indices[e]
				for j := 0; j < c; j++ {
					out[v*hc+k*c+j] += w * h[u*hc+k*c+j]
				}
			}
		}
	}
	return out
}

// TestGATDropout checks the fused GAT (v1) attention with and without
// attention dropout against the float64 reference with the same mask, and
// its backward pass against central differences of it.
func TestGATDropout(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct{ n, m, h, c int }{{30, 150, 2, 16}, {20, 80, 1, 40}, {12, 40, 2, 300}, {8, 20, 1, 1024}} {
		hg, err := graph.ErdosRenyiM(tc.n, tc.m, 5)
		if err != nil {
			t.Fatal(err)
		}
		hg = hg.AddSelfLoops()
		g, err := NewGraph(d, hg)
		if err != nil {
			t.Fatal(err)
		}
		hc := tc.h * tc.c
		h, as, ad, rw := randSlice(r, tc.n*hc), randSlice(r, tc.n*tc.h), randSlice(r, tc.n*tc.h), randSlice(r, tc.n*hc)
		for _, drop := range []AttentionDropout{{}, {P: 0.4, Seed: 3}} {
			what := fmt.Sprintf("H=%d, C=%d, dropout %v", tc.h, tc.c, drop.P)
			const slope = 0.2
			h64, as64, ad64 := f64(h), f64(as), f64(ad)
			loss := func() float64 {
				o := gat1Ref(hg, h64, as64, ad64, tc.h, tc.c, slope, drop)
				var s float64
				for i := range o {
					s += o[i] * float64(rw[i])
				}
				return s
			}
			diff := func(v []float64) []float64 {
				out := make([]float64, len(v))
				for i := range v {
					const eps = 1e-6
					old := v[i]
					v[i] = old + eps
					lp := loss()
					v[i] = old - eps
					lm := loss()
					v[i] = old
					out[i] = (lp - lm) / (2 * eps)
				}
				return out
			}
			want := gat1Ref(hg, h64, as64, ad64, tc.h, tc.c, slope, drop)
			wantH, wantAS, wantAD := diff(h64), diff(as64), diff(ad64)
			dh, das, dad := mustT(t, d, h, tc.n, hc), mustT(t, d, as, tc.n, tc.h), mustT(t, d, ad, tc.n, tc.h)
			a, err := GATForward(g, dh, das, dad, tc.h, slope, drop)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(host(t, a.Out), want); e > 1e-5 {
				t.Errorf("GATForward(%s) relative error %.3g", what, e)
			}
			gh, gs, gd := poisoned(t, d, tc.n, hc), poisoned(t, d, tc.n, tc.h), poisoned(t, d, tc.n, tc.h)
			if err := a.Backward(g, dh, das, dad, mustT(t, d, rw, tc.n, hc), gh, gs, gd); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				got  *Tensor
				want []float64
			}{{"dh", gh, wantH}, {"das", gs, wantAS}, {"dad", gd, wantAD}} {
				if e := relErr(host(t, c.got), c.want); e > 1e-4 {
					t.Errorf("GAT.Backward(%s) %s relative error %.3g", what, c.name, e)
				}
			}
			a.Free()
		}
		g.Free()
	}
}
