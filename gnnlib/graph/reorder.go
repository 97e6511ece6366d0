package graph

import (
	"fmt"
	"sort"
)

// ErrPermutation is wrapped by errors about a slice that is not a
// permutation of the nodes.
var ErrPermutation = fmt.Errorf("graph: not a permutation")

// Permute relabels the nodes of a square graph: perm[i] is the old id of the
// node that gets the new id i (the order argsort returns, and what
// PermuteRows takes to move feature rows along). Edge weights follow their
// edges.
func (g *Graph) Permute(perm []int) (*Graph, error) {
	g.mustSquare("Permute")
	n := g.NumNodes()
	inv, err := InversePermutation(perm)
	if err != nil {
		return nil, err
	}
	if len(perm) != n {
		return nil, fmt.Errorf("graph: Permute: %d entries for %d nodes: %w", len(perm), n, ErrPermutation)
	}
	indptr := make([]int, n+1)
	for v := 0; v < n; v++ {
		o := perm[v]
		indptr[v+1] = indptr[v] + g.Indptr[o+1] - g.Indptr[o]
	}
	indices := make([]int, len(g.Indices))
	var w []float32
	if g.Weights != nil {
		w = make([]float32, len(g.Weights))
	}
	type pair struct {
		u int
		w float32
	}
	var row []pair
	for v := 0; v < n; v++ {
		o := perm[v]
		row = row[:0]
		for e := g.Indptr[o]; e < g.Indptr[o+1]; e++ {
			p := pair{u: inv[g.Indices[e]]}
			if w != nil {
				p.w = g.Weights[e]
			}
			row = append(row, p)
		}
		sort.SliceStable(row, func(a, b int) bool { return row[a].u < row[b].u })
		for i, p := range row {
			indices[indptr[v]+i] = p.u
			if w != nil {
				w[indptr[v]+i] = p.w
			}
		}
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: n}, nil
}

// InversePermutation returns inv with inv[perm[i]] = i, or an error wrapping
// ErrPermutation if perm repeats or skips a value.
func InversePermutation(perm []int) ([]int, error) {
	inv := make([]int, len(perm))
	for i := range inv {
		inv[i] = -1
	}
	for i, p := range perm {
		if p < 0 || p >= len(perm) || inv[p] >= 0 {
			return nil, fmt.Errorf("graph: entry %d = %d: %w", i, p, ErrPermutation)
		}
		inv[p] = i
	}
	return inv, nil
}

// PermuteRows sets dst row i to x row perm[i] (f columns), moving node
// features along with Permute.
func PermuteRows(dst, x []float32, f int, perm []int) {
	checkLen("PermuteRows", "dst", len(dst), len(perm)*f)
	for i, p := range perm {
		copy(dst[i*f:i*f+f], x[p*f:p*f+f])
	}
}

// undirectedAdjacency returns the neighbour lists of the symmetrised,
// loop-free structure of a square graph.
func (g *Graph) undirectedAdjacency() *Graph {
	return g.ToUndirected().RemoveSelfLoops()
}

// RCM returns the reverse Cuthill–McKee order of a square graph (as a perm
// for Permute), computed on its undirected structure. Each connected
// component starts at a pseudo-peripheral node of low degree and is visited
// breadth first, neighbours by increasing degree; reversing the order puts
// an edge's endpoints close together, which shrinks Bandwidth and makes
// SpMM's reads of x[u] hit the cache more often.
func (g *Graph) RCM() []int {
	g.mustSquare("RCM")
	a := g.undirectedAdjacency()
	n := a.NumNodes()
	deg := a.InDegrees()
	visited := make([]bool, n)
	order := make([]int, 0, n)
	// Starting candidates by increasing degree: each unvisited one opens a
	// new component.
	cand := make([]int, n)
	for i := range cand {
		cand[i] = i
	}
	sort.SliceStable(cand, func(i, j int) bool { return deg[cand[i]] < deg[cand[j]] })
	level := make([]int, n)
	var nb []int
	for _, s := range cand {
		if visited[s] {
			continue
		}
		start := pseudoPeripheral(a, s, deg, level)
		head := len(order)
		order = append(order, start)
		visited[start] = true
		for head < len(order) {
			v := order[head]
			head++
			nb = nb[:0]
			for _, u := range a.Neighbors(v) {
				if !visited[u] {
					visited[u] = true
					nb = append(nb, u)
				}
			}
			sort.SliceStable(nb, func(i, j int) bool { return deg[nb[i]] < deg[nb[j]] })
			order = append(order, nb...)
		}
	}
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// pseudoPeripheral walks to the far end of BFS level structures (George and
// Liu's heuristic, a few rounds) to find a node of large eccentricity.
func pseudoPeripheral(a *Graph, s int, deg, level []int) int {
	ecc := -1
	for round := 0; round < 5; round++ {
		far, e := bfsFarthest(a, s, deg, level)
		if e <= ecc {
			return s
		}
		ecc, s = e, far
	}
	return s
}

// bfsFarthest returns the lowest-degree node of the last BFS level from s
// and the number of levels; level is scratch space of length n.
func bfsFarthest(a *Graph, s int, deg, level []int) (int, int) {
	queue := []int{s}
	touched := []int{s}
	level[s] = 1
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, u := range a.Neighbors(v) {
			if level[u] == 0 {
				level[u] = level[v] + 1
				queue = append(queue, u)
				touched = append(touched, u)
			}
		}
	}
	last := level[queue[len(queue)-1]]
	best := queue[len(queue)-1]
	for i := len(queue) - 1; i >= 0 && level[queue[i]] == last; i-- {
		if deg[queue[i]] < deg[best] {
			best = queue[i]
		}
	}
	for _, v := range touched {
		level[v] = 0
	}
	return best, last
}

// DegreeOrder returns the nodes sorted by decreasing total degree (in plus
// out), ties by id: hubs first, so their rows stay hot in the cache.
func (g *Graph) DegreeOrder() []int {
	g.mustSquare("DegreeOrder")
	in, out := g.InDegrees(), g.OutDegrees()
	perm := make([]int, g.NumNodes())
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(i, j int) bool {
		return in[perm[i]]+out[perm[i]] > in[perm[j]]+out[perm[j]]
	})
	return perm
}

// Bandwidth returns the largest |u − v| over the edges u→v: the half-width
// of the band that holds the adjacency matrix.
func (g *Graph) Bandwidth() int {
	b := 0
	for v := 0; v < g.NumNodes(); v++ {
		for _, u := range g.Neighbors(v) {
			b = max(b, abs(u-v))
		}
	}
	return b
}

// EdgeSpan returns the mean |u − v| over the edges u→v, a locality measure:
// the smaller it is, the closer in memory are the rows that SpMM reads for
// one destination, and the more often a cache line is reused.
func (g *Graph) EdgeSpan() float64 {
	if g.NumEdges() == 0 {
		return 0
	}
	var s float64
	for v := 0; v < g.NumNodes(); v++ {
		for _, u := range g.Neighbors(v) {
			s += float64(abs(u - v))
		}
	}
	return s / float64(g.NumEdges())
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
