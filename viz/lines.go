package viz

import (
	"fmt"
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
	// Legend places the legend: "top right" (the default), "top left",
	// "bottom right" or "bottom left", whichever the curves leave free,
	// or "outside", to the right of the plot, when no corner is free.
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
	f := NewFigure(o.Title, o.XLabel, o.YLabel)
	p := f.Plot()
	grid(p)
	var desc []string
	for i, s := range series {
		if len(s.Y) != len(x) {
			return nil, fmt.Errorf("%w: lines: series %q has %d values for %d x values", ErrData, s.Name, len(s.Y), len(x))
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
		if o.Markers {
			p.Add(points(xys, Color(i), 2.5))
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, l)
		}
		desc = append(desc, fmt.Sprintf("%s %.4g at %s %g", s.Name, xys[len(xys)-1].Y, o.XLabel, xys[len(xys)-1].X))
	}
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	}
	switch o.Legend {
	case "", "top right":
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
