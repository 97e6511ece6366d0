package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrParam is wrapped by errors of generators given impossible parameters.
var ErrParam = errors.New("graph: bad generator parameter")

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
}

// undirected builds the symmetric graph with both directions of each pair.
func undirected(n int, a, b []int) *Graph {
	src := append(append(make([]int, 0, 2*len(a)), a...), b...)
	dst := append(append(make([]int, 0, 2*len(a)), b...), a...)
	g, err := build(n, n, src, dst, nil)
	if err != nil {
		panic(err) // generators only make valid edges
	}
	return g
}

// skipSample calls fn with the indices in [0, total) that a Bernoulli(p)
// trial per index would select, jumping over the failures with geometric
// draws (Batagelj and Brandes 2005): time grows with the number of
// successes, not with total, so sparse graphs on 100k nodes are quick.
func skipSample(total int64, p float64, rng *rand.Rand, fn func(int64)) {
	if p <= 0 || total <= 0 {
		return
	}
	if p >= 1 {
		for i := int64(0); i < total; i++ {
			fn(i)
		}
		return
	}
	lq := math.Log1p(-p)
	for i := int64(-1); ; {
		i += 1 + int64(math.Floor(math.Log(1-rng.Float64())/lq))
		if i >= total || i < 0 {
			return
		}
		fn(i)
	}
}

// triangle maps index k of the pairs (i, j), 0 ≤ i < j, listed by j then i,
// back to the pair.
func triangle(k int64) (i, j int64) {
	j = int64((1 + math.Sqrt(1+8*float64(k))) / 2)
	// Correct the float estimate near perfect squares.
	for j*(j-1)/2 > k {
		j--
	}
	for (j+1)*j/2 <= k {
		j++
	}
	return k - j*(j-1)/2, j
}

// ErdosRenyi returns a G(n, p) random undirected graph: each of the
// n(n−1)/2 pairs is an edge with probability p, stored in both directions.
func ErdosRenyi(n int, p float64, seed uint64) (*Graph, error) {
	if n < 0 || p < 0 || p > 1 {
		return nil, fmt.Errorf("graph: ErdosRenyi(n=%d, p=%g): %w", n, p, ErrParam)
	}
	rng := newRand(seed)
	var a, b []int
	skipSample(int64(n)*int64(n-1)/2, p, rng, func(k int64) {
		i, j := triangle(k)
		a, b = append(a, int(i)), append(b, int(j))
	})
	return undirected(n, a, b), nil
}

// ErdosRenyiM returns a G(n, m) random undirected graph: m distinct pairs
// drawn uniformly, each stored in both directions (2m edges).
func ErdosRenyiM(n, m int, seed uint64) (*Graph, error) {
	pairs := int64(n) * int64(n-1) / 2
	if n < 0 || m < 0 || int64(m) > pairs {
		return nil, fmt.Errorf("graph: ErdosRenyiM(n=%d, m=%d) with %d possible pairs: %w", n, m, pairs, ErrParam)
	}
	rng := newRand(seed)
	a, b := make([]int, 0, m), make([]int, 0, m)
	if int64(m) > pairs/2 {
		// Dense: choose which pairs to leave out instead, by a partial shuffle.
		all := make([]int64, pairs)
		for k := range all {
			all[k] = int64(k)
		}
		for k := 0; k < m; k++ {
			r := k + rng.IntN(len(all)-k)
			all[k], all[r] = all[r], all[k]
			i, j := triangle(all[k])
			a, b = append(a, int(i)), append(b, int(j))
		}
		return undirected(n, a, b), nil
	}
	seen := make(map[int64]struct{}, m)
	for len(a) < m {
		k := rng.Int64N(pairs)
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		i, j := triangle(k)
		a, b = append(a, int(i)), append(b, int(j))
	}
	return undirected(n, a, b), nil
}

// BarabasiAlbert returns a preferential-attachment graph on n nodes: it
// starts from a star on m+1 nodes and joins each further node to m distinct
// existing nodes chosen with probability proportional to their degree.
// Edges are stored in both directions; the mean degree approaches 2m.
func BarabasiAlbert(n, m int, seed uint64) (*Graph, error) {
	if m < 1 || n <= m {
		return nil, fmt.Errorf("graph: BarabasiAlbert(n=%d, m=%d) needs 1 ≤ m < n: %w", n, m, ErrParam)
	}
	rng := newRand(seed)
	var a, b []int
	// repeated lists each node once per incident edge end, so a uniform draw
	// from it is a draw proportional to degree.
	repeated := make([]int, 0, 2*n*m)
	for v := 1; v <= m; v++ {
		a, b = append(a, 0), append(b, v)
		repeated = append(repeated, 0, v)
	}
	targets := make([]int, 0, m)
	for v := m + 1; v < n; v++ {
		targets = targets[:0]
		for len(targets) < m {
			t := repeated[rng.IntN(len(repeated))]
			dup := false
			for _, x := range targets {
				dup = dup || x == t
			}
			if !dup {
				targets = append(targets, t)
			}
		}
		for _, t := range targets {
			a, b = append(a, t), append(b, v)
			repeated = append(repeated, t, v)
		}
	}
	return undirected(n, a, b), nil
}

// Graph500 R-MAT quadrant probabilities (d = 1 − a − b − c = 0.05).
const (
	RMATA = 0.57
	RMATB = 0.19
	RMATC = 0.19
)

// RMAT returns a directed R-MAT graph with Graph500's parameters on
// 2^scale nodes: edgeFactor·2^scale edges are drawn by descending the
// adjacency matrix one quadrant at a time, node ids are scrambled by a
// random permutation (as Graph500 does, so that id order carries no
// degree information), then self-loops and duplicates are removed.
func RMAT(scale, edgeFactor int, seed uint64) (*Graph, error) {
	return RMATWith(scale, edgeFactor, RMATA, RMATB, RMATC, seed)
}

// RMATWith is RMAT with chosen quadrant probabilities a, b, c.
func RMATWith(scale, edgeFactor int, a, b, c float64, seed uint64) (*Graph, error) {
	if scale < 1 || scale > 30 || edgeFactor < 1 || a < 0 || b < 0 || c < 0 || a+b+c > 1 {
		return nil, fmt.Errorf("graph: RMAT(scale=%d, edgeFactor=%d, a=%g, b=%g, c=%g): %w", scale, edgeFactor, a, b, c, ErrParam)
	}
	rng := newRand(seed)
	n := 1 << scale
	m := edgeFactor * n
	perm := rng.Perm(n)
	src, dst := make([]int, m), make([]int, m)
	for e := 0; e < m; e++ {
		u, v := 0, 0
		for bit := 0; bit < scale; bit++ {
			r := rng.Float64()
			switch {
			case r < a:
			case r < a+b:
				v |= 1 << bit
			case r < a+b+c:
				u |= 1 << bit
			default:
				u |= 1 << bit
				v |= 1 << bit
			}
		}
		src[e], dst[e] = perm[u], perm[v]
	}
	g, err := build(n, n, src, dst, nil)
	if err != nil {
		return nil, err
	}
	return g.RemoveSelfLoops().Coalesce(), nil
}

// SBMOptions configure a stochastic block model.
type SBMOptions struct {
	// Sizes holds the number of nodes of each class; nodes are numbered
	// class by class.
	Sizes []int
	// PIn is the edge probability between two nodes of one class, POut
	// between nodes of different classes.
	PIn, POut float64
	// Features is the width of the node features (0: none).
	Features int
	// Signal scales the class means of the features relative to their unit
	// noise: 0 makes the features useless for classification, 1 makes them
	// informative but noisy, so the graph has something to add.
	Signal float64
	// Seed fixes the graph and the features.
	Seed uint64
}

// SBM samples a stochastic block model with class-correlated features, a
// benchmark on which a GNN has something to learn: the graph is undirected
// (both directions stored), x is a row-major n×Features matrix whose row v
// is its class's random mean (scaled by Signal) plus standard normal noise,
// and labels[v] is v's class.
func SBM(o SBMOptions) (g *Graph, x []float32, labels []int, err error) {
	if o.PIn < 0 || o.PIn > 1 || o.POut < 0 || o.POut > 1 || o.Features < 0 || len(o.Sizes) == 0 {
		return nil, nil, nil, fmt.Errorf("graph: SBM(%+v): %w", o, ErrParam)
	}
	rng := newRand(o.Seed)
	start := make([]int, len(o.Sizes)+1)
	for c, s := range o.Sizes {
		if s < 0 {
			return nil, nil, nil, fmt.Errorf("graph: SBM class %d of size %d: %w", c, s, ErrParam)
		}
		start[c+1] = start[c] + s
	}
	n := start[len(o.Sizes)]
	labels = make([]int, n)
	for c := range o.Sizes {
		for v := start[c]; v < start[c+1]; v++ {
			labels[v] = c
		}
	}
	var a, b []int
	for c1 := range o.Sizes {
		s1 := int64(o.Sizes[c1])
		skipSample(s1*(s1-1)/2, o.PIn, rng, func(k int64) {
			i, j := triangle(k)
			a, b = append(a, start[c1]+int(i)), append(b, start[c1]+int(j))
		})
		for c2 := c1 + 1; c2 < len(o.Sizes); c2++ {
			s2 := int64(o.Sizes[c2])
			skipSample(s1*s2, o.POut, rng, func(k int64) {
				a, b = append(a, start[c1]+int(k/s2)), append(b, start[c2]+int(k%s2))
			})
		}
	}
	g = undirected(n, a, b)
	f := o.Features
	means := make([]float64, len(o.Sizes)*f)
	for i := range means {
		means[i] = o.Signal * rng.NormFloat64()
	}
	x = make([]float32, n*f)
	for v := 0; v < n; v++ {
		for j := 0; j < f; j++ {
			x[v*f+j] = float32(means[labels[v]*f+j] + rng.NormFloat64())
		}
	}
	return g, x, labels, nil
}
