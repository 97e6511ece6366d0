package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// ErrBadEdge is wrapped by the errors of constructors given an edge whose
// endpoint is out of range; the message names the edge.
var ErrBadEdge = errors.New("graph: edge endpoint out of range")

// ErrShape is wrapped by errors about slices of mismatched lengths.
var ErrShape = errors.New("graph: length mismatch")

// Graph is a sparse graph stored in compressed sparse rows by destination:
// the edges that end at node v are Indices[Indptr[v]:Indptr[v+1]], each entry
// being a source node u of an edge u→v. Messages flow from u to v, so a
// kernel that writes row v reads the rows of v's in-neighbours. PyG's
// edge_index[0] is the source (Indices here) and edge_index[1] the
// destination (the row here).
//
// The position of an edge in Indices is its edge id: per-edge arrays
// (weights, attention scores) are laid out in that order.
//
// A Graph is usually square (NumNodes sources and destinations); sampled
// blocks are rectangular, with NumSrc sources and NumNodes destinations.
//
// A Graph must not be modified after construction: the transpose and the GCN
// normalisation are computed once and cached. Transforms return new graphs.
type Graph struct {
	// Indptr has NumNodes()+1 entries; row v's edges are Indptr[v]:Indptr[v+1].
	Indptr []int
	// Indices holds the source node of each edge, sorted within a row.
	Indices []int
	// Weights holds one weight per edge, or is nil for an unweighted graph.
	Weights []float32

	numSrc int

	tOnce   sync.Once
	t       *Graph
	tEdges  []int
	gcnOnce sync.Once
	gcn     *Graph

	// sampleScratch pools SampleNeighbors' node-id maps.
	sampleScratch sync.Pool
}

// NumNodes returns the number of destination nodes (rows); for a square
// graph, the number of nodes.
func (g *Graph) NumNodes() int { return len(g.Indptr) - 1 }

// NumSrc returns the number of source nodes, equal to NumNodes for a square
// graph.
func (g *Graph) NumSrc() int { return g.numSrc }

// NumEdges returns the number of stored edges, duplicates included.
func (g *Graph) NumEdges() int { return len(g.Indices) }

// IsSquare reports whether sources and destinations are the same node set.
func (g *Graph) IsSquare() bool { return g.numSrc == g.NumNodes() }

// String summarises the graph.
func (g *Graph) String() string {
	w := ""
	if g.Weights != nil {
		w = ", weighted"
	}
	if g.IsSquare() {
		return fmt.Sprintf("Graph(nodes=%d, edges=%d%s)", g.NumNodes(), g.NumEdges(), w)
	}
	return fmt.Sprintf("Graph(src=%d, dst=%d, edges=%d%s)", g.numSrc, g.NumNodes(), g.NumEdges(), w)
}

// FromEdges builds a square graph on n nodes from an edge list in PyG's
// order: edge i goes from src[i] to dst[i]. Duplicate edges are kept (see
// Coalesce). An endpoint outside [0, n) gives an error wrapping ErrBadEdge
// that names the edge.
func FromEdges(n int, src, dst []int) (*Graph, error) {
	return build(n, n, src, dst, nil)
}

// FromWeightedEdges is FromEdges with one weight per edge.
func FromWeightedEdges(n int, src, dst []int, w []float32) (*Graph, error) {
	if w == nil {
		return nil, fmt.Errorf("graph: FromWeightedEdges: nil weights: %w", ErrShape)
	}
	return build(n, n, src, dst, w)
}

// NewBipartite builds a rectangular graph whose edges go from nSrc source
// nodes to nDst destination nodes; w may be nil.
func NewBipartite(nSrc, nDst int, src, dst []int, w []float32) (*Graph, error) {
	return build(nSrc, nDst, src, dst, w)
}

func build(nSrc, nDst int, src, dst []int, w []float32) (*Graph, error) {
	if nSrc < 0 || nDst < 0 {
		return nil, fmt.Errorf("graph: negative node count %d, %d", nSrc, nDst)
	}
	if len(src) != len(dst) {
		return nil, fmt.Errorf("graph: %d sources but %d destinations: %w", len(src), len(dst), ErrShape)
	}
	if w != nil && len(w) != len(src) {
		return nil, fmt.Errorf("graph: %d edges but %d weights: %w", len(src), len(w), ErrShape)
	}
	indptr := make([]int, nDst+1)
	for i, v := range dst {
		u := src[i]
		if u < 0 || u >= nSrc || v < 0 || v >= nDst {
			return nil, fmt.Errorf("graph: edge %d (%d→%d) with %d nodes: %w", i, u, v, max(nSrc, nDst), ErrBadEdge)
		}
		indptr[v+1]++
	}
	for v := 0; v < nDst; v++ {
		indptr[v+1] += indptr[v]
	}
	// A counting sort by destination, then by source within each row; the
	// two passes keep it stable so equal edges stay in input order.
	order := countingOrder(src, nSrc, nil)
	indices := make([]int, len(src))
	var weights []float32
	if w != nil {
		weights = make([]float32, len(w))
	}
	next := make([]int, nDst)
	copy(next, indptr[:nDst])
	for _, i := range order {
		v := dst[i]
		p := next[v]
		next[v]++
		indices[p] = src[i]
		if w != nil {
			weights[p] = w[i]
		}
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: weights, numSrc: nSrc}, nil
}

// countingOrder returns the indices of keys sorted by key (stable), keys in
// [0, n). If within is not nil, only those indices are ordered.
func countingOrder(keys []int, n int, within []int) []int {
	count := make([]int, n+1)
	m := len(keys)
	if within != nil {
		m = len(within)
	}
	at := func(i int) int {
		if within != nil {
			return within[i]
		}
		return i
	}
	for i := 0; i < m; i++ {
		count[keys[at(i)]+1]++
	}
	for k := 0; k < n; k++ {
		count[k+1] += count[k]
	}
	out := make([]int, m)
	for i := 0; i < m; i++ {
		j := at(i)
		out[count[keys[j]]] = j
		count[keys[j]]++
	}
	return out
}

// BipartiteFromCSR builds a graph from nSrc source nodes to
// len(indptr)-1 destinations from CSR arrays by destination, which it
// takes without copying (as FromCSR does for square graphs; sampled
// blocks whose CSR was built elsewhere, by a device sampler, use it).
// Indices within a row need not be sorted. It checks the arrays and
// returns an error wrapping ErrBadEdge or ErrShape.
func BipartiteFromCSR(nSrc int, indptr, indices []int, w []float32) (*Graph, error) {
	n := len(indptr) - 1
	if nSrc < 0 || n < 0 || indptr[0] != 0 || indptr[n] != len(indices) {
		return nil, fmt.Errorf("graph: indptr of length %d for %d sources and %d edges: %w", len(indptr), nSrc, len(indices), ErrShape)
	}
	if w != nil && len(w) != len(indices) {
		return nil, fmt.Errorf("graph: %d edges but %d weights: %w", len(indices), len(w), ErrShape)
	}
	for v := 0; v < n; v++ {
		if indptr[v+1] < indptr[v] {
			return nil, fmt.Errorf("graph: indptr decreases at row %d: %w", v, ErrShape)
		}
	}
	for e, u := range indices {
		if u < 0 || u >= nSrc {
			return nil, fmt.Errorf("graph: edge %d from source %d with %d sources: %w", e, u, nSrc, ErrBadEdge)
		}
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: nSrc}, nil
}

// FromCSR builds a square graph from CSR arrays by destination, which it
// takes without copying. Indices within a row need not be sorted. It
// checks the arrays and returns an error wrapping ErrBadEdge or ErrShape.
func FromCSR(n int, indptr, indices []int, w []float32) (*Graph, error) {
	if len(indptr) != n+1 || indptr[0] != 0 || indptr[n] != len(indices) {
		return nil, fmt.Errorf("graph: indptr of length %d for %d nodes and %d edges: %w", len(indptr), n, len(indices), ErrShape)
	}
	if w != nil && len(w) != len(indices) {
		return nil, fmt.Errorf("graph: %d edges but %d weights: %w", len(indices), len(w), ErrShape)
	}
	for v := 0; v < n; v++ {
		if indptr[v+1] < indptr[v] {
			return nil, fmt.Errorf("graph: indptr decreases at row %d: %w", v, ErrShape)
		}
		for e := indptr[v]; e < indptr[v+1]; e++ {
			if u := indices[e]; u < 0 || u >= n {
				return nil, fmt.Errorf("graph: edge %d (%d→%d) with %d nodes: %w", e, u, v, n, ErrBadEdge)
			}
		}
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: n}, nil
}

// Edges returns the edge list in edge-id order as PyG's edge_index rows:
// edge e goes from src[e] to dst[e].
func (g *Graph) Edges() (src, dst []int) {
	src = append([]int(nil), g.Indices...)
	dst = make([]int, len(g.Indices))
	for v := 0; v < g.NumNodes(); v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			dst[e] = v
		}
	}
	return src, dst
}

// Neighbors returns v's in-neighbours (the sources of edges into v), a
// sub-slice of Indices that the caller must not modify.
func (g *Graph) Neighbors(v int) []int { return g.Indices[g.Indptr[v]:g.Indptr[v+1]] }

// InDegrees returns the number of edges ending at each node.
func (g *Graph) InDegrees() []int {
	d := make([]int, g.NumNodes())
	for v := range d {
		d[v] = g.Indptr[v+1] - g.Indptr[v]
	}
	return d
}

// OutDegrees returns the number of edges leaving each source node.
func (g *Graph) OutDegrees() []int {
	d := make([]int, g.numSrc)
	for _, u := range g.Indices {
		d[u]++
	}
	return d
}

// Transpose returns the graph with every edge reversed, in CSR by the old
// sources. It is computed once and cached, so backward passes of SpMM can
// call it every step; it is safe for concurrent use.
func (g *Graph) Transpose() *Graph {
	g.tOnce.Do(g.buildTranspose)
	return g.t
}

// TransposeEdges returns, for each edge id of Transpose(), the id of the same
// edge in g; per-edge arrays of g read through it to follow the transpose.
// The caller must not modify it.
func (g *Graph) TransposeEdges() []int {
	g.tOnce.Do(g.buildTranspose)
	return g.tEdges
}

func (g *Graph) buildTranspose() {
	n := g.NumNodes()
	indptr := make([]int, g.numSrc+1)
	for _, u := range g.Indices {
		indptr[u+1]++
	}
	for u := 0; u < g.numSrc; u++ {
		indptr[u+1] += indptr[u]
	}
	next := make([]int, g.numSrc)
	copy(next, indptr[:g.numSrc])
	indices := make([]int, len(g.Indices))
	edges := make([]int, len(g.Indices))
	// Visiting rows in order keeps each transposed row sorted.
	for v := 0; v < n; v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			u := g.Indices[e]
			p := next[u]
			next[u]++
			indices[p] = v
			edges[p] = e
		}
	}
	var w []float32
	if g.Weights != nil {
		w = make([]float32, len(edges))
		for p, e := range edges {
			w[p] = g.Weights[e]
		}
	}
	t := &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: n}
	// The transpose of the transpose is g itself.
	t.tOnce.Do(func() {
		t.t = g
		inv := make([]int, len(edges))
		for p, e := range edges {
			inv[e] = p
		}
		t.tEdges = inv
	})
	g.t, g.tEdges = t, edges
}

// Coalesce returns the graph with duplicate edges merged, their weights
// summed (PyG's coalesce with reduce "add"), and each row sorted.
func (g *Graph) Coalesce() *Graph {
	n := g.NumNodes()
	indptr := make([]int, n+1)
	indices := make([]int, 0, len(g.Indices))
	var w []float32
	if g.Weights != nil {
		w = make([]float32, 0, len(g.Indices))
	}
	var row []int
	for v := 0; v < n; v++ {
		lo, hi := g.Indptr[v], g.Indptr[v+1]
		row = row[:0]
		for e := lo; e < hi; e++ {
			row = append(row, e)
		}
		sort.SliceStable(row, func(a, b int) bool { return g.Indices[row[a]] < g.Indices[row[b]] })
		last := -1
		for _, e := range row {
			u := g.Indices[e]
			if u == last {
				if w != nil {
					w[len(w)-1] += g.Weights[e]
				}
				continue
			}
			last = u
			indices = append(indices, u)
			if w != nil {
				w = append(w, g.Weights[e])
			}
		}
		indptr[v+1] = len(indices)
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: g.numSrc}
}

// ToUndirected returns the graph with every edge also present reversed,
// duplicates merged as Coalesce does. It panics on a rectangular graph.
func (g *Graph) ToUndirected() *Graph {
	g.mustSquare("ToUndirected")
	src, dst := g.Edges()
	n := g.NumNodes()
	s2 := append(src, dst...)
	d2 := append(dst, src...)
	var w []float32
	if g.Weights != nil {
		w = append(append([]float32(nil), g.Weights...), g.Weights...)
	}
	h, _ := build(n, n, s2, d2, w)
	return h.Coalesce()
}

// IsSymmetric reports whether every edge u→v has a reverse edge v→u.
func (g *Graph) IsSymmetric() bool {
	if !g.IsSquare() {
		return false
	}
	c := g.Coalesce()
	t := c.Transpose()
	return slices.Equal(c.Indptr, t.Indptr) && slices.Equal(c.Indices, t.Indices)
}

// RemoveSelfLoops returns the graph without edges v→v.
func (g *Graph) RemoveSelfLoops() *Graph {
	return g.filter(func(u, v int) bool { return u != v })
}

// AddSelfLoops returns the graph with an edge v→v of weight 1 added to each
// node that has none (PyG's add_remaining_self_loops): it is idempotent.
// On a rectangular graph with at least as many sources as destinations (a
// sampled Block, whose first sources are its destinations) destination v
// gets the loop from source v, as PyG's bipartite GATConv adds them; fewer
// sources than destinations panics.
func (g *Graph) AddSelfLoops() *Graph {
	n := g.NumNodes()
	if g.numSrc < n {
		panic(fmt.Sprintf("graph: AddSelfLoops needs at least as many sources as destinations, have %d sources and %d destinations", g.numSrc, n))
	}
	indptr := make([]int, n+1)
	indices := make([]int, 0, len(g.Indices)+n)
	var w []float32
	if g.Weights != nil {
		w = make([]float32, 0, len(g.Indices)+n)
	}
	for v := 0; v < n; v++ {
		has := false
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			if g.Indices[e] == v {
				has = true
			}
		}
		placed := has
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			u := g.Indices[e]
			// Keep rows sorted: the loop goes before the first larger source.
			if !placed && u > v {
				indices = append(indices, v)
				if w != nil {
					w = append(w, 1)
				}
				placed = true
			}
			indices = append(indices, u)
			if w != nil {
				w = append(w, g.Weights[e])
			}
		}
		if !placed {
			indices = append(indices, v)
			if w != nil {
				w = append(w, 1)
			}
		}
		indptr[v+1] = len(indices)
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: g.numSrc}
}

func (g *Graph) filter(keep func(u, v int) bool) *Graph {
	n := g.NumNodes()
	indptr := make([]int, n+1)
	indices := make([]int, 0, len(g.Indices))
	var w []float32
	if g.Weights != nil {
		w = make([]float32, 0, len(g.Indices))
	}
	for v := 0; v < n; v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			if u := g.Indices[e]; keep(u, v) {
				indices = append(indices, u)
				if w != nil {
					w = append(w, g.Weights[e])
				}
			}
		}
		indptr[v+1] = len(indices)
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: g.numSrc}
}

// WithWeights returns a graph sharing g's structure with the given per-edge
// weights (nil for unweighted).
func (g *Graph) WithWeights(w []float32) (*Graph, error) {
	if w != nil && len(w) != len(g.Indices) {
		return nil, fmt.Errorf("graph: %d edges but %d weights: %w", len(g.Indices), len(w), ErrShape)
	}
	return &Graph{Indptr: g.Indptr, Indices: g.Indices, Weights: w, numSrc: g.numSrc}, nil
}

// GCNNorm returns Â = D^-1/2 (A+I) D^-1/2 of Kipf and Welling as a weighted
// graph: self-loops of weight 1 are added where missing, D is the weighted
// in-degree of A+I, and the edge u→v gets weight w_uv / sqrt(d_u d_v), as
// PyG's gcn_norm computes it. On a sampled Block (rectangular, see
// AddSelfLoops) d_v is the weighted in-degree of destination v and d_u the
// weighted out-degree of source u within the block with its loops, as
// DGL's GraphConv normalises a block. The result is cached, since a GCN
// asks for it every epoch; it is safe for concurrent use.
func (g *Graph) GCNNorm() *Graph {
	g.gcnOnce.Do(func() {
		a := g.AddSelfLoops()
		w := make([]float32, len(a.Indices))
		deg := make([]float64, a.NumNodes())
		srcDeg := deg
		if !a.IsSquare() {
			srcDeg = make([]float64, a.numSrc)
		}
		for v := range deg {
			for e := a.Indptr[v]; e < a.Indptr[v+1]; e++ {
				x := 1.0
				if a.Weights != nil {
					x = float64(a.Weights[e])
				}
				deg[v] += x
				if !a.IsSquare() {
					srcDeg[a.Indices[e]] += x
				}
			}
		}
		inv := func(d []float64) {
			for v := range d {
				if d[v] > 0 {
					d[v] = 1 / math.Sqrt(d[v])
				}
			}
		}
		inv(deg)
		if !a.IsSquare() {
			inv(srcDeg)
		}
		for v := 0; v < a.NumNodes(); v++ {
			for e := a.Indptr[v]; e < a.Indptr[v+1]; e++ {
				x := 1.0
				if a.Weights != nil {
					x = float64(a.Weights[e])
				}
				w[e] = float32(srcDeg[a.Indices[e]] * x * deg[v])
			}
		}
		a.Weights = w
		g.gcn = a
	})
	return g.gcn
}

func (g *Graph) mustSquare(op string) {
	if !g.IsSquare() {
		panic(fmt.Sprintf("graph: %s needs a square graph, have %d sources and %d destinations", op, g.numSrc, g.NumNodes()))
	}
}
