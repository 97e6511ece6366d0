package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)

// ExplanationOptions configure DrawExplanation.
type ExplanationOptions struct {
	// Top is the number of edges with the largest mask drawn thick in
	// red (6, a house motif's edges); the others are drawn in grey with
	// a width that grows with their mask.
	Top int
	// Layout places the neighbourhood's nodes.
	Layout LayoutOptions
}

// maskedEdges draws a subgraph's edges with a width and shade from their
// mask, the top ones dark.
type maskedEdges struct {
	pos  plotter.XYs
	sub  *graph.Graph
	mask []float32 // per edge of sub
	top  []bool
}

func (e maskedEdges) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for pass := 0; pass < 2; pass++ { // the top edges last, on top
		for v := 0; v < e.sub.NumNodes(); v++ {
			for q := e.sub.Indptr[v]; q < e.sub.Indptr[v+1]; q++ {
				u := e.sub.Indices[q]
				if e.top[q] != (pass == 1) {
					continue
				}
				m := float64(e.mask[q])
				st := draw.LineStyle{Color: color.Gray{Y: uint8(225 - 120*m)}, Width: vg.Points(0.3 + 1.5*m)}
				if e.top[q] {
					st = draw.LineStyle{Color: color.RGBA{R: 200, G: 30, B: 30, A: 255}, Width: vg.Points(2.5)}
				}
				c.StrokeLine2(st, trX(e.pos[u].X), trY(e.pos[u].Y), trX(e.pos[v].X), trY(e.pos[v].Y))
			}
		}
	}
}

// DrawExplanation draws a GNNExplainer explanation (nn.ExplainNode): the
// explained node's neighbourhood laid out by force, edges shaded and
// widened by their mask, the Top edges in red, nodes coloured by labels
// (classes of g's nodes; nil: one colour) and the explained node drawn
// larger. Both directions of an undirected edge are drawn, the heavier on
// top.
func DrawExplanation(g *graph.Graph, ex *nn.Explanation, labels []int, o ExplanationOptions) (*Figure, error) {
	if ex == nil || len(ex.Nodes) == 0 {
		return nil, fmt.Errorf("%w: empty explanation", ErrData)
	}
	if len(ex.EdgeMask) != g.NumEdges() {
		return nil, fmt.Errorf("%w: edge mask of %d entries for %d edges (explanation of another graph?)", ErrData, len(ex.EdgeMask), g.NumEdges())
	}
	if labels != nil && len(labels) != g.NumNodes() {
		return nil, fmt.Errorf("%w: %d labels for %d nodes", ErrData, len(labels), g.NumNodes())
	}
	sub, eid, err := g.Subgraph(ex.Nodes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrData, err)
	}
	if o.Top == 0 {
		o.Top = 6
	}
	mask := make([]float32, sub.NumEdges())
	for q, e := range eid {
		mask[q] = ex.EdgeMask[e]
	}
	topIDs := map[int]bool{}
	for _, e := range ex.Top(o.Top) {
		topIDs[e] = true
	}
	top := make([]bool, sub.NumEdges())
	for q, e := range eid {
		top[q] = topIDs[e]
	}
	pos := Layout(sub, o.Layout)
	title := o.Layout.Title
	if title == "" {
		title = fmt.Sprintf("Explanation of node %d (class %d): %d nodes, top %d of %d edges", ex.Node, ex.Class, len(ex.Nodes), min(o.Top, len(ex.Edges)), len(ex.Edges))
	}
	f := NewFigure(title, "", "")
	f.Description = title
	f.Width, f.Height = 5.5*vg.Inch, 5.5*vg.Inch
	p := f.Plot()
	p.HideAxes()
	p.Add(maskedEdges{pos: pos, sub: sub, mask: mask, top: top})
	radius := 3.0
	s := points(pos, Color(0), radius)
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	center := -1
	for i, v := range ex.Nodes {
		if v == ex.Node {
			center = i
		}
	}
	k := 0
	if labels != nil {
		for _, v := range ex.Nodes {
			if labels[v] < 0 {
				return nil, fmt.Errorf("%w: negative label %d", ErrData, labels[v])
			}
			k = max(k, labels[v]+1)
		}
	}
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		gs := s.GlyphStyle
		if labels != nil {
			gs.Color = Color(labels[ex.Nodes[i]])
		}
		if i == center {
			gs.Radius = vg.Points(2.5 * radius)
		}
		return gs
	}
	p.Add(s)
	pad := 0.05
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -pad, 1+pad, -pad, 1+pad
	if labels != nil && k <= 20 {
		classLegend(p, k, radius)
		// The legend goes where it covers no node and no edge; with no
		// free corner, beside the drawing.
		var names []string
		for c := 0; c < k; c++ {
			names = append(names, fmt.Sprintf("class %d", c))
		}
		drawn := append([]plotter.XY{}, pos...)
		for v := 0; v < sub.NumNodes(); v++ {
			for _, u := range sub.Neighbors(v) {
				drawn = append(drawn, densify(plotter.XYs{pos[u], pos[v]}, 12, false, false)...)
			}
		}
		if !placeLegend(f, p, names, drawn, false, false) {
			f.LegendOutside = true
		}
	}
	return f, nil
}
