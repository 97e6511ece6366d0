package graph

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph/internal/testrand"
)

type edge struct{ u, v int }

func edgeSet(g *Graph) map[edge]int {
	s := map[edge]int{}
	src, dst := g.Edges()
	for i := range src {
		s[edge{src[i], dst[i]}]++
	}
	return s
}

func TestFromEdgesErrors(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		src, dst []int
		want     error
	}{
		{"source too large", 3, []int{0, 3}, []int{1, 1}, ErrBadEdge},
		{"negative destination", 3, []int{0}, []int{-1}, ErrBadEdge},
		{"length mismatch", 3, []int{0, 1}, []int{1}, ErrShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromEdges(tt.n, tt.src, tt.dst)
			if !errors.Is(err, tt.want) {
				t.Fatalf("FromEdges(%d, %v, %v) error = %v, want %v", tt.n, tt.src, tt.dst, err, tt.want)
			}
		})
	}
	_, err := FromEdges(3, []int{0, 3}, []int{1, 1})
	if want := "graph: edge 1 (3→1) with 3 nodes: graph: edge endpoint out of range"; err.Error() != want {
		t.Errorf("FromEdges error = %q, want %q", err, want)
	}
}

func TestFromEdgesLayout(t *testing.T) {
	// Edges 2→0, 0→1, 2→1, 1→1, 0→1 (a duplicate).
	g, err := FromEdges(3, []int{2, 0, 2, 1, 0}, []int{0, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 5, 5}; !slices.Equal(g.Indptr, want) {
		t.Errorf("Indptr = %v, want %v", g.Indptr, want)
	}
	if want := []int{2, 0, 0, 1, 2}; !slices.Equal(g.Indices, want) {
		t.Errorf("Indices = %v, want %v", g.Indices, want)
	}
	if got, want := g.InDegrees(), []int{1, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("InDegrees() = %v, want %v", got, want)
	}
	if got, want := g.OutDegrees(), []int{2, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("OutDegrees() = %v, want %v", got, want)
	}
	c := g.Coalesce()
	if want := []int{2, 0, 1, 2}; !slices.Equal(c.Indices, want) {
		t.Errorf("Coalesce().Indices = %v, want %v", c.Indices, want)
	}
	if r := c.RemoveSelfLoops(); r.NumEdges() != 3 {
		t.Errorf("RemoveSelfLoops().NumEdges() = %d, want 3", r.NumEdges())
	}
	a := c.AddSelfLoops()
	if want := []int{0, 2, 0, 1, 2, 2}; !slices.Equal(a.Indices, want) {
		t.Errorf("AddSelfLoops().Indices = %v, want %v", a.Indices, want)
	}
	if a2 := a.AddSelfLoops(); a2.NumEdges() != a.NumEdges() {
		t.Errorf("AddSelfLoops twice: %d edges, want %d", a2.NumEdges(), a.NumEdges())
	}
	u := g.ToUndirected()
	if !u.IsSymmetric() || g.IsSymmetric() {
		t.Errorf("IsSymmetric: undirected %v, original %v; want true, false", u.IsSymmetric(), g.IsSymmetric())
	}
	want := map[edge]int{{2, 0}: 1, {0, 2}: 1, {0, 1}: 1, {1, 0}: 1, {1, 1}: 1, {2, 1}: 1, {1, 2}: 1}
	if got := edgeSet(u); !mapsEqual(got, want) {
		t.Errorf("ToUndirected() edges = %v, want %v", got, want)
	}
}

func TestFromCSRErrors(t *testing.T) {
	if _, err := FromCSR(2, []int{0, 1, 2}, []int{0, 5}, nil); !errors.Is(err, ErrBadEdge) {
		t.Errorf("FromCSR with source 5 error = %v, want ErrBadEdge", err)
	}
	if _, err := FromCSR(2, []int{0, 1}, []int{0}, nil); !errors.Is(err, ErrShape) {
		t.Errorf("FromCSR with short indptr error = %v, want ErrShape", err)
	}
}

func TestTransposeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []struct{ nSrc, nDst, m int }{{5, 5, 12}, {50, 30, 400}, {1, 1, 0}} {
		src, dst := testrand.Edges(rng, size.nSrc, size.nDst, size.m)
		w := testrand.Floats(rng, size.m)
		g, err := NewBipartite(size.nSrc, size.nDst, src, dst, w)
		if err != nil {
			t.Fatal(err)
		}
		tr := g.Transpose()
		if tr.NumNodes() != size.nSrc || tr.NumSrc() != size.nDst {
			t.Fatalf("Transpose() of %v = %v", g, tr)
		}
		if tr.Transpose() != g {
			t.Errorf("Transpose().Transpose() is not the original graph")
		}
		gs, gd := g.Edges()
		ts, td := tr.Edges()
		tmap := g.TransposeEdges()
		for p := range ts {
			e := tmap[p]
			if ts[p] != gd[e] || td[p] != gs[e] || tr.Weights[p] != g.Weights[e] {
				t.Fatalf("transpose edge %d = %d→%d (w %v), original edge %d = %d→%d (w %v)",
					p, ts[p], td[p], tr.Weights[p], e, gs[e], gd[e], g.Weights[e])
			}
		}
		for u := 0; u < tr.NumNodes(); u++ {
			if !slices.IsSorted(tr.Neighbors(u)) {
				t.Errorf("transposed row %d not sorted: %v", u, tr.Neighbors(u))
			}
		}
	}
}

func TestGCNNormByHand(t *testing.T) {
	// The path 0 - 1 - 2: with self-loops the degrees are 2, 3, 2.
	g, err := FromEdges(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	a := g.GCNNorm()
	if a != g.GCNNorm() {
		t.Errorf("GCNNorm() is not cached")
	}
	s6 := float32(1 / math.Sqrt(6))
	want := map[edge]float32{
		{0, 0}: 0.5, {1, 0}: s6,
		{0, 1}: s6, {1, 1}: 1.0 / 3, {2, 1}: s6,
		{1, 2}: s6, {2, 2}: 0.5,
	}
	src, dst := a.Edges()
	if len(src) != len(want) {
		t.Fatalf("GCNNorm has %d edges, want %d", len(src), len(want))
	}
	for e := range src {
		k := edge{src[e], dst[e]}
		if d := a.Weights[e] - want[k]; d > 1e-6 || d < -1e-6 {
			t.Errorf("GCNNorm weight of %d→%d = %v, want %v", k.u, k.v, a.Weights[e], want[k])
		}
	}
}

func TestPermute(t *testing.T) {
	g, _ := FromWeightedEdges(4, []int{0, 1, 2, 3}, []int{1, 2, 3, 0}, []float32{1, 2, 3, 4})
	perm := []int{2, 0, 3, 1} // new 0 is old 2, ...
	p, err := g.Permute(perm)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := InversePermutation(perm)
	want := map[edge]int{}
	for k := range edgeSet(g) {
		want[edge{inv[k.u], inv[k.v]}] = 1
	}
	if got := edgeSet(p); !mapsEqual(got, want) {
		t.Errorf("Permute(%v) edges = %v, want %v", perm, got, want)
	}
	// The old edge 2→3 of weight 3 is the new edge 0→2.
	for e, u := range p.Neighbors(2) {
		if u == 0 && p.Weights[p.Indptr[2]+e] != 3 {
			t.Errorf("weight of new edge 0→2 = %v, want 3", p.Weights[p.Indptr[2]+e])
		}
	}
	if _, err := g.Permute([]int{0, 0, 1, 2}); !errors.Is(err, ErrPermutation) {
		t.Errorf("Permute with a repeat: error = %v, want ErrPermutation", err)
	}
}

func mapsEqual(a, b map[edge]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// grid returns the undirected w×h grid graph, node (i, j) = i*w + j.
func grid(w, h int) *Graph {
	var a, b []int
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			if j+1 < w {
				a, b = append(a, i*w+j), append(b, i*w+j+1)
			}
			if i+1 < h {
				a, b = append(a, i*w+j), append(b, (i+1)*w+j)
			}
		}
	}
	return undirected(w*h, a, b)
}

func TestRCMReducesBandwidth(t *testing.T) {
	g := grid(30, 20)
	shuffled, err := g.Permute(rand.New(rand.NewPCG(3, 4)).Perm(g.NumNodes()))
	if err != nil {
		t.Fatal(err)
	}
	perm := shuffled.RCM()
	if _, err := InversePermutation(perm); err != nil || len(perm) != g.NumNodes() {
		t.Fatalf("RCM() is not a permutation of %d nodes: %v", g.NumNodes(), err)
	}
	r, _ := shuffled.Permute(perm)
	if bw, sbw := r.Bandwidth(), shuffled.Bandwidth(); bw > 40 || bw >= sbw {
		t.Errorf("bandwidth after RCM = %d, shuffled %d; want ≤ 40 (the grid's own is 30)", bw, sbw)
	}
	if span, s := r.EdgeSpan(), shuffled.EdgeSpan(); span >= s/10 {
		t.Errorf("EdgeSpan after RCM = %.1f, shuffled %.1f; want 10× smaller", span, s)
	}
	d := shuffled.DegreeOrder()
	deg := shuffled.InDegrees()
	for i := 1; i < len(d); i++ {
		if deg[d[i]] > deg[d[i-1]] {
			t.Fatalf("DegreeOrder()[%d] has degree %d after %d", i, deg[d[i]], deg[d[i-1]])
		}
	}
}

func TestRCMDisconnected(t *testing.T) {
	g, _ := FromEdges(6, []int{0, 1, 3, 4}, []int{1, 2, 4, 5})
	perm := g.RCM()
	if _, err := InversePermutation(perm); err != nil || len(perm) != 6 {
		t.Errorf("RCM() on two paths = %v, not a permutation (%v)", perm, err)
	}
}

func TestCachesConcurrent(t *testing.T) {
	g, err := BarabasiAlbert(500, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 8
	done := make(chan [2]*Graph, workers)
	for i := 0; i < workers; i++ {
		go func() { done <- [2]*Graph{g.Transpose(), g.GCNNorm()} }()
	}
	var first [2]*Graph
	for i := 0; i < workers; i++ {
		select {
		case got := <-done:
			if i == 0 {
				first = got
			} else if got != first {
				t.Fatalf("concurrent Transpose/GCNNorm returned different graphs")
			}
		case <-time.After(time.Minute):
			t.Fatalf("concurrent Transpose/GCNNorm: no answer from worker %d after a minute", i)
		}
	}
}

func TestBipartiteFromCSR(t *testing.T) {
	src, dst := []int{4, 0, 2, 4, 1}, []int{1, 0, 1, 2, 2}
	want, err := NewBipartite(5, 3, src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := BipartiteFromCSR(5, append([]int(nil), want.Indptr...), append([]int(nil), want.Indices...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumSrc() != 5 || g.NumNodes() != 3 || !slices.Equal(g.Indptr, want.Indptr) || !slices.Equal(g.Indices, want.Indices) {
		t.Fatalf("BipartiteFromCSR = %v %v %v, want %v %v", g, g.Indptr, g.Indices, want.Indptr, want.Indices)
	}
	for _, c := range []struct {
		nsrc        int
		indptr, idx []int
		w           []float32
		wantBadEdge bool
	}{
		{5, nil, nil, nil, false},
		{5, []int{1, 1}, []int{0}, nil, false},
		{5, []int{0, 2, 1}, []int{0}, nil, false},
		{5, []int{0, 1}, []int{0}, []float32{1, 2}, false},
		{-1, []int{0}, nil, nil, false},
		{2, []int{0, 1}, []int{2}, nil, true},
		{2, []int{0, 1}, []int{-1}, nil, true},
	} {
		_, err := BipartiteFromCSR(c.nsrc, c.indptr, c.idx, c.w)
		want := ErrShape
		if c.wantBadEdge {
			want = ErrBadEdge
		}
		if !errors.Is(err, want) {
			t.Errorf("BipartiteFromCSR(%d, %v, %v, %v): error %v, want %v", c.nsrc, c.indptr, c.idx, c.w, err, want)
		}
	}
}
