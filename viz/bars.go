package viz

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
	"github.com/gnnlab/gnnlab/viz/display"
)

// GroupedBars draws one group of bars per entry of groups, one bar a
// series in each: values[s][g] is series s in group g. Use it for
// comparisons such as FP32 against INT8 (series) in accuracy, size and
// time (groups; normalise them to one scale first), or CPU against GPU.
// The y axis leaves room above the bars for the legend, and when all
// values are positive and differ by less than a fifth of the largest it
// starts below the shortest bar instead of at 0 (the description says so).
func GroupedBars(groups, series []string, values [][]float64) (*Figure, error) {
	return groupedBars(groups, series, values, nil)
}

// GroupedBarsErr is GroupedBars with an error bar on each bar, from
// values[s][g] − errs[s][g] to values[s][g] + errs[s][g]: for bars that
// are means of seeds (errs their standard errors or 95 % half-widths; say
// which in the series name or the title). errs has the shape of values;
// NaN draws no bar.
func GroupedBarsErr(groups, series []string, values, errs [][]float64) (*Figure, error) {
	if len(errs) != len(values) {
		return nil, fmt.Errorf("%w: %d error rows for %d value rows", ErrData, len(errs), len(values))
	}
	for s := range errs {
		if len(errs[s]) != len(values[s]) {
			return nil, fmt.Errorf("%w: series %d has %d errors for %d values", ErrData, s, len(errs[s]), len(values[s]))
		}
	}
	return groupedBars(groups, series, values, errs)
}

func groupedBars(groups, series []string, values, errs [][]float64) (*Figure, error) {
	if len(groups) == 0 || len(series) == 0 || len(values) != len(series) {
		return nil, fmt.Errorf("%w: %d groups, %d series, %d value rows", ErrData, len(groups), len(series), len(values))
	}
	for s, row := range values {
		if len(row) != len(groups) {
			return nil, fmt.Errorf("%w: series %q has %d values for %d groups", ErrData, series[s], len(row), len(groups))
		}
	}
	title := strings.Join(series, " vs ")
	f := NewFigure(title, "", "")
	p := f.Plot()
	grid(p)
	// Bars share 80% of a group's slot on a ~5 inch wide axis.
	slot := 4.6 * vg.Inch / vg.Length(len(groups))
	w := 0.8 * slot / vg.Length(len(series))
	var desc []string
	for s, row := range values {
		b, err := plotter.NewBarChart(plotter.Values(row), w)
		if err != nil {
			return nil, fmt.Errorf("viz: grouped bars: %w", err)
		}
		b.Color = Color(s)
		b.LineStyle.Width = 0
		b.Offset = w * (vg.Length(s) - vg.Length(len(series)-1)/2)
		p.Add(b)
		p.Legend.Add(series[s], b)
		if errs != nil {
			p.Add(barErrors{vals: row, errs: errs[s], offset: b.Offset, cap: w / 4})
			desc = append(desc, fmt.Sprintf("%s %v ± %v", series[s], round3(row), round3(errs[s])))
		} else {
			desc = append(desc, fmt.Sprintf("%s %v", series[s], round3(row)))
		}
	}
	p.NominalX(groups...)
	f.Description = fmt.Sprintf("%s over %s: %s", title, strings.Join(groups, ", "), strings.Join(desc, "; "))
	lo, hi := math.Inf(1), math.Inf(-1)
	for s, row := range values {
		for g, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			e := 0.0
			if errs != nil && !math.IsNaN(errs[s][g]) && !math.IsInf(errs[s][g], 0) {
				e = math.Abs(errs[s][g])
			}
			lo, hi = min(lo, v-e), max(hi, v+e)
		}
	}
	if lo > hi { // no finite values
		return f, nil
	}
	bottom, top := min(0, lo), max(0, hi)
	if lo > 0 && hi-lo < 0.2*hi {
		// Differences of a few percent (accuracies of 81.6% against 82.3%)
		// vanish on an axis from 0: start it below the shortest bar, so that
		// the bars' tops differ visibly; the axis' ticks show where it starts.
		bottom = max(0, lo-max(hi-lo, 0.01*hi))
		f.Description += fmt.Sprintf(" (y axis from %.3g, not 0)", bottom)
	}
	// Headroom for the legend at the top: about 0.2 inch a series on a
	// 4 inch figure, so that it does not cover the tallest bars.
	frac := min(0.5, 0.05*float64(len(series))+0.04)
	p.Y.Min, p.Y.Max = bottom, top+(top-bottom)*frac/(1-frac)
	return f, nil
}

// OpProfile draws the top ops of an op profile (0: up to 15) as
// horizontal bars of their time, forward and backward passes in two
// colours, with the coverage of the step in the title.
func OpProfile(r *prof.OpReport, top int) (*Figure, error) {
	if r == nil || len(r.Rows) == 0 {
		return nil, fmt.Errorf("%w: empty op profile", ErrData)
	}
	if top <= 0 {
		top = 15
	}
	rows := r.Top(top)
	f := NewFigure(fmt.Sprintf("Op profile: ops take %.1f%% of %.3g ms", 100*r.Coverage(), r.Wall.Seconds()*1e3), "time (ms)", "")
	f.Description = r.String()
	f.Height = vg.Length(min(8, 1.2+0.28*float64(len(rows)))) * vg.Inch
	p := f.Plot()
	names := make([]string, len(rows))
	fwd, bwd := make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
	for i, row := range rows {
		// Top row first: the y axis counts upwards.
		j := len(rows) - 1 - i
		names[j] = fmt.Sprintf("%s ×%d", row.Name(), row.Calls)
		if row.Backward {
			bwd[j] = row.Time.Seconds() * 1e3
		} else {
			fwd[j] = row.Time.Seconds() * 1e3
		}
	}
	bar := vg.Points(min(14, 200/float64(len(rows))))
	for i, vals := range []plotter.Values{fwd, bwd} {
		b, err := plotter.NewBarChart(vals, bar)
		if err != nil {
			return nil, fmt.Errorf("viz: op profile: %w", err)
		}
		b.Horizontal = true
		b.Color = Color(i)
		b.LineStyle.Width = 0
		p.Add(b)
		p.Legend.Add([]string{"forward", "backward"}[i], b)
	}
	p.NominalY(names...)
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(4)
	p.Y.Tick.Label.Font.Size = 8
	p.X.Min = 0
	p.X.Max = rows[0].Time.Seconds() * 1e3 * 1.08
	return f, nil
}

// Table is an HTML table with a text form, shown by notebooks as HTML.
type Table struct {
	HTML, Text string
}

// Render returns the table as a display bundle.
func (t Table) Render() display.Bundle {
	return display.Bundle{Data: map[string]any{"text/html": t.HTML, "text/plain": t.Text}, Metadata: map[string]any{}}
}

// String returns the text form.
func (t Table) String() string { return t.Text }

// ProfileTable returns an op profile as a table that shows as HTML in a
// notebook (prof itself knows nothing of notebooks).
func ProfileTable(r *prof.OpReport) Table { return Table{HTML: r.HTML(), Text: r.String()} }

// barErrors draws an error bar over each bar of one series of a grouped
// bar chart: group g's bar stands at x = g, shifted by the series' offset.
type barErrors struct {
	vals, errs  []float64
	offset, cap vg.Length
}

func (b barErrors) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for g, v := range b.vals {
		e := b.errs[g]
		if math.IsNaN(v) || math.IsNaN(e) || math.IsInf(v, 0) || math.IsInf(e, 0) {
			continue
		}
		x := trX(float64(g)) + b.offset
		lo, hi := trY(v-e), trY(v+e)
		c.StrokeLine2(sty, x, lo, x, hi)
		c.StrokeLine2(sty, x-b.cap, lo, x+b.cap, lo)
		c.StrokeLine2(sty, x-b.cap, hi, x+b.cap, hi)
	}
}
