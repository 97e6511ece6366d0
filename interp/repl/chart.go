package repl

import (
	"image"
	"strings"
)

// Braille draws img as text of at most cols × rows braille characters
// (2 × 4 dots each): a dot is set where its patch of the image has a pixel
// darker than mid-grey, so a plot's axes, lines and labels show on a light
// background. The aspect ratio is kept (a character cell is about twice as
// tall as wide).
func Braille(img image.Image, cols, rows int) string {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 || cols <= 0 || rows <= 0 {
		return ""
	}
	// Dots per pixel along each axis, the same for both (aspect kept).
	scale := min(float64(cols*2)/float64(w), float64(rows*4)/float64(h))
	dw, dh := int(float64(w)*scale), int(float64(h)*scale)
	dw, dh = max(dw, 2), max(dh, 4)
	cw, ch := (dw+1)/2, (dh+3)/4
	dots := make([][]bool, ch*4)
	for y := range dots {
		dots[y] = make([]bool, cw*2)
	}
	for y := 0; y < dh; y++ {
		y0, y1 := b.Min.Y+y*h/dh, b.Min.Y+(y+1)*h/dh
		for x := 0; x < dw; x++ {
			x0, x1 := b.Min.X+x*w/dw, b.Min.X+(x+1)*w/dw
			dots[y][x] = darkest(img, x0, y0, max(x1, x0+1), max(y1, y0+1)) < 0x8000
		}
	}
	// Braille dot bits: columns (0,1), rows 0..3.
	bits := [4][2]rune{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}
	var s strings.Builder
	for cy := 0; cy < ch; cy++ {
		line := make([]rune, cw)
		for cx := 0; cx < cw; cx++ {
			r := rune(0x2800)
			for dy := 0; dy < 4; dy++ {
				for dx := 0; dx < 2; dx++ {
					if dots[cy*4+dy][cx*2+dx] {
						r |= bits[dy][dx]
					}
				}
			}
			line[cx] = r
		}
		s.WriteString(strings.TrimRight(string(line), "\u2800"))
		s.WriteByte('\n')
	}
	return s.String()
}

// darkest returns the lowest luminance (0..0xffff) of the patch, with
// transparent pixels counted as white.
func darkest(img image.Image, x0, y0, x1, y1 int) uint32 {
	lo := uint32(0xffff)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			// Composite on white: c + (1-a).
			r, g, b = r+0xffff-a, g+0xffff-a, b+0xffff-a
			l := (299*r + 587*g + 114*b) / 1000
			lo = min(lo, l)
		}
	}
	return lo
}
