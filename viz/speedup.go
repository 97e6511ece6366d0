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
// (prof.FitAmdahl); the fit and its limit are in the legend. When there
// are too few thread counts for a fit (prof.ErrFit: fewer than two above
// 1), it draws the measurements without a curve and says so in the
// legend and the description.
func Speedup(threads, speedups []float64) (*Figure, error) {
	if len(threads) == 0 || len(threads) != len(speedups) {
		return nil, fmt.Errorf("%w: %d thread counts, %d speedups", ErrData, len(threads), len(speedups))
	}
	for i, n := range threads {
		if s := speedups[i]; n < 1 || !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("%w: speedup %v at %v threads", ErrData, s, n)
		}
	}
	// The only error left is too few thread counts: plot without a fit.
	a, err := prof.FitAmdahl(threads, speedups)
	fitted := err == nil
	f := NewFigure("Speedup against threads", "threads", "speedup over 1 thread")
	p := f.Plot()
	grid(p)
	maxN := math.Max(2, slices.Max(threads))
	ideal := line(plotter.XYs{{X: 1, Y: 1}, {X: maxN, Y: maxN}}, gray, 1, true)
	p.Add(ideal)
	p.Legend.Add("ideal (linear)", ideal)
	if fitted {
		f.Description = fmt.Sprintf("Speedup at %v threads: %v; Amdahl fit %v", threads, round3(speedups), a)
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
	} else {
		f.Description = fmt.Sprintf("Speedup at %v threads: %v; no Amdahl fit: too few thread counts", threads, round3(speedups))
	}
	xys := make(plotter.XYs, len(threads))
	for i := range threads {
		xys[i] = plotter.XY{X: threads[i], Y: speedups[i]}
	}
	pts := points(xys, Color(0), 3.5)
	p.Add(pts)
	if fitted {
		p.Legend.Add("measured", pts)
	} else {
		p.Legend.Add("measured (too few thread counts for an Amdahl fit)", pts)
	}
	p.Legend.Left = true
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = maxN*1.05, maxN*1.3 // room for the legend above the ideal line
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
