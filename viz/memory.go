package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
)

// phaseColors are the shades of the usual training phases; other phase
// names take the house colours in order of appearance.
var phaseColors = map[string]color.Color{
	"forward":   Color(0),
	"backward":  Color(1),
	"step":      Color(2),
	"optimizer": Color(2),
}

// Memory plots a memory profile over time: the Go heap (and the device
// memory when there is a device), the live heap at the marks that
// measured it (prof.MemoryTracker.MarkLive), the phases between marks
// shaded and named in the legend, and the peak annotated.
func Memory(m *prof.MemoryProfile) (*Figure, error) {
	if m == nil || len(m.Samples) == 0 {
		return nil, fmt.Errorf("%w: empty memory profile", ErrData)
	}
	const mib = 1 << 20
	f := NewFigure("Memory during the run", "time (ms)", "MiB")
	f.Description = "Memory during the run: " + m.String()
	p := f.Plot()
	ms := func(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1e3 }
	end := ms(m.Duration)
	if last := ms(m.Samples[len(m.Samples)-1].T); last > end {
		end = last
	}
	// Headroom above the peak holds the legend and the peak's label.
	top := float64(max(m.Peak, m.DevicePeak)) / mib * 1.35
	// Phases first, so that the curves draw over them.
	seen := map[string]bool{}
	shade := map[string]color.Color{}
	for k, v := range phaseColors {
		shade[k] = v
	}
	next := 6 // after the curves' colours
	for i, mk := range m.Marks {
		to := end
		if i+1 < len(m.Marks) {
			to = ms(m.Marks[i+1].T)
		}
		c, ok := shade[mk.Name]
		if !ok {
			c = Color(next)
			shade[mk.Name] = c
			next++
		}
		from := ms(mk.T)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: from, Y: 0}, {X: to, Y: 0}, {X: to, Y: top}, {X: from, Y: top}})
		if err != nil {
			return nil, fmt.Errorf("viz: memory: %w", err)
		}
		poly.Color = fade(c, 50)
		poly.LineStyle.Width = 0
		p.Add(poly)
		if !seen[mk.Name] {
			seen[mk.Name] = true
			p.Legend.Add(mk.Name, swatch{tint(c, 120)})
		}
	}
	heap := make(plotter.XYs, len(m.Samples))
	dev := make(plotter.XYs, len(m.Samples))
	for i, s := range m.Samples {
		heap[i] = plotter.XY{X: ms(s.T), Y: float64(s.Heap) / mib}
		dev[i] = plotter.XY{X: ms(s.T), Y: float64(s.Device) / mib}
	}
	l := line(heap, black, 1.5, false)
	p.Add(l)
	p.Legend.Add("host (Go heap, with garbage)", l)
	var live plotter.XYs
	for _, mk := range m.Marks {
		if mk.Live > 0 {
			live = append(live, plotter.XY{X: ms(mk.T), Y: float64(mk.Live) / mib})
		}
	}
	if len(live) > 0 {
		ll := line(live, Color(5), 2, false)
		p.Add(ll, points(live, Color(5), 3))
		p.Legend.Add("live heap after GC, at each mark", ll)
	}
	if m.HasDevice {
		d := line(dev, Color(3), 1.5, false)
		p.Add(d)
		p.Legend.Add("device", d)
	}
	px, py := ms(m.PeakAt), float64(m.Peak)/mib
	pk := points(plotter.XYs{{X: px, Y: py}}, Color(3), 3)
	p.Add(pk)
	lab, err := label(px, py, fmt.Sprintf("peak %s", prof.Bytes(m.Peak)), black, 4, 3)
	if err != nil {
		return nil, fmt.Errorf("viz: memory: %w", err)
	}
	if px > 0.6*end { // keep the text inside the plot
		lab.TextStyle[0].XAlign = draw.XRight
		lab.Offset.X = -vg.Points(4)
	}
	p.Add(lab)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, end, 0, top
	return f, nil
}

// swatch is an opaque legend patch: a translucent one would blend with
// the phase shading under the legend.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.c)
	c.Fill(c.Rectangle.Path())
}

// tint returns c mixed with white as if drawn with alpha a on white.
func tint(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8*uint32(a) + 255*(255-uint32(a))) / 255) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}
