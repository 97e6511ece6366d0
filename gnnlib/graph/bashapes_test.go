package graph

import (
	"errors"
	"testing"
)

func TestBAShapes(t *testing.T) {
	g, y, inMotif, err := BAShapes(BAShapesOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 700 || len(y) != 700 || len(inMotif) != g.NumEdges() || !g.IsSymmetric() {
		t.Fatalf("BAShapes = %v with %d labels, %d motif flags, symmetric %t", g, len(y), len(inMotif), g.IsSymmetric())
	}
	count := make([]int, 4)
	for _, l := range y {
		count[l]++
	}
	if count[0] != 300 || count[1] != 160 || count[2] != 160 || count[3] != 80 {
		t.Errorf("label counts %v, want [300 160 160 80]", count)
	}
	motif := 0
	for v := 0; v < g.NumNodes(); v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			u := g.Indices[e]
			if !inMotif[e] {
				continue
			}
			motif++
			// A motif edge joins two nodes of one house.
			if u < 300 || v < 300 || (u-300)/5 != (v-300)/5 {
				t.Errorf("edge %d→%d marked as in a motif", u, v)
			}
		}
	}
	if motif != 80*12 {
		t.Errorf("%d directed motif edges, want %d", motif, 80*12)
	}
	// Within its house, a roof sees the two upper corners only (other
	// neighbours come from noise).
	for h := 0; h < 80; h++ {
		s := 300 + 5*h
		var in []int
		for _, u := range g.Neighbors(s + 4) {
			if u >= s && u < s+5 {
				in = append(in, y[u])
			}
		}
		if len(in) != 2 || in[0] != 1 || in[1] != 1 {
			t.Errorf("house %d: the roof's house neighbours have labels %v, want [1 1]", h, in)
		}
	}
	// Without noise the base joins every house by exactly one edge.
	g0, _, in0, _ := BAShapes(BAShapesOptions{Seed: 3, Noise: -1})
	cross := 0
	for v := 0; v < g0.NumNodes(); v++ {
		for e := g0.Indptr[v]; e < g0.Indptr[v+1]; e++ {
			if !in0[e] && (v >= 300) != (g0.Indices[e] >= 300) {
				cross++
			}
		}
	}
	if cross != 2*80 {
		t.Errorf("without noise: %d directed base–house edges, want %d", cross, 2*80)
	}
	if _, _, _, err := BAShapes(BAShapesOptions{Houses: -1}); !errors.Is(err, ErrParam) {
		t.Errorf("BAShapes(Houses -1) = %v, want ErrParam", err)
	}
}
