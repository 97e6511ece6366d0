package viz

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ImageGrid draws images as a grid of grey tiles, cols a row (0: about
// square). images is N×C×H×W (each channel its own tile: conv filters,
// feature maps), N×H×W or H×W. High values are dark, as ink on paper.
// Values in [0, 1] (MNIST digits) are drawn as they are, white 0 to black
// 1. Other values share one scale across all tiles, so that tiles can be
// compared, with a colour bar beside the grid; when they have both signs
// the scale is symmetric about 0, so that 0 is mid grey.
func ImageGrid(images *tensor.Tensor, cols int) (*Figure, error) {
	if images == nil {
		return nil, fmt.Errorf("%w: nil images", ErrData)
	}
	s := images.Shape()
	var n, h, w int
	switch len(s) {
	case 2:
		n, h, w = 1, s[0], s[1]
	case 3:
		n, h, w = s[0], s[1], s[2]
	case 4:
		n, h, w = s[0]*s[1], s[2], s[3]
	default:
		return nil, fmt.Errorf("%w: images of shape %v, want H×W, N×H×W or N×C×H×W", ErrData, s)
	}
	if images.IsSparse() {
		images = images.ToDense()
	}
	return ImageGridData(images.Data(), n, h, w, cols)
}

// ImageGridData is ImageGrid for n images of h×w values, row-major, one
// after the other.
func ImageGridData(data []float32, n, h, w, cols int) (*Figure, error) {
	if n < 1 || h < 1 || w < 1 || len(data) != n*h*w {
		return nil, fmt.Errorf("%w: %d values for %d images of %d×%d", ErrData, len(data), n, h, w)
	}
	if cols <= 0 {
		cols = int(math.Ceil(math.Sqrt(float64(n))))
	}
	cols = min(cols, n)
	rows := (n + cols - 1) / cols
	// The figure is about 6 inches wide at 192 dpi: scale each tile by an
	// integer factor (nearest neighbour, so pixels stay square and sharp)
	// to about its final size.
	const pad = 1
	scale := max(1, int(6*DefaultDPI/float64(cols*(w+pad))))
	tw, th := w*scale, h*scale
	gap := max(1, scale)
	img := image.NewGray(image.Rect(0, 0, cols*(tw+gap)-gap, rows*(th+gap)-gap))
	for i := range img.Pix {
		img.Pix[i] = 255 // white gaps
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, v := range data {
		lo, hi = min(lo, v), max(hi, v)
	}
	bar := true
	switch {
	case lo >= 0 && hi <= 1:
		lo, hi, bar = 0, 1, false
	case lo < 0 && hi > 0:
		m := max(-lo, hi)
		lo, hi = -m, m
	}
	span := hi - lo
	for t := 0; t < n; t++ {
		tile := data[t*h*w : (t+1)*h*w]
		x0, y0 := (t%cols)*(tw+gap), (t/cols)*(th+gap)
		for y := 0; y < th; y++ {
			for x := 0; x < tw; x++ {
				v := tile[(y/scale)*w+x/scale]
				g := float32(0)
				if span > 0 {
					g = (v - lo) / span
				}
				// Dark ink on light paper, as digits are printed.
				img.SetGray(x0+x, y0+y, color.Gray{Y: uint8(255 - math.Round(float64(g)*255))})
			}
		}
	}
	b := img.Bounds()
	title := fmt.Sprintf("%d images of %d×%d", n, h, w)
	f := NewFigure(title, "", "")
	f.Description = title
	p := f.Plot()
	p.HideAxes()
	gw, gh := float64(b.Dx()), float64(b.Dy())
	p.Add(plotter.NewImage(img, 0, 0, gw, gh))
	total := gw
	if bar {
		f.Description += fmt.Sprintf(", one grey scale from %.3g (white) to %.3g (black)", lo, hi)
		total = addColorBar(p, gw, gh, lo, hi)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, total, 0, gh
	// Keep the aspect ratio: the width is fixed, the height follows.
	aspect := gh / total
	f.Height = vg.Length(math.Min(9, math.Max(1.5, 5.6*aspect+0.45))) * vg.Inch
	f.Width = vg.Length(math.Min(6, (f.Height.Points()/72-0.45)/aspect+0.4)) * vg.Inch
	return f, nil
}

// addColorBar draws a vertical grey ramp from lo (bottom, white) to hi
// (top, black) to the right of a grid gw×gh wide, labelled at its ends
// and at 0 when 0 lies inside, and returns the width the plot needs.
func addColorBar(p *plot.Plot, gw, gh float64, lo, hi float32) float64 {
	const steps = 256
	ramp := image.NewGray(image.Rect(0, 0, 1, steps))
	for y := 0; y < steps; y++ {
		ramp.SetGray(0, y, color.Gray{Y: uint8(y * 255 / (steps - 1))}) // top row black
	}
	x0 := gw + math.Max(4, gw/50)
	x1 := x0 + math.Max(6, gw/40)
	p.Add(plotter.NewImage(ramp, x0, 0, x1, gh))
	vals := []float32{lo, hi}
	if lo < 0 && hi > 0 {
		vals = append(vals, 0)
	}
	var xys plotter.XYs
	var names []string
	for _, v := range vals {
		xys = append(xys, plotter.XY{X: x1, Y: gh * float64(v-lo) / float64(hi-lo)})
		names = append(names, strconv.FormatFloat(float64(v), 'g', 3, 32))
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return x1 // cannot happen: as many labels as points
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = 9
		labels.TextStyle[i].XAlign = draw.XLeft
		labels.TextStyle[i].YAlign = draw.YCenter
	}
	labels.Offset = vg.Point{X: vg.Points(3)}
	p.Add(labels)
	// Room for the labels: about 0.45 inch of a figure at most 6 inches wide.
	return x1 + 0.09*(x1+0.09*gw)
}
