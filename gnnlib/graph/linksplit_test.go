package graph_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

func TestRandomLinkSplit(t *testing.T) {
	g, err := graph.ErdosRenyiM(200, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := graph.RandomLinkSplit(g, 0.05, 0.1, 7)
	if err != nil {
		t.Fatalf("RandomLinkSplit: %v", err)
	}
	pairs := g.NumEdges() / 2 // ErdosRenyiM stores both directions
	if s.ValPos.Len() != 50 || s.TestPos.Len() != 100 || s.TrainPos.Len() != pairs-150 {
		t.Errorf("split sizes %d/%d/%d of %d pairs, want 50/100/%d", s.ValPos.Len(), s.TestPos.Len(), s.TrainPos.Len(), pairs, pairs-150)
	}
	if s.ValNeg.Len() != s.ValPos.Len() || s.TestNeg.Len() != s.TestPos.Len() {
		t.Errorf("negatives %d/%d, want %d/%d", s.ValNeg.Len(), s.TestNeg.Len(), s.ValPos.Len(), s.TestPos.Len())
	}
	edge := map[[2]int]bool{}
	src, dst := g.Edges()
	for i := range src {
		edge[[2]int{src[i], dst[i]}] = true
	}
	key := func(u, v int) [2]int { return [2]int{min(u, v), max(u, v)} }
	seen := map[[2]int]string{}
	for name, l := range map[string]graph.EdgeList{"train": s.TrainPos, "val": s.ValPos, "test": s.TestPos} {
		for i := range l.Src {
			u, v := l.Src[i], l.Dst[i]
			if !edge[[2]int{u, v}] || u >= v {
				t.Errorf("%s positive %d→%d is not an edge with src < dst", name, u, v)
			}
			if other, dup := seen[key(u, v)]; dup {
				t.Errorf("pair {%d, %d} in %s and %s", u, v, other, name)
			}
			seen[key(u, v)] = name
		}
	}
	if len(seen) != pairs {
		t.Errorf("positives cover %d pairs, want %d", len(seen), pairs)
	}
	negSeen := map[[2]int]bool{}
	for _, l := range []graph.EdgeList{s.ValNeg, s.TestNeg} {
		for i := range l.Src {
			u, v := l.Src[i], l.Dst[i]
			if u == v || edge[[2]int{u, v}] || edge[[2]int{v, u}] || negSeen[key(u, v)] {
				t.Errorf("negative %d→%d is a self-loop, an edge or a repeat", u, v)
			}
			negSeen[key(u, v)] = true
		}
	}
	// The training graph holds exactly the training pairs, both ways.
	if !s.Train.IsSymmetric() || s.Train.NumEdges() != 2*s.TrainPos.Len() {
		t.Errorf("Train has %d edges (symmetric %t), want %d both ways", s.Train.NumEdges(), s.Train.IsSymmetric(), 2*s.TrainPos.Len())
	}
	for v := 0; v < s.Train.NumNodes(); v++ {
		for _, u := range s.Train.Neighbors(v) {
			if seen[key(u, v)] != "train" {
				t.Errorf("Train edge %d→%d is a %q pair", u, v, seen[key(u, v)])
			}
		}
	}
	// A fixed seed gives the same split; another seed a different one.
	again, _ := graph.RandomLinkSplit(g, 0.05, 0.1, 7)
	other, _ := graph.RandomLinkSplit(g, 0.05, 0.1, 8)
	if !equalLists(again.TestPos, s.TestPos) || !equalLists(again.TestNeg, s.TestNeg) {
		t.Error("RandomLinkSplit with the same seed gave a different split")
	}
	if equalLists(other.TestPos, s.TestPos) {
		t.Error("RandomLinkSplit with seeds 7 and 8 gave the same test pairs")
	}
}

func equalLists(a, b graph.EdgeList) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Src {
		if a.Src[i] != b.Src[i] || a.Dst[i] != b.Dst[i] {
			return false
		}
	}
	return true
}

func TestRandomLinkSplitErrors(t *testing.T) {
	g, _ := graph.FromEdges(3, []int{0, 1}, []int{1, 2})
	for _, f := range [][2]float64{{-0.1, 0.1}, {0.5, 0.5}, {math.NaN(), 0}} {
		if _, err := graph.RandomLinkSplit(g, f[0], f[1], 1); !errors.Is(err, graph.ErrParam) {
			t.Errorf("RandomLinkSplit(val=%g, test=%g) error = %v, want ErrParam", f[0], f[1], err)
		}
	}
	// A triangle minus one edge leaves one free pair.
	if _, err := graph.NegativeSampling(g, 2, 1); !errors.Is(err, graph.ErrParam) {
		t.Errorf("NegativeSampling(2 of 1 free pair) error = %v, want ErrParam", err)
	}
	l, err := graph.NegativeSampling(g, 1, 1)
	if err != nil || l.Len() != 1 || min(l.Src[0], l.Dst[0]) != 0 || max(l.Src[0], l.Dst[0]) != 2 {
		t.Errorf("NegativeSampling(1) = %v, %v, want the pair {0, 2}", l, err)
	}
}

// TestNegativeSamplingDense covers the enumerating path: a graph with few
// free pairs.
func TestNegativeSamplingDense(t *testing.T) {
	var src, dst []int
	n := 12
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			if u != v && (u+v)%5 != 0 {
				src, dst = append(src, u), append(dst, v)
			}
		}
	}
	g, _ := graph.FromEdges(n, src, dst)
	free := 0
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if (u+v)%5 == 0 {
				free++
			}
		}
	}
	l, err := graph.NegativeSampling(g, free, 4)
	if err != nil || l.Len() != free {
		t.Fatalf("NegativeSampling(%d) = %d pairs, %v", free, l.Len(), err)
	}
	got := map[[2]int]bool{}
	for i := range l.Src {
		u, v := l.Src[i], l.Dst[i]
		if (u+v)%5 != 0 || u == v || got[[2]int{min(u, v), max(u, v)}] {
			t.Errorf("pair %d→%d is an edge, a loop or a repeat", u, v)
		}
		got[[2]int{min(u, v), max(u, v)}] = true
	}
}

// TestScaledLaplacian compares L̃ with 2L/λ − I computed densely.
func TestScaledLaplacian(t *testing.T) {
	// A weighted path 0–1–2 with a self-loop on 1 (dropped) and node 3
	// isolated.
	src := []int{0, 1, 1, 2, 1}
	dst := []int{1, 0, 2, 1, 1}
	w := []float32{2, 2, 1, 1, 5}
	g, err := graph.FromWeightedEdges(4, src, dst, w)
	if err != nil {
		t.Fatal(err)
	}
	deg := []float64{2, 3, 1, 0}
	a := [4][4]float64{}
	for i := range src {
		if src[i] != dst[i] {
			a[dst[i]][src[i]] = float64(w[i])
		}
	}
	for _, lmax := range []float64{2, 1.5} {
		l := g.ScaledLaplacian(lmax)
		got := [4][4]float64{}
		for v := 0; v < 4; v++ {
			for e := l.Indptr[v]; e < l.Indptr[v+1]; e++ {
				got[v][l.Indices[e]] += float64(l.Weights[e])
			}
		}
		for v := 0; v < 4; v++ {
			for u := 0; u < 4; u++ {
				var norm float64
				if deg[u] > 0 && deg[v] > 0 {
					norm = a[v][u] / math.Sqrt(deg[u]*deg[v])
				}
				lap := -norm
				if u == v {
					lap = 1 // I − D^-1/2 A D^-1/2, as PyG (isolated nodes too)
				}
				want := 2 * lap / lmax
				if u == v {
					want--
				}
				if math.Abs(got[v][u]-want) > 1e-6 {
					t.Errorf("ScaledLaplacian(%g)[%d][%d] = %v, want %v", lmax, v, u, got[v][u], want)
				}
			}
		}
	}
}
