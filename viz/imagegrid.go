package viz

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ImageGrid draws images as a grid of grey tiles, cols a row (0: about
// square). images is N×C×H×W (each channel its own tile: conv filters,
// feature maps), N×H×W or H×W. Tiles whose values lie in [0, 1] (MNIST
// digits) are drawn as they are; others are stretched from their own
// minimum to their maximum, so that filters of any scale show.
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
	for t := 0; t < n; t++ {
		tile := data[t*h*w : (t+1)*h*w]
		lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
		for _, v := range tile {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo >= 0 && hi <= 1 {
			lo, hi = 0, 1
		}
		span := hi - lo
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
	p.Add(plotter.NewImage(img, 0, 0, float64(b.Dx()), float64(b.Dy())))
	// Keep the aspect ratio: the width is fixed, the height follows.
	aspect := float64(b.Dy()) / float64(b.Dx())
	f.Height = vg.Length(math.Min(9, math.Max(1.5, 5.6*aspect+0.45))) * vg.Inch
	f.Width = vg.Length(math.Min(6, (f.Height.Points()/72-0.45)/aspect+0.4)) * vg.Inch
	return f, nil
}
