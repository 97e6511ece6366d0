package graph

import "fmt"

// BAShapesOptions configure BAShapes; the zero value of a field takes the
// GNNExplainer paper's setting.
type BAShapesOptions struct {
	// Base is the number of nodes of the Barabási–Albert base graph (300)
	// and M the edges each of its new nodes brings (5).
	Base, M int
	// Houses is the number of house motifs attached (80).
	Houses int
	// Noise is the number of random edges added, as a fraction of the
	// edges of base graph and houses (0.01; a negative value adds none).
	Noise float64
	// Seed fixes the graph.
	Seed uint64
}

// BAShapes is the synthetic node-classification graph of the GNNExplainer
// paper (Ying et al. 2019): a Barabási–Albert base graph with house
// motifs (a square with a roof, five nodes and six edges) each joined by
// one edge to a random base node, plus random noise edges. Labels are 0
// for base nodes, 1 for the two upper corners of a house (those joined
// to the roof), 2 for the two lower corners and 3 for the roof; the
// attaching edge goes to an upper corner. House h holds nodes Base+5h to
// Base+5h+4: the upper corners (the first one attached), the lower
// corners, the roof. The graph is undirected (both directions stored).
// inMotif[e] reports whether edge e (an edge id of g) lies inside a
// house, the ground truth for explanations.
func BAShapes(o BAShapesOptions) (g *Graph, labels []int, inMotif []bool, err error) {
	if o.Base == 0 {
		o.Base = 300
	}
	if o.M == 0 {
		o.M = 5
	}
	if o.Houses == 0 {
		o.Houses = 80
	}
	if o.Noise == 0 {
		o.Noise = 0.01
	}
	if o.Houses < 0 {
		return nil, nil, nil, fmt.Errorf("graph: BAShapes: %d houses: %w", o.Houses, ErrParam)
	}
	base, err := BarabasiAlbert(o.Base, o.M, o.Seed)
	if err != nil {
		return nil, nil, nil, err
	}
	rng := newRand(o.Seed ^ 0x6a09e667f3bcc908)
	n := o.Base + 5*o.Houses
	labels = make([]int, n)
	var a, b []int
	// Each undirected base edge once (u < v).
	for v := 0; v < base.NumNodes(); v++ {
		for _, u := range base.Neighbors(v) {
			if u < v {
				a, b = append(a, u), append(b, v)
			}
		}
	}
	motif := map[[2]int]bool{}
	for h := 0; h < o.Houses; h++ {
		s := o.Base + 5*h
		// Corners s, s+1 (upper), s+2, s+3 (lower) form a square; s+4 is
		// the roof on the upper corners.
		for _, e := range [][2]int{{s, s + 1}, {s + 1, s + 2}, {s + 2, s + 3}, {s + 3, s}, {s + 4, s}, {s + 4, s + 1}} {
			a, b = append(a, e[0]), append(b, e[1])
			motif[[2]int{e[0], e[1]}], motif[[2]int{e[1], e[0]}] = true, true
		}
		labels[s], labels[s+1], labels[s+2], labels[s+3], labels[s+4] = 1, 1, 2, 2, 3
		a, b = append(a, rng.IntN(o.Base)), append(b, s)
	}
	noise := 0
	if o.Noise > 0 {
		noise = int(o.Noise * float64(len(a)))
	}
	for k := 0; k < noise; k++ {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v && !motif[[2]int{u, v}] {
			a, b = append(a, u), append(b, v)
		}
	}
	// undirected merges the duplicates a noise edge may repeat.
	g = undirected(n, a, b).Coalesce()
	inMotif = make([]bool, g.NumEdges())
	for v := 0; v < n; v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			inMotif[e] = motif[[2]int{g.Indices[e], v}]
		}
	}
	return g, labels, inMotif, nil
}
