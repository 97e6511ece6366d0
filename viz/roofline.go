package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
)

// RooflinePoint is a measured op placed on a roofline.
type RooflinePoint struct {
	Name string
	// Intensity is the op's arithmetic intensity in FLOP/byte.
	Intensity float64
	// GFLOPs is the rate it attained in GFLOP/s.
	GFLOPs float64
}

// RooflinePoints returns the top ops of an op profile (0: up to 8) that
// did floating-point work, as roofline points.
func RooflinePoints(r *prof.OpReport, top int) []RooflinePoint {
	if top <= 0 {
		top = 8
	}
	var pts []RooflinePoint
	for _, row := range r.Rows {
		if len(pts) == top {
			break
		}
		if row.FLOPs > 0 && row.Bytes > 0 && row.Time > 0 {
			pts = append(pts, RooflinePoint{Name: row.Name(), Intensity: row.Intensity(), GFLOPs: row.GFLOPs()})
		}
	}
	return pts
}

// Roofline draws the roofline of a machine with the given compute peak
// (GFLOP/s) and bandwidth (GB/s) on log-log axes, min(peak, intensity ×
// bandwidth), with the measured points labelled. Points under the
// slanted roof are memory bound; under the flat one, compute bound.
func Roofline(peakGFLOPs, peakGBs float64, points []RooflinePoint) (*Figure, error) {
	if !(peakGFLOPs > 0) || !(peakGBs > 0) {
		return nil, fmt.Errorf("%w: peaks %v GFLOP/s, %v GB/s", ErrData, peakGFLOPs, peakGBs)
	}
	ridge := peakGFLOPs / peakGBs
	lo, hi := ridge/32, ridge*32
	ylo := peakGFLOPs
	for _, pt := range points {
		if !(pt.Intensity > 0) || !(pt.GFLOPs > 0) {
			return nil, fmt.Errorf("%w: point %q has intensity %v, rate %v", ErrData, pt.Name, pt.Intensity, pt.GFLOPs)
		}
		lo, hi = math.Min(lo, pt.Intensity/2), math.Max(hi, pt.Intensity*2)
		ylo = math.Min(ylo, pt.GFLOPs)
	}
	ylo = math.Min(ylo, lo*peakGBs)
	f := NewFigure(fmt.Sprintf("Roofline: %.3g GFLOP/s, %.3g GB/s", peakGFLOPs, peakGBs), "arithmetic intensity (FLOP/byte)", "GFLOP/s")
	f.Description = fmt.Sprintf("Roofline with peaks %.4g GFLOP/s and %.4g GB/s (ridge %.3g FLOP/byte); points %v", peakGFLOPs, peakGBs, ridge, points)
	p := f.Plot()
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	grid(p)
	roof := line(plotter.XYs{{X: lo, Y: lo * peakGBs}, {X: ridge, Y: peakGFLOPs}, {X: hi, Y: peakGFLOPs}}, black, 2, false)
	p.Add(roof)
	p.Legend.Add(fmt.Sprintf("roof (ridge %.3g FLOP/B)", ridge), roof)
	for i, pt := range points {
		s := points1(pt, i)
		p.Add(s)
		l, err := label(pt.Intensity, pt.GFLOPs, pt.Name, black, 4, 2)
		if err != nil {
			return nil, fmt.Errorf("viz: roofline: %w", err)
		}
		p.Add(l)
	}
	p.Legend.Left = true
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = ylo/2, peakGFLOPs*2
	return f, nil
}

func points1(pt RooflinePoint, i int) *plotter.Scatter {
	return points(plotter.XYs{{X: pt.Intensity, Y: pt.GFLOPs}}, Color(i), 3.5)
}
