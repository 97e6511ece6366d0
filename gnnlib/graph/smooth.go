package graph

import (
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph/internal/f32"
)

// DirichletEnergy measures how much node features vary across edges:
// E(x) = (1/n) Σ_{u→v} ‖x[u,:] − x[v,:]‖², the form used by Rusch,
// Bronstein and Mishra (2023) to define over-smoothing. Deep GNNs drive it
// towards 0 as node features become alike.
func (g *Graph) DirichletEnergy(x []float32, f int) float64 {
	g.mustSquare("DirichletEnergy")
	checkLen("DirichletEnergy", "x", len(x), g.NumNodes()*f)
	if g.NumNodes() == 0 {
		return 0
	}
	var s float64
	for v := 0; v < g.NumNodes(); v++ {
		xv := x[v*f : v*f+f]
		for _, u := range g.Neighbors(v) {
			xu := x[u*f : u*f+f]
			for j := range xv {
				d := float64(xu[j] - xv[j])
				s += d * d
			}
		}
	}
	return s / float64(g.NumNodes())
}

// MeanAverageDistance is the MAD of Chen et al. (2020): the cosine distance
// 1 − cos(x[u], x[v]) averaged first over the pairs of each node with a
// non-zero distance, then over the nodes that have any. The pairs are the
// edges of g, or all pairs of nodes when g is nil (quadratic in n). MAD
// near 0 means the features have collapsed to one direction.
func MeanAverageDistance(x []float32, f int, g *Graph) float64 {
	n := len(x) / f
	norm := make([]float64, n)
	for v := range norm {
		norm[v] = math.Sqrt(float64(f32.Dot(x[v*f:v*f+f], x[v*f:v*f+f])))
	}
	dist := func(u, v int) float64 {
		if norm[u] == 0 || norm[v] == 0 {
			return 1 // a zero vector has cosine 0 with anything
		}
		d := 1 - float64(f32.Dot(x[u*f:u*f+f], x[v*f:v*f+f]))/(norm[u]*norm[v])
		if d < 1e-7 {
			return 0
		}
		return d
	}
	var total float64
	nodes := 0
	for v := 0; v < n; v++ {
		var s float64
		c := 0
		visit := func(u int) {
			if u == v {
				return
			}
			if d := dist(u, v); d > 0 {
				s += d
				c++
			}
		}
		if g != nil {
			for _, u := range g.Neighbors(v) {
				visit(u)
			}
		} else {
			for u := 0; u < n; u++ {
				visit(u)
			}
		}
		if c > 0 {
			total += s / float64(c)
			nodes++
		}
	}
	if nodes == 0 {
		return 0
	}
	return total / float64(nodes)
}
