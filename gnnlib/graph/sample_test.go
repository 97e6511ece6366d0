package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestSampleNeighbors(t *testing.T) {
	g, err := BarabasiAlbert(2000, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	edges := edgeSet(g)
	seeds := []int{0, 17, 999, 1500}
	fanouts := []int{5, 3}
	blocks, err := g.SampleNeighbors(seeds, fanouts, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || !slices.Equal(blocks[1].DstNodes, seeds) {
		t.Fatalf("SampleNeighbors gave %d blocks, last ending at %v; want 2 ending at %v", len(blocks), blocks[len(blocks)-1].DstNodes, seeds)
	}
	if !slices.Equal(blocks[0].DstNodes, blocks[1].SrcNodes) {
		t.Errorf("blocks[0].DstNodes = %v, want blocks[1].SrcNodes %v", blocks[0].DstNodes, blocks[1].SrcNodes)
	}
	for i, b := range blocks {
		fan := fanouts[len(fanouts)-1-i]
		if !slices.Equal(b.SrcNodes[:len(b.DstNodes)], b.DstNodes) {
			t.Errorf("block %d sources do not start with its destinations", i)
		}
		bg := b.Graph
		if bg.NumNodes() != len(b.DstNodes) || bg.NumSrc() != len(b.SrcNodes) {
			t.Errorf("block %d graph %v for %d destinations and %d sources", i, bg, len(b.DstNodes), len(b.SrcNodes))
		}
		for v := 0; v < bg.NumNodes(); v++ {
			gv := b.DstNodes[v]
			want := min(fan, len(g.Neighbors(gv)))
			nb := bg.Neighbors(v)
			if len(nb) != want {
				t.Errorf("block %d node %d has %d sampled neighbours, want %d", i, gv, len(nb), want)
			}
			for j, u := range nb {
				if edges[edge{b.SrcNodes[u], gv}] == 0 {
					t.Errorf("block %d samples %d→%d, which is not an edge", i, b.SrcNodes[u], gv)
				}
				if j > 0 && nb[j-1] == u {
					t.Errorf("block %d node %d samples neighbour %d twice", i, gv, b.SrcNodes[u])
				}
			}
		}
	}
	again, _ := g.SampleNeighbors(seeds, fanouts, 11)
	if !slices.Equal(again[0].SrcNodes, blocks[0].SrcNodes) {
		t.Errorf("SampleNeighbors with the same seed gave different samples")
	}
	all, _ := g.SampleNeighbors([]int{3}, []int{-1}, 1)
	if all[0].Graph.NumEdges() != len(g.Neighbors(3)) {
		t.Errorf("fanout -1 sampled %d of %d neighbours", all[0].Graph.NumEdges(), len(g.Neighbors(3)))
	}
	if _, err := g.SampleNeighbors([]int{1, 1}, fanouts, 1); !errors.Is(err, ErrNode) {
		t.Errorf("SampleNeighbors with a repeated seed: error = %v, want ErrNode", err)
	}
}

func TestKHopSubgraph(t *testing.T) {
	// A directed path 0→1→2→3→4 plus 5→4.
	g, _ := FromEdges(6, []int{0, 1, 2, 3, 5}, []int{1, 2, 3, 4, 4})
	tests := []struct {
		seeds        []int
		k            int
		nodes, mapng []int
		edges        int
	}{
		{[]int{4}, 1, []int{3, 4, 5}, []int{1}, 2},
		{[]int{4}, 2, []int{2, 3, 4, 5}, []int{2}, 3},
		{[]int{2, 0}, 5, []int{0, 1, 2}, []int{2, 0}, 2},
		{[]int{1}, 0, []int{1}, []int{0}, 0},
	}
	for _, tt := range tests {
		sub, nodes, mapping, err := g.KHopSubgraph(tt.seeds, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(nodes, tt.nodes) || !slices.Equal(mapping, tt.mapng) || sub.NumEdges() != tt.edges {
			t.Errorf("KHopSubgraph(%v, %d) = %v, %v, %d edges; want %v, %v, %d edges",
				tt.seeds, tt.k, nodes, mapping, sub.NumEdges(), tt.nodes, tt.mapng, tt.edges)
		}
	}
}

func TestSubgraphEdgeIDs(t *testing.T) {
	g, _ := FromWeightedEdges(4, []int{3, 0, 2, 1, 3}, []int{0, 1, 1, 2, 2}, []float32{1, 2, 3, 4, 5})
	sub, ids, err := g.Subgraph([]int{2, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := sub.Edges()
	gs, gd := g.Edges()
	nodes := []int{2, 3, 1}
	for e := range src {
		if nodes[src[e]] != gs[ids[e]] || nodes[dst[e]] != gd[ids[e]] || sub.Weights[e] != g.Weights[ids[e]] {
			t.Errorf("subgraph edge %d (%d→%d) maps to edge %d (%d→%d)", e, nodes[src[e]], nodes[dst[e]], ids[e], gs[ids[e]], gd[ids[e]])
		}
	}
	if len(src) != 3 {
		t.Errorf("Subgraph has %d edges, want 3 (2→1, 1→2, 3→2)", len(src))
	}
}

// TestBatchNeighbors batches graphs in which several nodes have in-edges
// and checks that every node keeps its own in-neighbours, shifted.
func TestBatchNeighbors(t *testing.T) {
	a, _ := FromEdges(3, []int{0, 1, 1, 2, 2, 0}, []int{1, 0, 2, 1, 0, 2}) // a triangle, both directions
	b, _ := FromEdges(4, []int{0, 1, 2, 1, 3}, []int{1, 2, 1, 0, 2})
	g, _ := Batch([]*Graph{a, b})
	for i, part := range []struct {
		g   *Graph
		off int
	}{{a, 0}, {b, 3}} {
		for v := 0; v < part.g.NumNodes(); v++ {
			var want []int
			for _, u := range part.g.Neighbors(v) {
				want = append(want, u+part.off)
			}
			if got := g.Neighbors(v + part.off); !slices.Equal(got, want) {
				t.Errorf("Batch: graph %d node %d: in-neighbours %v, want %v", i, v, got, want)
			}
		}
	}
	if g.NumEdges() != a.NumEdges()+b.NumEdges() {
		t.Errorf("Batch: %d edges, want %d", g.NumEdges(), a.NumEdges()+b.NumEdges())
	}
}

func TestBatchAndPooling(t *testing.T) {
	a, _ := FromEdges(2, []int{0}, []int{1})
	b, _ := FromEdges(3, []int{0, 1}, []int{2, 2})
	g, batch := Batch([]*Graph{a, b})
	if want := []int{0, 0, 1, 1, 1}; !slices.Equal(batch, want) {
		t.Errorf("Batch batch = %v, want %v", batch, want)
	}
	if got, want := fmt.Sprint(edgeSet(g)), fmt.Sprint(map[edge]int{{0, 1}: 1, {2, 4}: 1, {3, 4}: 1}); got != want {
		t.Errorf("Batch edges = %v, want %v", got, want)
	}
	x := []float32{1, 2, 3, 4, 5, 6, -1, 0, 7, 1}
	const f = 2
	sum, mean, mx := make([]float32, 4), make([]float32, 4), make([]float32, 4)
	arg := make([]int, 4)
	GlobalAddPool(sum, x, f, batch, 2)
	GlobalMeanPool(mean, x, f, batch, 2)
	GlobalMaxPool(mx, x, f, batch, 2, arg)
	for _, c := range []struct {
		name      string
		got, want []float32
	}{
		{"add", sum, []float32{4, 6, 11, 7}},
		{"mean", mean, []float32{2, 3, 11.0 / 3, 7.0 / 3}},
		{"max", mx, []float32{3, 4, 7, 6}},
	} {
		if !slices.EqualFunc(c.got, c.want, func(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-6*(1+math.Abs(float64(b))) }) {
			t.Errorf("Global %s pool = %v, want %v", c.name, c.got, c.want)
		}
	}
	if want := []int{1, 1, 4, 2}; !slices.Equal(arg, want) {
		t.Errorf("GlobalMaxPool arg = %v, want %v", arg, want)
	}
}
