package graph

import (
	"fmt"
	"math"
)

// ScaledLaplacian returns L̃ = 2L/λmax − I as a weighted square graph, the
// operator of Chebyshev graph convolutions (Defferrard et al.), where
// L = I − D^-1/2 A D^-1/2 is the symmetric normalised Laplacian of g
// without its self-loops and D the weighted in-degree of that A. This is
// PyG's ChebConv with normalization "sym": an off-diagonal edge u→v gets
// weight −(2/λmax)·w_uv/sqrt(d_u d_v), and each node a self-loop of
// weight 2/λmax − 1, which is left out when it is zero (λmax = 2, PyG's
// default). A node without in-edges has a zero row apart from that
// diagonal. It panics on a rectangular graph or when λmax is not a
// positive finite number.
func (g *Graph) ScaledLaplacian(lambdaMax float64) *Graph {
	g.mustSquare("ScaledLaplacian")
	if !(lambdaMax > 0) || math.IsInf(lambdaMax, 0) {
		panic(fmt.Sprintf("graph: ScaledLaplacian: lambdaMax = %v, want a positive finite number", lambdaMax))
	}
	a := g.RemoveSelfLoops()
	n := a.NumNodes()
	dinv := make([]float64, n)
	for v := 0; v < n; v++ {
		for e := a.Indptr[v]; e < a.Indptr[v+1]; e++ {
			if a.Weights != nil {
				dinv[v] += float64(a.Weights[e])
			} else {
				dinv[v]++
			}
		}
		if dinv[v] > 0 {
			dinv[v] = 1 / math.Sqrt(dinv[v])
		}
	}
	scale := 2 / lambdaMax
	diag := float32(scale - 1)
	indptr := make([]int, n+1)
	indices := make([]int, 0, len(a.Indices)+n)
	w := make([]float32, 0, len(a.Indices)+n)
	for v := 0; v < n; v++ {
		placed := diag == 0
		for e := a.Indptr[v]; e < a.Indptr[v+1]; e++ {
			u := a.Indices[e]
			if !placed && u > v { // keep the row sorted
				indices, w = append(indices, v), append(w, diag)
				placed = true
			}
			x := 1.0
			if a.Weights != nil {
				x = float64(a.Weights[e])
			}
			indices = append(indices, u)
			w = append(w, float32(-scale*dinv[u]*x*dinv[v]))
		}
		if !placed {
			indices, w = append(indices, v), append(w, diag)
		}
		indptr[v+1] = len(indices)
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: n}
}
