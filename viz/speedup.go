package viz

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
)

// Speedup plots measured speedups against thread (or device) counts with
// the ideal line and the Amdahl curve of the fitted parallel fraction
// (prof.FitAmdahl); the fit and its limit are in the legend.
func Speedup(threads, speedups []float64) (*Figure, error) {
	if len(threads) == 0 {
		return nil, fmt.Errorf("%w: no speedups", ErrData)
	}
	a, err := prof.FitAmdahl(threads, speedups)
	if err != nil {
		return nil, fmt.Errorf("viz: speedup: %w", err)
	}
	f := NewFigure("Speedup against threads", "threads", "speedup over 1 thread")
	f.Description = fmt.Sprintf("Speedup at %v threads: %v; Amdahl fit %v", threads, round3(speedups), a)
	p := f.Plot()
	grid(p)
	maxN := slices.Max(threads)
	ideal := line(plotter.XYs{{X: 1, Y: 1}, {X: maxN, Y: maxN}}, gray, 1, true)
	p.Add(ideal)
	p.Legend.Add("ideal (linear)", ideal)
	const n = 100
	curve := make(plotter.XYs, n)
	for i := range curve {
		x := 1 + (maxN-1)*float64(i)/(n-1)
		curve[i] = plotter.XY{X: x, Y: a.Speedup(x)}
	}
	l := line(curve, Color(3), 1.5, false)
	p.Add(l)
	limit := "∞"
	if !math.IsInf(a.Limit(), 1) {
		limit = fmt.Sprintf("%.3g×", a.Limit())
	}
	p.Legend.Add(fmt.Sprintf("Amdahl p = %.3f, limit %s", a.P, limit), l)
	xys := make(plotter.XYs, len(threads))
	for i := range threads {
		xys[i] = plotter.XY{X: threads[i], Y: speedups[i]}
	}
	pts := points(xys, Color(0), 3.5)
	p.Add(pts)
	p.Legend.Add("measured", pts)
	p.Legend.Left = true
	p.X.Min, p.Y.Min = 0, 0
	return f, nil
}

// SpeedupOf plots a prof.MeasureSpeedup result.
func SpeedupOf(s prof.Speedups) (*Figure, error) {
	return Speedup(s.ThreadsFloat(), s.Speedup)
}

func round3(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}
