package viz

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gnnlab/gnnlab/viz/display"
)

// Default figure geometry: 6×4 inches fills a JupyterLab output column
// without scrolling, and rendering at twice the CSS pixel density (96 px
// an inch) keeps lines and text crisp on high-density screens.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
	DefaultDPI    = 192
	cssDPI        = 96
)

// Figure is a plot ready to show: one or more gonum plots drawn side by
// side on one canvas, a size and a text description. It implements
// display.Renderer, so a figure that ends a notebook cell shows inline.
type Figure struct {
	// Plots are the panels, drawn left to right. Plots[0] is the main one;
	// change titles, axes or add plotters through them.
	Plots []*plot.Plot
	// Width and Height are the figure's size; DPI the PNG resolution.
	Width, Height vg.Length
	DPI           int
	// Description is the text/plain form: what the figure shows, with its
	// key numbers, for terminals and screen readers.
	Description string
	// LegendOutside draws each panel's legend to the right of its plot,
	// outside the data, which then narrows by the legend's width: for
	// scatter plots and curves that fill the plot, where any corner would
	// cover data.
	LegendOutside bool
}

// NewFigure returns a figure with one titled and labelled plot in the
// house style.
func NewFigure(title, xLabel, yLabel string) *Figure {
	return &Figure{Plots: []*plot.Plot{newPlot(title, xLabel, yLabel)}, Width: DefaultWidth, Height: DefaultHeight, DPI: DefaultDPI, Description: title}
}

// Plot returns the main panel.
func (f *Figure) Plot() *plot.Plot { return f.Plots[0] }

// newPlot returns a plot with the house fonts: slightly larger than gonum's
// defaults so that labels stay readable when JupyterLab scales the image
// down to the column.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 13
	p.Title.Padding = vg.Points(4)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = 11
		a.Tick.Label.Font.Size = 9
	}
	p.Legend.TextStyle.Font.Size = 9
	p.Legend.Padding = vg.Points(3)
	p.Legend.Top = true
	p.X.Tick.Marker, p.Y.Tick.Marker = roundTicks{}, roundTicks{}
	return p
}

// draw draws the panels on c, side by side.
func (f *Figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	if len(f.Plots) == 1 {
		f.drawPlot(f.Plots[0], c)
		return
	}
	t := draw.Tiles{Rows: 1, Cols: len(f.Plots), PadX: vg.Points(6), PadLeft: vg.Points(2), PadRight: vg.Points(4), PadTop: vg.Points(2), PadBottom: vg.Points(2)}
	for i, p := range f.Plots {
		f.drawPlot(p, t.At(c, i, 0))
	}
}

// drawPlot draws one panel, with its legend beside it when LegendOutside.
func (f *Figure) drawPlot(p *plot.Plot, c draw.Canvas) {
	leg := p.Legend
	r := leg.Rectangle(c)
	if !f.LegendOutside || r.Max.X-r.Min.X <= 0 {
		p.Draw(c)
		return
	}
	gap := vg.Points(8)
	w := r.Max.X - r.Min.X + gap
	p.Legend = plot.NewLegend() // empty: the panel draws no legend of its own
	p.Draw(draw.Crop(c, 0, -w, 0, 0))
	p.Legend = leg
	// The strip right of the panel, below the title's line.
	strip := draw.Crop(c, c.Max.X-c.Min.X-w+gap, 0, 0, -vg.Points(24))
	leg.Left, leg.Top, leg.XOffs = true, true, 0
	leg.Draw(strip)
}

func (f *Figure) check() error {
	if f == nil || len(f.Plots) == 0 {
		return fmt.Errorf("viz: empty figure")
	}
	if f.Width <= 0 || f.Height <= 0 {
		return fmt.Errorf("viz: figure size %v×%v", f.Width, f.Height)
	}
	return nil
}

// PNG renders the figure as a PNG image.
func (f *Figure) PNG() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	dpi := f.DPI
	if dpi <= 0 {
		dpi = DefaultDPI
	}
	c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: png: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as an SVG document (fonts embedded).
func (f *Figure) SVG() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := vgsvg.NewWith(vgsvg.UseWH(f.Width, f.Height), vgsvg.EmbedFonts(true))
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: svg: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path in the format its extension names:
// .png, .svg, .pdf, .eps, .jpg, .tiff.
func (f *Figure) Save(path string) error {
	if err := f.check(); err != nil {
		return err
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	var data []byte
	var err error
	switch ext {
	case "png":
		data, err = f.PNG()
	case "svg":
		data, err = f.SVG()
	default:
		c, cerr := draw.NewFormattedCanvas(f.Width, f.Height, ext)
		if cerr != nil {
			return fmt.Errorf("viz: save %s: %w", path, cerr)
		}
		f.draw(draw.New(c))
		var buf bytes.Buffer
		_, err = c.WriteTo(&buf)
		data = buf.Bytes()
	}
	if err != nil {
		return fmt.Errorf("viz: save %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("viz: save: %w", err)
	}
	return nil
}

// Render returns the figure as a display bundle: a PNG sized in CSS
// pixels and the description as text/plain. A rendering error becomes
// the text of the bundle, since a notebook cell has nowhere else to put it.
func (f *Figure) Render() display.Bundle {
	png, err := f.PNG()
	if err != nil {
		return display.Bundle{Data: map[string]any{"text/plain": err.Error()}, Metadata: map[string]any{}}
	}
	return display.PNG(png, f.Description, int(f.Width.Points()*cssDPI/vg.Inch.Points()), int(f.Height.Points()*cssDPI/vg.Inch.Points()))
}

// SVGBundle returns the figure as an image/svg+xml display bundle, for
// figures that should scale (or be copied) as vectors.
func (f *Figure) SVGBundle() display.Bundle {
	svg, err := f.SVG()
	if err != nil {
		return display.Bundle{Data: map[string]any{"text/plain": err.Error()}, Metadata: map[string]any{}}
	}
	return display.SVG(string(svg), f.Description)
}

// Show displays the figure now (not only as a cell's last value).
func (f *Figure) Show() { display.Show(f.Render()) }

// String returns the description.
func (f *Figure) String() string { return f.Description }

// house colours: the Tableau 10 palette, distinguishable and
// colour-blind tolerable; classes beyond ten cycle.
var colors = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

// Color returns the house colour of class or series i.
func Color(i int) color.Color {
	if i < 0 {
		i = -i
	}
	return colors[i%len(colors)]
}

// Must returns f, and panics if err is not nil. It lets a notebook cell
// end with a plot constructor, whose figure then shows inline:
//
//	viz.Must(viz.DegreeHistogram(g, viz.DegreeOptions{}))
//
// (a trailing call with two results would show as text).
func Must(f *Figure, err error) *Figure {
	if err != nil {
		panic(err)
	}
	return f
}
