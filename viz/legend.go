package viz

import (
	"math"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// placeLegend puts p's legend, whose entries are names, in the corner of the data area that covers
// the fewest of pts (data coordinates; lines should be given densely, see
// densify), trying top right, top left, bottom right and bottom left in
// that order. It reports false when every corner would cover data, and
// the caller should then draw the legend outside (Figure.LegendOutside).
// The legend's box is estimated from its entries' text and the figure's
// size; logX and logY say whether the axes are logarithmic.
func placeLegend(f *Figure, p *plot.Plot, names []string, pts []plotter.XY, logX, logY bool) bool {
	entries := len(names)
	if entries == 0 {
		return true
	}
	longest := 0
	for _, name := range names {
		longest = max(longest, utf8.RuneCountInString(name))
	}
	font := float64(p.Legend.TextStyle.Font.Size.Points())
	// The data area is the figure less the axes, labels and title.
	areaW := float64((f.Width - vg.Points(60)).Points())
	areaH := float64((f.Height - vg.Points(70)).Points())
	boxW := (float64(longest)*0.55*font + 30) / areaW
	boxH := (float64(entries)*(font+3) + 8) / areaH
	tx := func(v float64) float64 {
		if logX {
			return math.Log(v)
		}
		return v
	}
	ty := func(v float64) float64 {
		if logY {
			return math.Log(v)
		}
		return v
	}
	x0, x1, y0, y1 := tx(p.X.Min), tx(p.X.Max), ty(p.Y.Min), ty(p.Y.Max)
	if !(x1 > x0) || !(y1 > y0) {
		return true
	}
	type corner struct{ top, left bool }
	best, bestN := corner{true, false}, math.MaxInt
	for _, c := range []corner{{true, false}, {true, true}, {false, false}, {false, true}} {
		n := 0
		for _, q := range pts {
			if (logX && q.X <= 0) || (logY && q.Y <= 0) {
				continue
			}
			u, v := (tx(q.X)-x0)/(x1-x0), (ty(q.Y)-y0)/(y1-y0)
			inX := (c.left && u <= boxW+0.02) || (!c.left && u >= 1-boxW-0.02)
			inY := (c.top && v >= 1-boxH-0.03) || (!c.top && v <= boxH+0.03)
			if inX && inY {
				n++
			}
		}
		if n < bestN {
			best, bestN = c, n
		}
	}
	p.Legend.Top, p.Legend.Left = best.top, best.left
	return bestN == 0
}

// densify returns the points of the polyline xys with k points added
// between neighbours, so that placeLegend sees the segments as well as
// the vertices (in the axes' own scale when logX or logY).
func densify(xys plotter.XYs, k int, logX, logY bool) []plotter.XY {
	out := make([]plotter.XY, 0, len(xys)*(k+1))
	lerp := func(a, b, t float64, log bool) float64 {
		if log && a > 0 && b > 0 {
			return math.Exp(math.Log(a) + t*(math.Log(b)-math.Log(a)))
		}
		return a + t*(b-a)
	}
	for i, q := range xys {
		out = append(out, q)
		if i+1 == len(xys) {
			break
		}
		r := xys[i+1]
		for j := 1; j <= k; j++ {
			t := float64(j) / float64(k+1)
			out = append(out, plotter.XY{X: lerp(q.X, r.X, t, logX), Y: lerp(q.Y, r.Y, t, logY)})
		}
	}
	return out
}
