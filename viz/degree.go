package viz

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// ErrData is wrapped by the errors of constructors given data they cannot
// plot (empty, mismatched lengths, out-of-range labels).
var ErrData = errors.New("viz: bad data")

// Degreer is what DegreeHistogram needs of a graph; *graph.Graph is one.
type Degreer interface {
	InDegrees() []int
}

// Degrees adapts a plain degree slice to Degreer.
type Degrees []int

// InDegrees returns d.
func (d Degrees) InDegrees() []int { return d }

// Scale selects the panels of a degree histogram.
type Scale int

const (
	// Both draws a linear and a log-log panel side by side.
	Both Scale = iota
	// Linear draws counts against degree on linear axes.
	Linear
	// LogLog draws counts against degree on logarithmic axes, where a
	// power law is a straight line.
	LogLog
)

// DegreeOptions configure DegreeHistogram.
type DegreeOptions struct {
	// Scale picks the panels (default Both).
	Scale Scale
	// MinDegree is where the power-law fit starts; 0 chooses it as
	// Clauset, Shalizi and Newman do, minimising the Kolmogorov–Smirnov
	// distance between the data and the fit.
	MinDegree int
	// Title replaces the default title.
	Title string
}

// PowerLaw is a power law p(d) ∝ d^−Alpha fitted to the tail d ≥ MinDegree.
type PowerLaw struct {
	Alpha     float64
	MinDegree int
	// Tail is the number of nodes with degree ≥ MinDegree, and KS the
	// Kolmogorov–Smirnov distance of the fit over them.
	Tail int
	KS   float64
}

// String formats the fit, e.g. "α = 2.31 (d ≥ 4, 812 nodes)".
func (p PowerLaw) String() string {
	return fmt.Sprintf("α = %.2f (d ≥ %d, %d nodes)", p.Alpha, p.MinDegree, p.Tail)
}

// count returns the expected number of nodes of degree d, in the
// continuous approximation with the usual half-degree correction.
func (p PowerLaw) count(d float64) float64 {
	lo := float64(p.MinDegree) - 0.5
	return float64(p.Tail) * (p.Alpha - 1) / lo * math.Pow(d/lo, -p.Alpha)
}

// FitPowerLaw fits a power law to the degrees ≥ minDegree by maximum
// likelihood (α = 1 + n / Σ ln(d/(dmin − ½)), the discrete approximation
// of Clauset, Shalizi and Newman 2009). minDegree 0 tries every degree
// that leaves at least 10 nodes in the tail and keeps the one with the
// smallest Kolmogorov–Smirnov distance.
func FitPowerLaw(degrees []int, minDegree int) (PowerLaw, error) {
	ds := make([]int, 0, len(degrees))
	for _, d := range degrees {
		if d > 0 {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	if len(ds) < 2 {
		return PowerLaw{}, fmt.Errorf("%w: %d nonzero degrees, need 2 to fit a power law", ErrData, len(ds))
	}
	if minDegree > 0 {
		return fitTail(ds, minDegree)
	}
	best := PowerLaw{KS: math.Inf(1)}
	for i := 0; i < len(ds); i++ {
		if i > 0 && ds[i] == ds[i-1] {
			continue
		}
		if len(ds)-i < 10 && i > 0 {
			break
		}
		p, err := fitTail(ds, ds[i])
		if err == nil && p.KS < best.KS {
			best = p
		}
	}
	if math.IsInf(best.KS, 1) {
		return PowerLaw{}, fmt.Errorf("%w: degrees too concentrated for a power-law fit", ErrData)
	}
	return best, nil
}

// fitTail fits the sorted degrees ≥ dmin.
func fitTail(sorted []int, dmin int) (PowerLaw, error) {
	i, _ := slices.BinarySearch(sorted, dmin)
	tail := sorted[i:]
	lo := float64(dmin) - 0.5
	var s float64
	for _, d := range tail {
		s += math.Log(float64(d) / lo)
	}
	if len(tail) < 2 || s == 0 {
		return PowerLaw{}, fmt.Errorf("%w: %d nodes with degree ≥ %d, need 2 distinct degrees", ErrData, len(tail), dmin)
	}
	p := PowerLaw{Alpha: 1 + float64(len(tail))/s, MinDegree: dmin, Tail: len(tail)}
	// KS distance between the empirical and fitted CDFs at each degree.
	n := float64(len(tail))
	for j := 0; j < len(tail); {
		k := j
		for k < len(tail) && tail[k] == tail[j] {
			k++
		}
		fit := 1 - math.Pow((float64(tail[j])+0.5)/lo, 1-p.Alpha)
		p.KS = max(p.KS, math.Abs(float64(k)/n-fit))
		j = k
	}
	return p, nil
}

// DegreeHistogram plots the degree distribution of g with the fitted
// power law drawn over it and its exponent in the legend.
func DegreeHistogram(g Degreer, o DegreeOptions) (*Figure, error) {
	deg := g.InDegrees()
	if len(deg) == 0 {
		return nil, fmt.Errorf("%w: graph without nodes", ErrData)
	}
	fit, err := FitPowerLaw(deg, o.MinDegree)
	if err != nil {
		return nil, err
	}
	maxDeg := slices.Max(deg)
	counts := make([]int, maxDeg+1)
	var sum int
	for _, d := range deg {
		counts[d]++
		sum += d
	}
	title := o.Title
	if title == "" {
		title = fmt.Sprintf("Degree distribution (%d nodes, mean degree %.2f)", len(deg), float64(sum)/float64(len(deg)))
	}
	fitLabel := fmt.Sprintf("power law α = %.2f (d ≥ %d)", fit.Alpha, fit.MinDegree)
	f := &Figure{Width: DefaultWidth, Height: DefaultHeight, DPI: DefaultDPI,
		Description: fmt.Sprintf("%s; %s", title, fit)}
	if o.Scale == Both || o.Scale == Linear {
		p, err := degreeLinear(counts, fit, fitLabel)
		if err != nil {
			return nil, err
		}
		f.Plots = append(f.Plots, p)
	}
	if o.Scale == Both || o.Scale == LogLog {
		p, err := degreeLogLog(counts, fit, fitLabel)
		if err != nil {
			return nil, err
		}
		f.Plots = append(f.Plots, p)
	}
	if len(f.Plots) == 0 {
		return nil, fmt.Errorf("%w: unknown scale %d", ErrData, o.Scale)
	}
	if len(f.Plots) == 2 {
		f.Width = 9 * DefaultWidth / 6
		f.Plots[0].Title.Text = title
		f.Plots[1].Title.Text = "log-log"
	} else {
		f.Plots[0].Title.Text = title
	}
	return f, nil
}

func fitLine(fit PowerLaw, from, to float64, n int, log bool) plotter.XYs {
	xys := make(plotter.XYs, n)
	for i := range xys {
		t := float64(i) / float64(n-1)
		x := from + t*(to-from)
		if log {
			x = from * math.Pow(to/from, t)
		}
		xys[i] = plotter.XY{X: x, Y: fit.count(x)}
	}
	return xys
}

func degreeLinear(counts []int, fit PowerLaw, fitLabel string) (*plot.Plot, error) {
	p := newPlot("", "degree", "nodes")
	// Past the 99th percentile the bars are too thin to see: cut the axis
	// there and say so.
	n := 0
	for _, c := range counts {
		n += c
	}
	cut, acc := len(counts)-1, 0
	for d, c := range counts {
		acc += c
		if float64(acc) >= 0.99*float64(n) {
			cut = max(d, 10)
			break
		}
	}
	cut = min(cut, len(counts)-1)
	xys := make(plotter.XYs, cut+1)
	for d := 0; d <= cut; d++ {
		xys[d] = plotter.XY{X: float64(d), Y: float64(counts[d])}
	}
	h, err := plotter.NewHistogram(xys, cut+1)
	if err != nil {
		return nil, fmt.Errorf("viz: degree histogram: %w", err)
	}
	h.FillColor = fade(Color(0), 200)
	h.LineStyle.Width = 0
	p.Add(h)
	l := line(fitLine(fit, float64(fit.MinDegree), float64(cut)+0.5, 200, false), Color(3), 1.5, false)
	p.Add(l)
	p.Legend.Add(fitLabel, l)
	p.Y.Min = 0
	if cut < len(counts)-1 {
		p.X.Label.Text = fmt.Sprintf("degree (99%% of nodes; max %d)", len(counts)-1)
	}
	return p, nil
}

func degreeLogLog(counts []int, fit PowerLaw, fitLabel string) (*plot.Plot, error) {
	p := newPlot("", "degree", "nodes")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	var xys plotter.XYs
	for d := 1; d < len(counts); d++ {
		if counts[d] > 0 {
			xys = append(xys, plotter.XY{X: float64(d), Y: float64(counts[d])})
		}
	}
	grid(p)
	pts := points(xys, Color(0), 2.5)
	p.Add(pts)
	p.Legend.Add("nodes of each degree", pts)
	lineXY := fitLine(fit, float64(fit.MinDegree), float64(len(counts)-1), 100, true)
	var keep plotter.XYs
	for _, xy := range lineXY {
		if xy.Y >= 0.3 { // below a third of a node the line only adds empty axis
			keep = append(keep, xy)
		}
	}
	if len(keep) >= 2 {
		l := line(keep, Color(3), 1.5, false)
		p.Add(l)
		p.Legend.Add(fitLabel, l)
	}
	return p, nil
}
