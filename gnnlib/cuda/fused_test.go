package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
