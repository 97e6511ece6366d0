package viz

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// tickValues returns the values of the labelled ticks.
func tickValues(lo, hi float64, log2 bool) []float64 {
	var out []float64
	if log2 {
		for _, t := range (log2Ticks{}).Ticks(lo, hi) {
			if t.Label != "" {
				out = append(out, t.Value)
			}
		}
		return out
	}
	for _, t := range (roundTicks{}).Ticks(lo, hi) {
		if t.Label != "" {
			out = append(out, t.Value)
		}
	}
	return out
}

// TestRoundTicks checks the cases issue 30 found (ticks at 3, 9, 15 for
// data at 1–16; −2.5, −1, 0.5 on a PCA axis) and that every labelled tick
// is a multiple of a step of 1, 2 or 5 times a power of ten.
func TestRoundTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{1, 16, []float64{2, 4, 6, 8, 10, 12, 14, 16}},
		{0.18, 1.65, []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6}},
		{-2.6, 0.9, []float64{-2.5, -2, -1.5, -1, -0.5, 0, 0.5}},
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-5.2, 8.8, []float64{-4, -2, 0, 2, 4, 6, 8}},
	} {
		got := tickValues(c.lo, c.hi, false)
		if len(got) != len(c.want) {
			t.Errorf("roundTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("roundTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
				break
			}
		}
	}
	for _, r := range [][2]float64{{0.001, 0.0173}, {-37, 912}, {3, 3.7}, {1e5, 7e6}} {
		got := tickValues(r[0], r[1], false)
		if len(got) < 4 || len(got) > 8 {
			t.Errorf("roundTicks(%g, %g) = %v, want 4 to 8 labelled ticks", r[0], r[1], got)
		}
		step := got[1] - got[0]
		m := step / math.Pow(10, math.Floor(math.Log10(step)))
		if !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(v float64) bool { return math.Abs(v-m) < 1e-6 }) {
			t.Errorf("roundTicks(%g, %g): step %g is not 1, 2, 2.5 or 5 times a power of ten", r[0], r[1], step)
		}
	}
}

func TestLog2Ticks(t *testing.T) {
	if got, want := tickValues(1, 16, true), []float64{1, 2, 4, 8, 16}; !slices.Equal(got, want) {
		t.Errorf("log2Ticks(1, 16) = %v, want %v", got, want)
	}
	if got := tickValues(1, 1<<20, true); len(got) > 8 {
		t.Errorf("log2Ticks(1, 2^20) labels %d ticks, want at most 8", len(got))
	}
}

// TestPlaceLegend puts data in the top right corner and expects the legend
// elsewhere, then fills every corner and expects no free one.
func TestPlaceLegend(t *testing.T) {
	f := NewFigure("t", "x", "y")
	p := f.Plot()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	names := []string{"training accuracy", "test accuracy"}
	if !placeLegend(f, p, names, []plotter.XY{{X: 0.95, Y: 0.95}, {X: 0.5, Y: 0.5}}, false, false) {
		t.Fatal("placeLegend found no free corner with one corner taken")
	}
	if p.Legend.Top && !p.Legend.Left {
		t.Error("placeLegend chose the top right corner, which holds data")
	}
	full := []plotter.XY{{X: 0.02, Y: 0.02}, {X: 0.98, Y: 0.02}, {X: 0.02, Y: 0.98}, {X: 0.98, Y: 0.98}}
	if placeLegend(f, p, names, full, false, false) {
		t.Error("placeLegend found a free corner with data in all four")
	}
}

// TestErrorBand checks that a series with Err gets a band and that a
// band of the wrong length or a log₂ axis with x ≤ 0 is refused.
func TestErrorBand(t *testing.T) {
	x := []float64{1, 2, 4, 8, 16}
	s := Series{Name: "test accuracy (mean ± SE)", Y: []float64{0.7, 0.8, 0.75, 0.5, 0.3}, Err: []float64{0.01, 0.01, 0.02, 0.1, 0.05}}
	o := LineOptions{Title: "accuracy against depth", XLabel: "layers", YLabel: "accuracy", LogX2: true, Markers: true}
	f, err := Lines(x, []Series{s}, o)
	if err != nil {
		t.Fatal(err)
	}
	band := errBand(x, s, false, Color(0))
	if band == nil || len(band.XYs[0]) != 2*len(x) {
		t.Fatalf("errBand = %v, want a ring of %d points", band, 2*len(x))
	}
	if top, bottom := band.XYs[0][4], band.XYs[0][5]; top.Y != 0.35 || bottom.Y != 0.25 {
		t.Errorf("band at x = 16 from %v to %v, want 0.25 to 0.35", bottom.Y, top.Y)
	}
	if want := "accuracy against depth: test accuracy (mean ± SE) 0.3 ± 0.05 at layers 16"; f.String() != want {
		t.Errorf("String() = %q, want %q", f.String(), want)
	}
	if _, err := f.PNG(); err != nil {
		t.Fatal(err)
	}
	bad := s
	bad.Err = []float64{0.1}
	if _, err := Lines(x, []Series{bad}, o); !errors.Is(err, ErrData) {
		t.Errorf("Lines with 1 error value for 5 points = %v, want ErrData", err)
	}
	if _, err := Lines([]float64{0, 1}, []Series{{Name: "a", Y: []float64{1, 2}}}, o); !errors.Is(err, ErrData) {
		t.Errorf("Lines on a log₂ axis with x = 0 = %v, want ErrData", err)
	}
}

// TestGroupedBarsErr checks that error bars widen the y range to hold
// them, appear in the description, and that a wrong shape is refused.
func TestGroupedBarsErr(t *testing.T) {
	f, err := GroupedBarsErr([]string{"FP32", "INT8"}, []string{"mean of 10 seeds ± SE"}, [][]float64{{0.817, 0.816}}, [][]float64{{0.002, 0.003}})
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Plot(); p.Y.Min > 0.813 || p.Y.Max < 0.819 {
		t.Errorf("y axis [%v, %v], want it to hold 0.816 ± 0.003 and 0.817 ± 0.002", p.Y.Min, p.Y.Max)
	}
	if want := "± [0.002 0.003]"; !strings.Contains(f.String(), want) {
		t.Errorf("String() = %q, want it to contain %q", f.String(), want)
	}
	if _, err := f.PNG(); err != nil {
		t.Fatal(err)
	}
	if _, err := GroupedBarsErr([]string{"a"}, []string{"s"}, [][]float64{{1}}, [][]float64{{1, 2}}); !errors.Is(err, ErrData) {
		t.Errorf("GroupedBarsErr with 2 errors for 1 value = %v, want ErrData", err)
	}
}
