package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// line returns a line plotter of xys in colour c, width w points, dashed
// when dash is set.
func line(xys plotter.XYs, c color.Color, w float64, dash bool) *plotter.Line {
	l := &plotter.Line{XYs: xys}
	l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(w)}
	if dash {
		l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return l
}

// points returns a scatter of xys drawn as filled circles.
func points(xys plotter.XYs, c color.Color, radius float64) *plotter.Scatter {
	return &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(radius), Shape: draw.CircleGlyph{}}}
}

// fade returns c with alpha a (0–255), premultiplied as image/color wants.
func fade(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	k := uint32(a)
	return color.RGBA{uint8(r >> 8 * k / 255), uint8(g >> 8 * k / 255), uint8(b >> 8 * k / 255), a}
}

// grid adds light grid lines to p.
func grid(p *plot.Plot) {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
}

// label returns a text-label plotter with one label, in small type.
func label(x, y float64, s string, c color.Color, dx, dy float64) (*plotter.Labels, error) {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{s}})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = 9
		l.TextStyle[i].Color = c
	}
	l.Offset = vg.Point{X: vg.Points(dx), Y: vg.Points(dy)}
	return l, nil
}

var (
	black = color.Black
	gray  = color.Gray{Y: 120}
)

// classLegend adds one legend entry a class, "class 0" … "class k−1",
// with glyphs of radius r.
func classLegend(p *plot.Plot, k int, r float64) {
	if k > 20 {
		return // a legend of more than 20 entries hides the plot
	}
	for c := 0; c < k; c++ {
		p.Legend.Add(fmt.Sprintf("class %d", c), points(nil, Color(c), max(r, 2.5)))
	}
}
