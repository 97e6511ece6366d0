package graph

import (
	"errors"
	"slices"
	"testing"
)

func TestHeteroGraph(t *testing.T) {
	h := NewHeteroGraph()
	if err := h.AddNodes("paper", 3, []float32{1, 2, 3, 4, 5, 6}, 2); err != nil {
		t.Fatal(err)
	}
	if err := h.AddNodes("author", 2, nil, 0); err != nil {
		t.Fatal(err)
	}
	writes := EdgeType{"author", "writes", "paper"}
	cites := EdgeType{"paper", "cites", "paper"}
	if err := h.AddEdges(writes, []int{0, 1, 1}, []int{0, 0, 2}); err != nil {
		t.Fatal(err)
	}
	if err := h.AddEdges(cites, []int{1, 2}, []int{0, 0}); err != nil {
		t.Fatal(err)
	}
	if got := h.String(); got != "HeteroGraph(nodes={paper: 3, author: 2}, edges={(author, writes, paper): 3, (paper, cites, paper): 2})" {
		t.Errorf("String() = %q", got)
	}
	w := h.Relation(writes)
	if w.NumSrc() != 2 || w.NumNodes() != 3 || !slices.Equal(w.Neighbors(0), []int{0, 1}) {
		t.Errorf("Relation(writes) = %v, in-neighbours of paper 0 %v", w, w.Neighbors(0))
	}
	s := h.Stacked(writes)
	if s.NumSrc() != 5 || s.NumNodes() != 3 || !slices.Equal(s.Neighbors(0), []int{3, 4}) || !slices.Equal(s.Neighbors(2), []int{4}) {
		t.Errorf("Stacked(writes) = %v, rows %v %v; want authors shifted by 3 papers", s, s.Neighbors(0), s.Neighbors(2))
	}
	if h.Stacked(writes) != s || h.Stacked(cites) != h.Relation(cites) {
		t.Errorf("Stacked is not cached, or not the relation itself within one type")
	}
	if x, f := h.Features("paper"); f != 2 || len(x) != 6 {
		t.Errorf("Features(paper) = %v, %d", x, f)
	}

	errs := []struct {
		name string
		err  error
		want error
	}{
		{"type twice", h.AddNodes("paper", 1, nil, 0), ErrParam},
		{"empty type", h.AddNodes("", 1, nil, 0), ErrParam},
		{"short features", h.AddNodes("venue", 2, []float32{1}, 1), ErrShape},
		{"unknown type", h.AddEdges(EdgeType{"venue", "has", "paper"}, nil, nil), ErrParam},
		{"relation twice", h.AddEdges(cites, nil, nil), ErrParam},
		{"endpoint out of range", h.AddEdges(EdgeType{"paper", "by", "author"}, []int{0}, []int{2}), ErrBadEdge},
	}
	for _, e := range errs {
		if !errors.Is(e.err, e.want) {
			t.Errorf("%s: %v, want %v", e.name, e.err, e.want)
		}
	}
}

func TestTypedSBM(t *testing.T) {
	rels := []EdgeType{{"a", "r", "b"}, {"b", "s", "b"}}
	o := TypedSBMOptions{NodeTypes: []string{"a", "b"}, Sizes: []int{300, 200}, Classes: 3, Relations: rels,
		PIn: 0.06, POut: 0.01, Features: 4, Signal: 1, Seed: 5}
	h, y, err := TypedSBM(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(y["a"]) != 300 || len(y["b"]) != 200 || y["b"][199] != 2 {
		t.Fatalf("labels: %d, %d nodes", len(y["a"]), len(y["b"]))
	}
	for _, et := range rels {
		g := h.Relation(et)
		within, total := 0, g.NumEdges()
		for v := 0; v < g.NumNodes(); v++ {
			for _, u := range g.Neighbors(v) {
				if y[et.Src][u] == y[et.Dst][v] {
					within++
				}
				if et.Src == et.Dst && u == v {
					t.Errorf("%v: self-loop on %d", et, v)
				}
			}
		}
		// Expected share within classes: PIn/(PIn + 2·POut) = 0.75.
		if share := float64(within) / float64(total); share < 0.68 || share > 0.82 {
			t.Errorf("%v: %.2f of %d edges within a class, want about 0.75", et, share, total)
		}
	}
	h2, _, _ := TypedSBM(o)
	if !slices.Equal(h2.Relation(rels[0]).Indices, h.Relation(rels[0]).Indices) {
		t.Errorf("TypedSBM with one seed gave two graphs")
	}
	o.Relations = []EdgeType{{"a", "r", "c"}}
	if _, _, err := TypedSBM(o); !errors.Is(err, ErrParam) {
		t.Errorf("TypedSBM with an unknown type: %v, want ErrParam", err)
	}
}
