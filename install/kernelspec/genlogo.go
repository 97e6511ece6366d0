//go:build ignore

// genlogo draws the kernel's logos: a small graph (five nodes, their
// edges) in Go's blue on a white disc. Run with go generate in install/.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	for _, size := range []int{32, 64} {
		img := draw(size)
		f, err := os.Create("logo-" + itoa(size) + "x" + itoa(size) + ".png")
		if err != nil {
			log.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
}

func itoa(n int) string {
	if n == 32 {
		return "32"
	}
	return "64"
}

func draw(size int) *image.NRGBA {
	const ss = 4 // supersampling per axis
	s := float64(size)
	blue := color.NRGBA{0x00, 0xAD, 0xD8, 0xFF}
	dark := color.NRGBA{0x00, 0x5B, 0x7F, 0xFF}
	// Nodes in unit coordinates, and the edges between them.
	nodes := [][2]float64{{0.5, 0.2}, {0.2, 0.45}, {0.8, 0.45}, {0.32, 0.8}, {0.68, 0.8}}
	edges := [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 4}, {1, 2}, {0, 3}}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					px := (float64(x) + (float64(sx)+0.5)/ss) / s
					py := (float64(y) + (float64(sy)+0.5)/ss) / s
					c, ok := shade(px, py, nodes, edges, blue, dark)
					if ok {
						r += float64(c.R)
						g += float64(c.G)
						b += float64(c.B)
						a += 255
					}
				}
			}
			n := float64(ss * ss)
			if a > 0 {
				img.SetNRGBA(x, y, color.NRGBA{uint8(r / (a / 255)), uint8(g / (a / 255)), uint8(b / (a / 255)), uint8(a / n)})
			}
		}
	}
	return img
}

func shade(px, py float64, nodes [][2]float64, edges [][2]int, blue, dark color.NRGBA) (color.NRGBA, bool) {
	for _, n := range nodes {
		if math.Hypot(px-n[0], py-n[1]) < 0.09 {
			return dark, true
		}
	}
	for _, e := range edges {
		a, b := nodes[e[0]], nodes[e[1]]
		if segDist(px, py, a, b) < 0.03 {
			return blue, true
		}
	}
	if math.Hypot(px-0.5, py-0.5) < 0.49 {
		return color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}, true
	}
	return color.NRGBA{}, false
}

func segDist(px, py float64, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := ((px-a[0])*dx + (py-a[1])*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(px-(a[0]+t*dx), py-(a[1]+t*dy))
}
