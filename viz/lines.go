package viz

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Series is one named curve of a line plot: Y[i] is drawn at the i-th x.
type Series struct {
	Name string
	Y    []float64
	// Err, when set, draws a shaded band from Y[i] − Err[i] to Y[i] +
	// Err[i] in the series' colour: the spread of a mean of seeds (a
	// standard error, or the half-width of a 95 % interval; say which in
	// the name or the title). It must have len(Y) values; NaN leaves a
	// point out of the band.
	Err []float64
}

// LineOptions configure Lines. Title and the axis labels are required:
// every plot a notebook shows says what it shows.
type LineOptions struct {
	Title, XLabel, YLabel string
	// LogY draws the y axis on a logarithmic scale (vanishing gradients,
	// errors spanning decades); values ≤ 0 are left out of the curves.
	LogY bool
	// Markers draws a dot at each point as well as the line, for curves
	// of few points (accuracy against depth).
	Markers bool
	// LogX2 draws the x axis on a base-2 logarithmic scale with a tick
	// at each power of two, for x values that double (1, 2, 4, 8, 16
	// layers); x values must be positive.
	LogX2 bool
	// Legend places the legend: "" (the default) puts it in the first
	// corner the curves and bands leave free (top right, top left, bottom
	// right, bottom left), or outside, to the right of the plot, when none
	// is; "top right", "top left", "bottom right", "bottom left" and
	// "outside" force a place.
	Legend string
}

// Lines plots one or more series against shared x values: the general
// line chart for what the specialised plots do not cover (loss curves of
// several learning rates, gradient norms per layer, accuracy against
// depth). Each series must have len(x) values; NaN and ±Inf values are
// skipped.
func Lines(x []float64, series []Series, o LineOptions) (*Figure, error) {
	if len(x) == 0 || len(series) == 0 {
		return nil, fmt.Errorf("%w: lines: no data", ErrData)
	}
	if o.Title == "" || o.XLabel == "" || o.YLabel == "" {
		return nil, fmt.Errorf("%w: lines: title and axis labels are required", ErrData)
	}
	if o.LogX2 {
		for _, v := range x {
			if !(v > 0) {
				return nil, fmt.Errorf("%w: lines: x value %v on a log₂ axis", ErrData, v)
			}
		}
	}
	f := NewFigure(o.Title, o.XLabel, o.YLabel)
	p := f.Plot()
	grid(p)
	var desc []string
	var drawn []plotter.XY // what the legend must avoid
	var names []string     // the legend's entries
	for i, s := range series {
		if len(s.Y) != len(x) {
			return nil, fmt.Errorf("%w: lines: series %q has %d values for %d x values", ErrData, s.Name, len(s.Y), len(x))
		}
		if s.Err != nil && len(s.Err) != len(x) {
			return nil, fmt.Errorf("%w: lines: series %q has %d error values for %d x values", ErrData, s.Name, len(s.Err), len(x))
		}
		if band := errBand(x, s, o.LogY, Color(i)); band != nil {
			p.Add(band)
			drawn = append(drawn, densify(band.XYs[0], 8, o.LogX2, o.LogY)...)
		}
		xys := make(plotter.XYs, 0, len(x))
		for j, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) || (o.LogY && y <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x[j], Y: y})
		}
		if len(xys) == 0 {
			continue
		}
		l := line(xys, Color(i), 1.5, false)
		p.Add(l)
		drawn = append(drawn, densify(xys, 8, o.LogX2, o.LogY)...)
		if o.Markers {
			p.Add(points(xys, Color(i), 2.5))
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, l)
			names = append(names, s.Name)
		}
		last := xys[len(xys)-1]
		if j := lastIndex(x, s.Y, last); s.Err != nil && j >= 0 && !math.IsNaN(s.Err[j]) {
			desc = append(desc, fmt.Sprintf("%s %.4g ± %.2g at %s %g", s.Name, last.Y, s.Err[j], o.XLabel, last.X))
		} else {
			desc = append(desc, fmt.Sprintf("%s %.4g at %s %g", s.Name, last.Y, o.XLabel, last.X))
		}
	}
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	}
	if o.LogX2 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = log2Ticks{}
	}
	switch o.Legend {
	case "":
		if !placeLegend(f, p, names, drawn, o.LogX2, o.LogY) {
			f.LegendOutside = true
		}
	case "top right":
	case "top left":
		p.Legend.Left = true
	case "bottom right":
		p.Legend.Top = false
	case "bottom left":
		p.Legend.Top, p.Legend.Left = false, true
	case "outside":
		f.LegendOutside = true
	default:
		return nil, fmt.Errorf("%w: lines: legend position %q", ErrData, o.Legend)
	}
	f.Description = o.Title
	if len(desc) > 0 {
		f.Description += ": " + strings.Join(desc, "; ")
	}
	return f, nil
}

// errBand returns the shaded band Y ± Err of s as a polygon (nil when s
// has no Err or no point with a finite band).
func errBand(x []float64, s Series, logY bool, c color.Color) *plotter.Polygon {
	if s.Err == nil {
		return nil
	}
	var upper, lower plotter.XYs
	for j := range x {
		y, e := s.Y[j], s.Err[j]
		if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(e) || math.IsInf(e, 0) || (logY && y-e <= 0) {
			continue
		}
		upper = append(upper, plotter.XY{X: x[j], Y: y + e})
		lower = append(lower, plotter.XY{X: x[j], Y: y - e})
	}
	if len(upper) < 2 {
		return nil
	}
	ring := append(plotter.XYs{}, upper...)
	for j := len(lower) - 1; j >= 0; j-- {
		ring = append(ring, lower[j])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil
	}
	poly.LineStyle.Width = 0
	poly.Color = fade(c, 55)
	return poly
}

// lastIndex returns the index of the x value of the point last, or -1.
func lastIndex(x, y []float64, last plotter.XY) int {
	for j := len(x) - 1; j >= 0; j-- {
		if x[j] == last.X && y[j] == last.Y {
			return j
		}
	}
	return -1
}

// decadeTicks label powers of ten in their shortest form ("1e-06", "100",
// never "9.999999999999999e-05"), at most about eight of them. Over more
// than four decades they drop the minor ticks between decades, which
// gonum's LogTicks draws nine a decade (a solid band over 28 decades).
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	decades := 0
	for _, t := range ts {
		if t.Label != "" {
			decades++
		}
	}
	every := (decades + 7) / 8
	k := 0
	var out []plot.Tick
	for _, t := range ts {
		exp := math.Round(math.Log10(t.Value))
		if t.Label == "" {
			// LogTicks repeats each decade as a minor tick; keep the
			// minor ticks between decades over a few decades only.
			if decade := math.Abs(math.Log10(t.Value)-exp) < 1e-9; !decade && decades <= 4 {
				out = append(out, t)
			}
			continue
		}
		t.Label = ""
		if k%every == 0 {
			t.Label = strconv.FormatFloat(math.Pow(10, exp), 'g', 3, 64)
		}
		k++
		out = append(out, t)
	}
	return out
}
