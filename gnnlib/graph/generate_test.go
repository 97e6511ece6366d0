package graph

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestBarabasiAlbert(t *testing.T) {
	for _, m := range []int{1, 3, 5} {
		g, err := BarabasiAlbert(5000, m, 42)
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(g.NumEdges()) / float64(g.NumNodes())
		if math.Abs(mean-2*float64(m)) > 0.05*float64(m) {
			t.Errorf("BarabasiAlbert(5000, %d) mean degree = %.3f, want ≈ %d", m, mean, 2*m)
		}
		if !g.IsSymmetric() || g.Coalesce().NumEdges() != g.NumEdges() {
			t.Errorf("BarabasiAlbert(5000, %d) is not a simple undirected graph", m)
		}
		// Preferential attachment makes hubs: the largest degree is far
		// above the mean (a G(n, p) of the same density stays near it).
		if top := slices.Max(g.InDegrees()); top < 10*2*m {
			t.Errorf("BarabasiAlbert(5000, %d) largest degree = %d, want ≥ %d", m, top, 20*m)
		}
	}
	if _, err := BarabasiAlbert(3, 3, 1); !errors.Is(err, ErrParam) {
		t.Errorf("BarabasiAlbert(3, 3) error = %v, want ErrParam", err)
	}
}

func TestErdosRenyi(t *testing.T) {
	const n, p = 2000, 0.005
	g, err := ErdosRenyi(n, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	mean := p * n * (n - 1) / 2
	sd := math.Sqrt(mean * (1 - p))
	if got := float64(g.NumEdges()) / 2; math.Abs(got-mean) > 5*sd {
		t.Errorf("ErdosRenyi(%d, %g) has %v undirected edges, want %v ± %.0f", n, p, got, mean, 5*sd)
	}
	if !g.IsSymmetric() || g.Coalesce().NumEdges() != g.NumEdges() || g.RemoveSelfLoops().NumEdges() != g.NumEdges() {
		t.Errorf("ErdosRenyi is not a simple undirected graph")
	}
	g2, _ := ErdosRenyi(n, p, 7)
	if !slices.Equal(g.Indices, g2.Indices) {
		t.Errorf("ErdosRenyi with the same seed gave different graphs")
	}
	for _, m := range []int{0, 1000, 4000, 45} {
		nn := 100
		if m == 45 {
			nn = 10 // every pair: the dense path
		}
		g, err := ErdosRenyiM(nn, m, 3)
		if err != nil {
			t.Fatal(err)
		}
		if g.NumEdges() != 2*m || g.Coalesce().NumEdges() != 2*m {
			t.Errorf("ErdosRenyiM(%d, %d) has %d distinct directed edges, want %d", nn, m, g.Coalesce().NumEdges(), 2*m)
		}
	}
	if _, err := ErdosRenyiM(10, 46, 1); !errors.Is(err, ErrParam) {
		t.Errorf("ErdosRenyiM(10, 46) error = %v, want ErrParam", err)
	}
}

func TestTriangle(t *testing.T) {
	k := int64(0)
	for j := int64(1); j < 300; j++ {
		for i := int64(0); i < j; i++ {
			if gi, gj := triangle(k); gi != i || gj != j {
				t.Fatalf("triangle(%d) = (%d, %d), want (%d, %d)", k, gi, gj, i, j)
			}
			k++
		}
	}
}

func TestRMAT(t *testing.T) {
	g, err := RMAT(12, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := 1 << 12
	if g.NumNodes() != n {
		t.Fatalf("RMAT(12, 16) has %d nodes, want %d", g.NumNodes(), n)
	}
	// Duplicates are common in R-MAT; most of the 16n draws survive.
	if e := g.NumEdges(); e < 8*n || e > 16*n {
		t.Errorf("RMAT(12, 16) has %d edges, want between %d and %d", e, 8*n, 16*n)
	}
	out := g.OutDegrees()
	if top := slices.Max(out); top < 50*16 {
		t.Errorf("RMAT(12, 16) largest out-degree = %d, want a skewed distribution (≥ 800)", top)
	}
	if _, err := RMATWith(10, 8, 0.6, 0.3, 0.3, 1); !errors.Is(err, ErrParam) {
		t.Errorf("RMATWith(a+b+c > 1) error = %v, want ErrParam", err)
	}
}

func TestSBM(t *testing.T) {
	g, x, y, err := SBM(SBMOptions{Sizes: []int{300, 300, 400}, PIn: 0.05, POut: 0.005, Features: 8, Signal: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 1000 || len(x) != 8000 || len(y) != 1000 {
		t.Fatalf("SBM sizes: %v, %d features, %d labels", g, len(x), len(y))
	}
	intra := 0
	src, dst := g.Edges()
	for e := range src {
		if y[src[e]] == y[dst[e]] {
			intra++
		}
	}
	// Expected share: 0.05·(2·C(300,2)+C(400,2)) over that plus 0.005·(300·300+2·300·400).
	if share := float64(intra) / float64(len(src)); share < 0.7 {
		t.Errorf("SBM intra-class edge share = %.2f, want > 0.7 (more than the inter-class share)", share)
	}
	// Features: same-class rows are closer to their class mean than to another's.
	const f = 8
	mean := make([]float64, 3*f)
	for v, c := range y {
		for j := 0; j < f; j++ {
			mean[c*f+j] += float64(x[v*f+j]) / 300
		}
	}
	right := 0
	for v, c := range y {
		best, bd := -1, math.Inf(1)
		for k := 0; k < 3; k++ {
			d := 0.0
			for j := 0; j < f; j++ {
				q := float64(x[v*f+j]) - mean[k*f+j]
				d += q * q
			}
			if d < bd {
				best, bd = k, d
			}
		}
		if best == c {
			right++
		}
	}
	if right < 600 {
		t.Errorf("nearest class mean is right for %d of 1000 nodes, want > 600", right)
	}
}

func TestSmoothingMeasures(t *testing.T) {
	g := grid(5, 4)
	const f = 3
	same := make([]float32, g.NumNodes()*f)
	for i := range same {
		same[i] = float32(i%f + 1)
	}
	if e := g.DirichletEnergy(same, f); e != 0 {
		t.Errorf("DirichletEnergy of identical rows = %v, want 0", e)
	}
	if m := MeanAverageDistance(same, f, nil); m != 0 {
		t.Errorf("MeanAverageDistance of identical rows = %v, want 0", m)
	}
	_, x, _, _ := SBM(SBMOptions{Sizes: []int{20}, Features: f, Signal: 0, Seed: 1})
	x = x[:len(same)]
	e0 := g.DirichletEnergy(x, f)
	m0 := MeanAverageDistance(x, f, g)
	// Smoothing with the normalised adjacency, as a deep linear GCN does,
	// drives both measures down.
	a := g.GCNNorm()
	for i := 0; i < 30; i++ {
		next := make([]float32, len(x))
		for v := 0; v < a.NumNodes(); v++ {
			for e := a.Indptr[v]; e < a.Indptr[v+1]; e++ {
				for j := 0; j < f; j++ {
					next[v*f+j] += a.Weights[e] * x[a.Indices[e]*f+j]
				}
			}
		}
		x = next
	}
	if e, m := g.DirichletEnergy(x, f), MeanAverageDistance(x, f, g); e >= e0/10 || m >= m0/10 {
		t.Errorf("after 30 smoothing steps: energy %v (from %v), MAD %v (from %v); want both 10× smaller", e, e0, m, m0)
	}
	// Two orthogonal rows joined by an edge: distance 1 each way.
	h, _ := FromEdges(2, []int{0, 1}, []int{1, 0})
	if m := MeanAverageDistance([]float32{1, 0, 0, 2}, 2, h); math.Abs(m-1) > 1e-9 {
		t.Errorf("MAD of orthogonal neighbours = %v, want 1", m)
	}
	if e := h.DirichletEnergy([]float32{1, 0, 0, 2}, 2); e != 5 {
		t.Errorf("DirichletEnergy of two nodes = %v, want (5+5)/2 = 5", e)
	}
}
